"""The web page's doctor mode runs the project's one consultation environment, across server restarts.

The clinician interviews a case's simulated patient over HTTP. Every reply must be the one
``ConsultationEnv`` gives to the same turns in training and evaluation (same case, persona seed, patient
model and questions), whether the server ran throughout, was restarted in the middle, or was killed
with SIGKILL; the turn limit and "the patient leaves" end the interview there too, and an interview that
is over stays over after a restart.

The patient model is scripted but seed-sensitive (``Restyler``: it says the grounded reply it is shown,
opened with a word chosen by the sampling seed), so a patient that forgot its random generator or the
wordings it used after a restart would say something else.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
from pathlib import Path

import httpx

from patient_sim.cases import find_case
from patient_sim.loop import SamplingConfig, new_env
from patient_sim.personas import sample_persona
from patient_sim.prompts import LEAVING_REPLY
from patient_sim.text import reply_key
from serving.app import create_app
from serving.sessions import CLOSING_REPLY, ConsultationStore
from tests.serving.conftest import KEY_A, ScriptedClient, make_settings, run_server
from tests.serving.test_persistence import serve_subprocess
from tests.serving.test_review_web import send, start_case
from tests.serving.test_web import browser  # noqa: F401 - the module's Chromium fixture
from verifier.llm import Completion
from verifier.types import Message

CASE = "acs-stemi"
SEED = 4
# Six doctor turns (the turn limit of training and evaluation): a question the case answers, a test order,
# questions it is silent on, one asked again; the reply to the sixth ends the interview. With this persona
# and seed, a patient restored without its random generator, or without the wordings it has used (an
# "I don't know" it would say twice), answers some of them differently.
TURNS = ["When did the pain start?", "Have you travelled abroad recently?", "REQUEST TEST: ECG, troponin",
         "Do you keep any pets?", "Have you travelled abroad recently?", "Any rashes?"]
_SAY_RE = re.compile(r'What you want to say: "(.*)"', re.DOTALL)


class Restyler(ScriptedClient):
    """A patient model that says the reply it is asked to restyle, opened by a word the seed picks."""

    model = "restyler"

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls += 1
        found = _SAY_RE.search(messages[0].content)
        reply = found.group(1) if found else "Sorry, what do you mean?"
        lead = ("Well, ", "So, ", "Hmm, ", "")[(seed or 0) % 4]
        return Completion(text=lead + reply[:1].lower() + reply[1:] if lead else reply)


def restyler() -> Restyler:
    """The plug-in factory (``--model py:tests.serving.test_interview:restyler``) for a server subprocess."""
    return Restyler()


async def _environment_replies(turns: list[str]) -> list[tuple[str, str | None]]:
    """What ``ConsultationEnv`` itself answers to ``turns``, set up as the training loop sets it up."""
    case = find_case(CASE)
    env = new_env(case, sample_persona(SEED, case), Restyler(), SamplingConfig(), seed=SEED)
    out: list[tuple[str, str | None]] = [(env.opening(), None)]
    for text in turns:
        step = await env.env_response(text)
        out.append((step.reply or CLOSING_REPLY, step.reason))
    return out


def _start(http: httpx.Client) -> tuple[str, str]:
    created = http.post("/v1/consultations", json={"case_id": CASE, "clinician_role": "doctor", "persona_seed": SEED})
    assert created.status_code == 201, created.text
    cid = created.json()["id"]
    return cid, http.get(f"/v1/consultations/{cid}").json()["messages"][0]["content"]


def _ask(http: httpx.Client, cid: str, text: str) -> tuple[str, str | None]:
    response = http.post(f"/v1/consultations/{cid}/messages", json={"content": text})
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["message"]["role"] == "user"
    return reply["message"]["content"], reply["ended"]


def _assert_over(http: httpx.Client, cid: str, reason: str) -> None:
    refused = http.post(f"/v1/consultations/{cid}/messages", json={"content": "One more question?"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "consultation_over", refused.text
    streamed = http.post(f"/v1/consultations/{cid}/messages?stream=true", json={"content": "Still there?"})
    assert streamed.status_code == 409
    session = http.get(f"/v1/consultations/{cid}").json()
    assert session["ended"] == reason and session["turn_limit"] == SamplingConfig().max_turns


def test_a_doctor_mode_interview_is_the_environments_past_the_turn_limit_and_across_a_restart(tmp_path: Path) -> None:
    expected = asyncio.run(_environment_replies(TURNS))
    assert [reason for _, reason in expected] == [None] * 6 + ["turn_limit"]

    # Without a restart.
    with run_server(create_app(make_settings(tmp_path / "once"), client=Restyler())) as server, \
            server.client() as http:
        cid, opening = _start(http)
        straight = [(opening, None)] + [_ask(http, cid, text) for text in TURNS]
        _assert_over(http, cid, "turn_limit")
    assert straight == expected

    # Restarted after the third turn (a new app on the same file: nothing in memory), then past the limit.
    settings = make_settings(tmp_path / "restarted")
    with run_server(create_app(settings, client=Restyler())) as server, server.client() as http:
        cid, opening = _start(http)
        restarted = [(opening, None)] + [_ask(http, cid, text) for text in TURNS[:3]]
        assert http.get(f"/v1/consultations/{cid}").json()["ended"] is None
    with run_server(create_app(settings, client=Restyler())) as server, server.client() as http:
        restarted += [_ask(http, cid, text) for text in TURNS[3:]]
    assert restarted == expected
    # Over, and still over after one more restart; the transcript is the environment's.
    with run_server(create_app(settings, client=Restyler())) as server, server.client() as http:
        _assert_over(http, cid, "turn_limit")
        messages = http.get(f"/v1/consultations/{cid}").json()["messages"]
        assert [m["role"] for m in messages] == ["user"] + ["assistant", "user"] * 6
        assert [m["content"] for m in messages[2::2]] == [reply for reply, _ in expected[1:]]


def test_the_patient_leaves_and_a_diagnosis_ends_the_interview(tmp_path: Path) -> None:
    with run_server(create_app(make_settings(tmp_path), client=Restyler())) as server, server.client() as http:
        cid, _ = _start(http)
        assert _ask(http, cid, "Okay.")[1] is None  # one void turn is tolerated, as in training
        assert _ask(http, cid, "Hmm.") == (LEAVING_REPLY, "patient_left")
        _assert_over(http, cid, "patient_left")

        cid, _ = _start(http)
        assert _ask(http, cid, "When did the pain start?")[1] is None
        assert _ask(http, cid, "DIAGNOSIS: inferior STEMI. Plan: aspirin, PCI.") == (CLOSING_REPLY, "diagnosis")
        _assert_over(http, cid, "diagnosis")


def test_an_interview_survives_sigkill_and_the_patient_says_the_same(tmp_path: Path) -> None:
    """The server process killed with SIGKILL mid-interview: the new process carries on word for word."""
    db, log = tmp_path / "consultations.sqlite", tmp_path / "server.log"
    model = ["--model", "py:tests.serving.test_interview:restyler"]
    headers = {"Authorization": f"Bearer {KEY_A}"}
    expected = asyncio.run(_environment_replies(TURNS))
    with serve_subprocess(db, log, model) as (process, url), httpx.Client(base_url=url, headers=headers,
                                                                           timeout=60) as http:
        cid, opening = _start(http)
        replies = [(opening, None)] + [_ask(http, cid, text) for text in TURNS[:2]]
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    with serve_subprocess(db, log, model) as (_, url), httpx.Client(base_url=url, headers=headers, timeout=60) as http:
        replies += [_ask(http, cid, text) for text in TURNS[2:]]
        _assert_over(http, cid, "turn_limit")
    assert replies == expected


async def test_an_interview_stored_before_the_environment_state_carries_on(tmp_path: Path) -> None:
    """A checkpoint from before ``EnvState`` was stored (messages and ``revealed`` only) is read as the
    environment its transcript implies: the turns counted, a diagnosis ending it, the wordings not repeated."""
    store = await ConsultationStore.open(tmp_path / "old.sqlite", Restyler(), cases=[find_case(CASE)])
    try:
        summary = await store.create("t1", "old", case_id=CASE, clinician_role="doctor", persona_seed=SEED)
        config = store._config(summary.id)
        opening = (await store.messages(summary.id))[0].content
        await store._saver.adelete_thread(summary.id)
        said = "It started about an hour ago."
        await store.graph.aupdate_state(config, {"messages": [
            {"role": "user", "content": opening}, {"role": "assistant", "content": "When did it start?"},
            {"role": "user", "content": said}], "revealed": ["Central crushing chest pain"]}, as_node="patient")
        env = await store.interview(summary.id)
        assert env is not None and env.turns == 1 and not env.done and env.revealed == ["Central crushing chest pain"]
        assert env.transcript[-1] == Message(role="user", content=said)
        assert env.patient.said == [reply_key(said)]
        replies = [item async for item in store.send(summary.id, "Do you smoke?", max_tokens=32, temperature=0.0)]
        assert replies[-1].ended is None and "smoke" in replies[-1].message.content
        assert (await store.interview(summary.id)).turns == 2
        await store.graph.aupdate_state(config, {"messages": [
            {"role": "assistant", "content": "DIAGNOSIS: STEMI"}, {"role": "user", "content": CLOSING_REPLY}],
            "env": None}, as_node="patient")
        ended = await store.interview(summary.id)
        assert ended.done and ended.reason == "diagnosis" and ended.transcript[-1].role == "assistant"
    finally:
        await store.close()


def test_the_page_shows_the_end_of_an_interview(tmp_path: Path, browser) -> None:  # noqa: F811
    """In the page: two turns that ask nothing and the patient leaves; the page says the interview is over,
    takes no more turns, and says so again when the consultation is reopened."""
    with run_server(create_app(make_settings(tmp_path), client=Restyler())) as server:
        page = browser.new_page()
        errors = start_case(page, server.url, CASE, "doctor")
        assert f"You have {SamplingConfig().max_turns} turns" in page.locator("#case-card").inner_text()
        assert page.locator("#ended").is_hidden()
        for text in ("Okay.", "Hmm."):
            send(page, text)
        assert page.locator("#messages li.user").last.inner_text().endswith(LEAVING_REPLY)
        assert "the patient left" in page.locator("#ended").inner_text() and page.locator("#composer").is_hidden()
        page.reload()
        page.wait_for_selector("#sessions li")
        page.locator("#sessions li").first.click()
        page.wait_for_selector("#ended:not([hidden])")
        assert page.locator("#composer").is_hidden()
        assert not errors, errors
