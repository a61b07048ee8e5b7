"""The verifier as a reward service: its own judge and rubric model (never the served policy),
``no_judge`` refusals, ``POST /v1/verify/batch``, and the trainer clients exactly as docs/serving.md
prints them, against a real server."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from patient_sim.cases import find_case
from policy.graders import build_medical_backend
from serving.app import create_app
from serving.settings import Settings
from tests.openai_server import OpenAICompatibleServer
from tests.serving.conftest import ScriptedClient, Server, make_settings, run_server
from verifier.registry import Registry

DOCS = Path(__file__).resolve().parents[2] / "docs" / "serving.md"
VERDICT = '{"explanation": "the response does this", "criteria_met": true}'
PROMPT = [{"role": "user", "content": "I have crushing chest pain spreading to my left arm."}]
GOOD = "This could be a heart attack. Call 911 or go to the emergency department now."
BAD = "It is probably muscular; wait a few days and see."

CHECKED = {"kind": "rubric", "prompt": PROMPT, "rubrics": [
    {"criterion": "Tells the user to call emergency services now", "points": 10,
     "check": {"kind": "recommends_emergency"}},
    {"criterion": "Recommends waiting a few days", "points": -8,
     "check": {"kind": "mentions_any", "terms": ["wait a few days"]}},
]}
JUDGE_ONLY = {"kind": "rubric", "prompt": PROMPT, "rubrics": [
    {"criterion": "Explains the reasoning kindly", "points": 5},
]}
MIXED = {"kind": "rubric", "prompt": PROMPT, "rubrics": [*CHECKED["rubrics"], *JUDGE_ONLY["rubrics"]]}
NEGATIVE_ONLY = {"kind": "rubric", "prompt": PROMPT, "rubrics": [CHECKED["rubrics"][1]]}


def verify_request(task: dict, answer: str = GOOD, grading: str = "hybrid") -> dict:
    return {"domain": "medical", "task": task, "trajectory": [{"role": "assistant", "content": answer}],
            "options": {"grading": grading}}


def docs_client(trainer: str, url: str) -> dict:
    """Run the first python block after the ``**trainer**`` heading of docs/serving.md, pointed at ``url``."""
    text = DOCS.read_text()
    start = text.index(f"**{trainer}**")
    code = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert code, f"no python block after **{trainer}** in {DOCS}"
    namespace: dict = {"__name__": f"medverifier_{trainer.lower()}"}
    exec(compile(code.group(1), f"{DOCS}:{trainer}", "exec"), namespace)
    assert namespace["URL"].endswith("/v1/verify/batch")
    namespace["URL"] = f"{url}/v1/verify/batch"
    namespace["KEY"] = "test-key-alpha"
    return namespace


@pytest.fixture(scope="module")
def judgeless(tmp_path_factory) -> Iterator[tuple[Server, ScriptedClient]]:
    """The default app with no judge configured (rule checks only) and a scripted policy."""
    policy = ScriptedClient()
    with run_server(create_app(make_settings(tmp_path_factory.mktemp("judgeless")), client=policy)) as server:
        yield server, policy


# ------------------------------------------------------------------ the trainer clients in the docs
ROWS = [(CHECKED, GOOD), (CHECKED, BAD), (JUDGE_ONLY, GOOD), (NEGATIVE_ONLY, GOOD)]  # 1.0, 0.0, 422, null


def _batch_calls(server: Server) -> float:
    with server.client() as http:
        metrics = http.get("/metrics").text
    line = next((m for m in metrics.splitlines() if m.startswith("medverifier_http_requests_total")
                 and 'route="/v1/verify/batch"' in m and 'status="200"' in m), None)
    return float(line.split()[-1]) if line else 0.0


async def test_trl_reward_function_from_the_docs(judgeless) -> None:
    server, policy = judgeless
    reward = docs_client("TRL", server.url)["medverifier_reward"]
    before = _batch_calls(server)
    completions = [[{"role": "assistant", "content": answer}] for _, answer in ROWS]
    completions[1] = BAD  # a standard-format (plain text) completion
    rewards = await reward(prompts=[PROMPT] * len(ROWS), completions=completions,
                           task=[json.dumps(task) for task, _ in ROWS], completion_ids=[[1]] * len(ROWS),
                           trainer_state=None)
    assert rewards == [1.0, 0.0, None, None]  # None for the unjudgeable and the unscorable: TRL drops them
    assert _batch_calls(server) == before + 1  # one batch call for the whole reward batch
    assert policy.calls == 0  # the served policy never grades


async def test_verl_and_openrlhf_clients_from_the_docs_substitute_and_count(judgeless, caplog) -> None:
    server, _ = judgeless
    caplog.set_level(logging.WARNING)
    compute_score = docs_client("verl", server.url)["compute_score"]
    scores = await asyncio.to_thread(
        compute_score, data_sources=["medverifier"] * len(ROWS), solution_strs=[a for _, a in ROWS],
        ground_truths=[json.dumps(t) for t, _ in ROWS], extra_infos=[{}] * len(ROWS))
    assert scores == [1.0, 0.0, 0.5, 0.5]  # the unscored get the batch's mean scored reward
    assert "2 of 4 rewards unscored" in caplog.text

    caplog.clear()
    reward_func = docs_client("OpenRLHF", server.url)["reward_func"]
    prompts = ["<|user|>chest pain<|assistant|>"] * len(ROWS)
    out = await asyncio.to_thread(reward_func, [p + a for p, (_, a) in zip(prompts, ROWS, strict=True)], prompts,
                                  [json.dumps(t) for t, _ in ROWS])
    assert out["rewards"].tolist() == [1.0, 0.0, 0.5, 0.5] and out["scores"].tolist() == out["rewards"].tolist()
    assert out["extra_logs"]["medverifier_unscored"].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert "2 of 4 rewards unscored" in caplog.text


# ------------------------------------------------------------------ no judge: rules, unscored, or 422
def test_without_a_judge_hybrid_grades_by_rule_and_refuses_what_needs_a_judge(judgeless) -> None:
    server, policy = judgeless
    with server.client() as http:
        mixed = http.post("/v1/verify", json=verify_request(MIXED))
        assert mixed.status_code == 200, mixed.text
        result = mixed.json()
        assert result["reward"] == 1.0 and result["unscored"] == 1
        assert [c["met"] for c in result["criteria"]] == [True, False, None]

        for request, param in ((verify_request(JUDGE_ONLY), "task.rubrics"),
                               (verify_request(CHECKED, grading="judge"), "options.grading")):
            refused = http.post("/v1/verify", json=request)
            assert refused.status_code == 422, refused.text
            error = refused.json()["error"]
            assert (error["code"], error["param"], error["type"]) == ("no_judge", param, "invalid_request_error")
            assert "MEDVERIFIER_JUDGE_MODEL" in error["message"]

        unscorable = http.post("/v1/verify", json=verify_request(NEGATIVE_ONLY))
        assert unscorable.status_code == 200 and unscorable.json()["reward"] is None  # null, never 0.0
        assert unscorable.json()["meta"]["unscored_reason"]

        llm = http.post("/v1/rubrics", json={"case": find_case("acs-stemi").model_dump(), "generator": "llm"})
        assert llm.status_code == 422 and llm.json()["error"]["code"] == "no_rubric_model"
    assert policy.calls == 0


def test_the_judge_and_rubric_model_come_from_settings_not_the_policy(tmp_path) -> None:
    def upstream_reply(messages: list[dict]) -> str:
        return "no rubric here" if "You write grading rubrics" in messages[-1]["content"] else VERDICT

    policy = ScriptedClient()
    with OpenAICompatibleServer(model="judge-model", responder=upstream_reply) as upstream:
        settings = make_settings(tmp_path, judge_model="judge-model", judge_base_url=upstream.base_url,
                                 rubric_model="judge-model", rubric_base_url=upstream.base_url)
        app = create_app(settings, client=policy)
        with run_server(app) as server, server.client() as http:
            judged = http.post("/v1/verify", json=verify_request(JUDGE_ONLY, grading="judge"))
            assert judged.status_code == 200, judged.text
            assert judged.json()["reward"] == 1.0
            assert judged.json()["criteria"][0]["grader"] == "judge:judge-model"

            case = find_case("acs-stemi").model_dump()
            fallback = http.post("/v1/rubrics", json={"case": case, "generator": "llm"})
            assert fallback.status_code == 200 and fallback.json()["fallback_reason"]
            # The fuzzer's first finding: an unusable LLM rubric with no case to fall back on was a 500.
            unusable = http.post("/v1/rubrics", json={"generator": "llm", "conversation": PROMPT})
            assert unusable.status_code == 422, unusable.text
            assert unusable.json()["error"]["code"] == "rubric_unusable"
        assert app.state.judge.model == "judge-model" and app.state.judge is not policy
        assert len(upstream.requests) >= 3
    assert policy.calls == 0


def test_a_judge_url_without_a_model_is_refused() -> None:
    with pytest.raises(ValidationError, match="judge_base_url is set but judge_model is not"):
        Settings(judge_base_url="http://127.0.0.1:1/v1")
    assert Settings().judge() is None and Settings().rubric() is None


# ------------------------------------------------------------------ the batch endpoint
async def test_batch_answers_in_order_each_item_on_its_own_with_bounded_concurrency(tmp_path) -> None:
    judge = ScriptedClient(delay_s=0.2, reply=lambda messages: VERDICT, model="judge")
    registry = Registry()
    registry.register(build_medical_backend(judge))  # medical only: a search request is an unknown domain
    settings = make_settings(tmp_path, verify_concurrency=2, verify_batch_max=8)
    app = create_app(settings, client=ScriptedClient(), judge=judge, registry=registry)
    judged = [verify_request(JUDGE_ONLY, grading="judge")] * 4
    odd = [
        {"domain": "medical", "task": CHECKED},  # no trajectory
        {"domain": "search", "task": {"question": "q", "answers": ["a"]},
         "trajectory": [{"role": "assistant", "content": "a"}]},
        42,
    ]
    with run_server(app) as server, server.client() as http:
        response = http.post("/v1/verify/batch", json={"requests": [*judged[:2], *odd, *judged[2:]]})
        assert response.status_code == 200, response.text
        items = response.json()["data"]
        assert [i["status"] for i in items] == [200, 200, 422, 400, 422, 200, 200]
        assert all(i["result"]["reward"] == 1.0 and i["error"] is None for i in items if i["status"] == 200)
        assert items[2]["error"]["param"] == "requests.2.medical.trajectory"  # pydantic names the union member
        assert items[2]["error"]["code"] == "validation_error" and items[2]["result"] is None
        assert items[3]["error"]["code"] == "unknown_domain"
        assert judge.most_in_flight == 2  # MEDVERIFIER_VERIFY_CONCURRENCY
        assert app.state.admission.in_flight == 0

        too_many = http.post("/v1/verify/batch", json={"requests": judged * 3})
        assert too_many.status_code == 422 and too_many.json()["error"]["code"] == "batch_too_large"
        assert http.post("/v1/verify/batch", json={"requests": []}).json() == {"data": []}
        assert http.post("/v1/verify/batch", json=[verify_request(CHECKED)]).status_code == 422
