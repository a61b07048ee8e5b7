"""Clinician review against a real uvicorn server and SQLite file (a scripted doctor: the model is not the point).

A consultation on the case ``acs-stemi`` in which the scripted doctor asks when the pain started, then
states the right diagnosis: the case-grounded rubric credits both, the clinician disagrees with one
verdict, changes points, adds a criterion; the review survives a restart, is shared only where the
owner says, and its HealthBench export loads through the real loader and grades.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluation.healthbench_eval import HealthBenchEval
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from serving.app import create_app
from serving.settings import Settings, hash_key
from tests.serving.conftest import KEY_A, KEY_B, ScriptedClient, Server, run_server
from verifier.healthbench import load_healthbench, load_responses
from verifier.types import MedicalVerifyRequest

KEY_C = "test-key-charlie"
CASE = "acs-stemi"
DIAGNOSIS_TURN = ("DIAGNOSIS: acute inferior ST-elevation myocardial infarction. Plan: call an ambulance now, "
                  "aspirin 300 mg chewed, emergency angiography.")


def doctor(messages) -> str:
    turns = sum(m.role == "assistant" for m in messages)
    return "When did the chest pain start? Does the pain spread anywhere?" if turns == 0 else DIAGNOSIS_TURN


def labelled(tmp: Path, **overrides):
    # B's label is given by its digest, as an operator who keeps no plain keys would.
    return Settings(api_keys=[KEY_A, KEY_B, KEY_C], db_path=tmp / "consultations.sqlite",
                    key_labels={"dr-ames": KEY_A, "dr-bell": hash_key(KEY_B)}, **overrides)


@pytest.fixture
def server(tmp_path: Path):
    with run_server(create_app(labelled(tmp_path), client=ScriptedClient(reply=doctor))) as live:
        yield live


def consult(server: Server, key: str = KEY_A, **body) -> str:
    with server.client(key) as http:
        created = http.post("/v1/consultations", json={"case_id": CASE, **body})
        assert created.status_code == 201, created.text
        cid = created.json()["id"]
        for text in ("I have crushing chest pain.", "It started an hour ago and goes to my left arm."):
            assert http.post(f"/v1/consultations/{cid}/messages", json={"content": text}).status_code == 200
    return cid


def test_review_round_trip_survives_a_restart_and_exports(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEDVERIFIER_HOME", str(tmp_path / "home"))
    settings = labelled(tmp_path)
    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server, server.client() as http:
        assert any(c["id"] == CASE for c in http.get("/v1/cases").json()["data"])
        cid = consult(server)
        page = http.get(f"/v1/consultations/{cid}/review").json()
        assert page["reviewer"] == "dr-ames" and page["review"] is None and page["rubric_unavailable"] is None
        rubric = page["rubric"]
        assert rubric["generator"].startswith("case@") and rubric["case_id"] == CASE
        by_text = {c["criterion"]: c for c in rubric["criteria"]}
        correct = next(c for t, c in by_text.items() if t.startswith("States the correct final diagnosis"))
        assert correct["met"] is True and correct["grader"] == "rule" and correct["turn"] == "final"
        asked = next(c for c in rubric["criteria"] if c["turn"] == "consultation" and c["met"] is True)
        assert "overall" in rubric["scores"] and any(k.startswith("axis:") for k in rubric["scores"])

        body = {
            "criteria": [
                {"id": correct["id"], "verdict": "agree", "points": 8},
                {"id": asked["id"], "verdict": "disagree", "note": "asked after the pain was described"},
            ],
            "added": [{"criterion": "Advises chewing aspirin unless allergic (verdict: met)", "points": 4,
                       "tags": ["axis:accuracy", "cluster:plan"], "met": True}],
            "rating": 4, "comment": "reasonable",
        }
        saved = http.put(f"/v1/consultations/{cid}/review", json=body)
        assert saved.status_code == 200, saved.text

    # A new server process on the same file: the review is there, as saved.
    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server, server.client() as http:
        review = http.get(f"/v1/consultations/{cid}/review").json()["review"]
        assert review["rating"] == 4 and review["reviewer"] == "dr-ames"
        marks = {c["id"]: c for c in review["criteria"]}
        assert marks[asked["id"]]["verdict"] == "disagree" and marks[correct["id"]]["points"] == 8
        assert review["added"][0]["criterion"].startswith("Advises chewing aspirin")

        agreement = http.get("/v1/reviews/agreement").json()
        assert agreement["grader"]["n"] == 2 and agreement["grader"]["accuracy"] == 0.5
        assert agreement["clinicians"] is None
        assert agreement["most_disagreed"][0]["criterion"] == asked["criterion"]

        exported = {}
        for fmt in ("healthbench", "responses", "consultations"):
            response = http.get("/v1/reviews/export", params={"format": fmt})
            assert response.status_code == 200 and response.headers["content-type"].startswith("application/x-ndjson")
            exported[fmt] = tmp_path / f"{fmt}.jsonl"
            exported[fmt].write_text(response.text)
        assert http.get("/v1/reviews/export", params={"format": "csv"}).status_code == 422

    records = load_healthbench(exported["healthbench"])
    assert len(records) == 1
    record = records[0]
    assert record.prompt_id == f"{cid}:dr-ames"
    assert record.example_tags == ["reviewer:dr-ames", f"case:{CASE}", "rating:4"]
    assert [m.role for m in record.prompt] == ["user", "assistant", "user"]  # up to the graded (final) turn
    # Only items about the final turn: the confirmed diagnosis item (its new points) and the clinician's own;
    # the question the clinician disagreed with is about the whole consultation and stays out.
    assert [(r.criterion, r.points) for r in record.rubrics] == [
        (correct["criterion"], 8), ("Advises chewing aspirin unless allergic (verdict: met)", 4)]
    assert load_responses(exported["responses"])[0].response == DIAGNOSIS_TURN

    lines = [json.loads(line) for line in exported["consultations"].read_text().splitlines()]
    request = MedicalVerifyRequest.model_validate(lines[0])
    assert request.task.case.id == CASE and len(request.task.rubrics) == 3
    assert lines[0]["review"]["reviewer"] == "dr-ames"

    # `eval healthbench` loads the file unchanged and grades it: the rule decides the diagnosis item,
    # the (scripted) judge the clinician's; the scripted policy states no diagnosis: (0 + 4) / 12.
    evaluation = HealthBenchEval.create(
        exported["healthbench"], policy=ClientSpec(model="py:tests.evaluation.fakes:policy"),
        grader=GraderSpec(kind="hybrid", judge=ClientSpec(model="py:tests.evaluation.fakes:judge"),
                          prompt="medverifier"), runs_dir=tmp_path / "runs", run_name="reviewed")
    import asyncio

    summary = asyncio.run(evaluation.run(show_progress=False))
    assert summary.finished == 1 and summary.unscored_items == 0
    assert summary.score == pytest.approx(4 / 12)
    assert "reviewer:dr-ames" in summary.themes or "reviewer:dr-ames" in summary.other_tags


def test_only_the_owner_and_named_reviewers_see_a_consultation(server: Server) -> None:
    cid = consult(server)
    review = {"criteria": [{"id": "v1", "verdict": "disagree"}]}
    with server.client(KEY_B) as bell, server.client(KEY_C) as stranger, server.client() as owner:
        for http in (bell, stranger):
            assert http.get(f"/v1/consultations/{cid}").status_code == 404
            assert http.get(f"/v1/consultations/{cid}/review").status_code == 404
            assert http.put(f"/v1/consultations/{cid}/review", json=review).status_code == 404
            assert http.put(f"/v1/consultations/{cid}/shares", json={"reviewers": ["dr-bell"]}).status_code == 404
        unknown = owner.put(f"/v1/consultations/{cid}/shares", json={"reviewers": ["dr-nobody"]})
        assert unknown.status_code == 422 and "dr-nobody" in unknown.json()["error"]["message"]
        assert owner.put(f"/v1/consultations/{cid}/shares", json={"reviewers": ["dr-ames"]}).status_code == 422
        assert owner.put(f"/v1/consultations/{cid}/shares", json={"reviewers": ["dr-bell"]}).json() == {
            "reviewers": ["dr-bell"]}

        # Bell reads it and writes a review of her own; she cannot write to the consultation itself.
        listed = bell.get("/v1/consultations").json()["data"]
        assert [(c["id"], c["access"]) for c in listed] == [(cid, "reviewer")]
        assert bell.get(f"/v1/consultations/{cid}").json()["messages"][0]["content"] == "I have crushing chest pain."
        assert bell.put(f"/v1/consultations/{cid}/review", json=review).status_code == 200
        for attempt in (bell.post(f"/v1/consultations/{cid}/messages", json={"content": "hi"}),
                        bell.delete(f"/v1/consultations/{cid}"),
                        bell.put(f"/v1/consultations/{cid}/shares", json={"reviewers": []}),
                        bell.put(f"/v1/consultations/{cid}/case", json={"case_id": CASE})):
            assert attempt.status_code == 403, attempt.text
            assert attempt.json()["error"]["code"] == "read_only"
        assert stranger.get(f"/v1/consultations/{cid}").status_code == 404
        assert owner.put(f"/v1/consultations/{cid}/review", json={"criteria": [{"id": "v1", "verdict": "agree"}]}
                         ).status_code == 200

        # Each sees their own review; the owner's agreement table has both clinicians.
        assert owner.get(f"/v1/consultations/{cid}/review").json()["review"]["criteria"][0]["verdict"] == "agree"
        assert bell.get(f"/v1/consultations/{cid}/review").json()["review"]["criteria"][0]["verdict"] == "disagree"
        table = owner.get("/v1/reviews/agreement").json()
        assert table["reviewers"] == ["dr-ames", "dr-bell"]
        assert table["clinicians"]["n"] == 1 and table["clinicians"]["accuracy"] == 0.0
        assert stranger.get("/v1/reviews/agreement").json()["reviews"] == 0
        assert stranger.get("/v1/reviews/export").text == ""

        # The owner goes on with the consultation: a review of the old verdicts is refused, not misfiled.
        assert owner.post(f"/v1/consultations/{cid}/messages", json={"content": "Thanks."}).status_code == 200
        stale = bell.put(f"/v1/consultations/{cid}/review", json={**review, "rubric_messages": 4})
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "review_stale"
        fresh = bell.get(f"/v1/consultations/{cid}/review").json()["rubric"]["messages"]
        assert fresh == 6
        assert bell.put(f"/v1/consultations/{cid}/review", json={**review, "rubric_messages": 6}).status_code == 200

        # Unsharing takes it away again.
        assert owner.put(f"/v1/consultations/{cid}/shares", json={"reviewers": []}).status_code == 200
        assert bell.get(f"/v1/consultations/{cid}").status_code == 404
        # Deleting the consultation deletes its reviews.
        assert owner.delete(f"/v1/consultations/{cid}").status_code == 204
        assert owner.get("/v1/reviews/agreement").json()["reviews"] == 0


@pytest.mark.parametrize(("body", "status", "words"), [
    ({"criteria": [{"id": "v999", "verdict": "agree"}]}, 422, "unknown criterion 'v999'"),
    ({"criteria": [{"id": "v1", "verdict": "maybe"}]}, 422, "criteria.0.verdict"),
    ({"criteria": [{"id": "v1", "points": 1000}]}, 422, "criteria.0.points"),
    ({"criteria": [{"id": "v1", "points": -101}]}, 422, "criteria.0.points"),
    ({"criteria": [{"id": "v1", "note": "x" * 2001}]}, 422, "criteria.0.note"),
    ({"criteria": [{"id": "v1"}, {"id": "v1"}]}, 422, "reviewed twice"),
    ({"added": [{"criterion": "  ", "points": 3}]}, 422, "added.0.criterion"),
    ({"added": [{"criterion": "Asks about allergies", "points": 0}]}, 422, "must not be 0"),
    ({"added": [{"criterion": "Asks about allergies", "points": 3, "tags": ["accuracy"]}]}, 422, "axis:accuracy"),
    ({"rating": 9}, 422, "rating"),
    ({"verdicts": []}, 422, "verdicts"),
])
def test_bad_reviews_get_a_clear_4xx(server: Server, body: dict, status: int, words: str) -> None:
    cid = consult(server)
    with server.client() as http:
        response = http.put(f"/v1/consultations/{cid}/review", json=body)
        assert response.status_code == status, response.text
        assert words in response.json()["error"]["message"]
        assert http.get(f"/v1/consultations/{cid}/review").json()["review"] is None


def test_malformed_json_and_unknown_cases(server: Server) -> None:
    cid = consult(server)
    with server.client() as http:
        response = http.put(f"/v1/consultations/{cid}/review", content=b"{not json",
                            headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and response.json()["error"]["code"] == "json_invalid"
        unknown = http.post("/v1/consultations", json={"case_id": "../../etc/passwd"})
        assert unknown.status_code == 422 and "unknown case" in unknown.json()["error"]["message"]
        assert http.get("/v1/cases/nope").status_code == 404
        assert http.post("/v1/consultations", json={"clinician_role": "doctor"}).status_code == 422


def test_without_a_case_there_is_no_rubric_until_one_is_attached(server: Server) -> None:
    with server.client() as http:
        cid = http.post("/v1/consultations", json={}).json()["id"]
        assert http.get(f"/v1/consultations/{cid}/review").json()["rubric_unavailable"].startswith("the consultation has no doctor turn")
        http.post(f"/v1/consultations/{cid}/messages", json={"content": "Chest pain for an hour."})
        page = http.get(f"/v1/consultations/{cid}/review").json()
        assert page["rubric"] is None and "attach a case" in page["rubric_unavailable"]
        # Own criteria can still be written; the verifier's cannot be reviewed.
        assert http.put(f"/v1/consultations/{cid}/review", json={"criteria": [{"id": "v1", "verdict": "agree"}]}
                        ).status_code == 422
        assert http.put(f"/v1/consultations/{cid}/review", json={"added": [
            {"criterion": "Recommends emergency care", "points": 5}], "rating": 2}).status_code == 200
        assert http.put(f"/v1/consultations/{cid}/case", json={"case_id": "nope"}).status_code == 422
        assert http.put(f"/v1/consultations/{cid}/case", json={"case_id": CASE}).json()["case_id"] == CASE
        assert http.get(f"/v1/consultations/{cid}/review").json()["rubric"]["case_id"] == CASE


def test_the_clinician_interviews_the_simulated_patient(server: Server) -> None:
    with server.client() as http:
        created = http.post("/v1/consultations", json={"case_id": CASE, "clinician_role": "doctor"}).json()
        assert created["clinician_role"] == "doctor" and created["title"]
        cid = created["id"]
        opening = http.get(f"/v1/consultations/{cid}").json()["messages"]
        assert [m["role"] for m in opening] == ["user"] and "chest" in opening[0]["content"].lower()
        reply = http.post(f"/v1/consultations/{cid}/messages", json={"content": "REQUEST TEST: ECG"}).json()
        assert reply["message"]["role"] == "user" and "ECG" in reply["message"]["content"]
        http.post(f"/v1/consultations/{cid}/messages", json={"content": DIAGNOSIS_TURN})
        messages = http.get(f"/v1/consultations/{cid}").json()["messages"]
        assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant", "user"]
        graded = http.get(f"/v1/consultations/{cid}/review").json()["rubric"]
        assert next(c for c in graded["criteria"] if c["criterion"].startswith("States the correct"))["met"] is True
        assert http.put(f"/v1/consultations/{cid}/case", json={"case_id": "acute-appendicitis"}).status_code == 409


def test_a_saved_review_survives_sigkill(tmp_path: Path) -> None:
    """``kill -9`` right after the 200: the review was committed before the answer left."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import httpx

    from tests.serving.conftest import free_port

    db, log = tmp_path / "consultations.sqlite", tmp_path / "server.log"
    env = {**os.environ, "MEDVERIFIER_HOME": str(tmp_path / "home"), "MEDVERIFIER_KEY_LABELS": f"dr-ames={KEY_A}"}

    def start() -> tuple[subprocess.Popen, httpx.Client]:
        port = free_port()
        command = [sys.executable, "-m", "serving.cli", "serve", "--model", "py:tests.evaluation.fakes:policy",
                   "--port", str(port), "--db", str(db), "--api-key", KEY_A, "--log-level", "warning"]
        with log.open("ab") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
        http = httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {KEY_A}"},
                            timeout=60)
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if http.get("/healthz").status_code == 200:
                    return process, http
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)

    process, http = start()
    try:
        cid = http.post("/v1/consultations", json={"case_id": CASE}).json()["id"]
        assert http.post(f"/v1/consultations/{cid}/messages", json={"content": "Chest pain."}).status_code == 200
        saved = http.put(f"/v1/consultations/{cid}/review", json={
            "criteria": [{"id": "v2", "verdict": "disagree", "note": "typed just before the crash"}], "rating": 1})
        assert saved.status_code == 200, saved.text
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        http.close()
        if process.poll() is None:
            process.kill()
    process, http = start()
    try:
        review = http.get(f"/v1/consultations/{cid}/review").json()["review"]
        assert review["reviewer"] == "dr-ames" and review["rating"] == 1
        assert review["criteria"][0]["note"] == "typed just before the crash"
    finally:
        http.close()
        process.kill()
        process.wait(timeout=30)


async def test_a_database_from_before_reviews_opens_and_keeps_its_consultations(tmp_path: Path) -> None:
    import aiosqlite

    from serving.sessions import ConsultationStore

    db = tmp_path / "old.sqlite"
    async with aiosqlite.connect(db) as conn:
        await conn.executescript("""
            CREATE TABLE consultations (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, title TEXT NOT NULL,
                created_at REAL NOT NULL, updated_at REAL NOT NULL, turns INTEGER NOT NULL DEFAULT 0);
            INSERT INTO consultations VALUES ('old', 't1', 'before reviews', 1.0, 2.0, 3);""")
        await conn.commit()
    store = await ConsultationStore.open(db, None)
    try:
        (old,) = await store.list("t1")
        assert (old.id, old.turns, old.case_id, old.clinician_role, old.access) == ("old", 3, None, "patient", "owner")
    finally:
        await store.close()


def test_key_labels_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("MEDVERIFIER_KEY_LABELS", f'{{"dr-ames": "{KEY_A}", "dr-bell": "{hash_key(KEY_B)}"}}')
    settings = Settings(api_keys=[KEY_A, KEY_B])
    assert sorted(settings.labels_by_digest().values()) == ["dr-ames", "dr-bell"]
    with pytest.raises(ValueError, match="dr-ames label no configured API key"):
        Settings(api_keys=[KEY_B]).labels_by_digest()
    monkeypatch.setenv("MEDVERIFIER_KEY_LABELS", "bad label=x")
    with pytest.raises(ValueError, match="bad label"):
        Settings()


def _as_older_rubric(rubric: dict, *, flip: str, renamed: str) -> dict:
    """``rubric`` as an older rubric version might have graded it: numbered the other way round, one verdict
    the other way, one criterion worded otherwise."""
    old = json.loads(json.dumps(rubric))
    old["generator"] = "case@3"
    count = len(old["criteria"])
    for index, item in enumerate(old["criteria"]):
        item["id"] = f"v{count - index}"
        if item["criterion"] == flip:
            item["met"] = not item["met"]
        if item["criterion"] == renamed:
            item["criterion"] = "Asks an older version's question about the pain"
    old["criteria"].reverse()
    return old


def store_older_review(db_path: Path, cid: str, review: dict) -> None:
    """Write ``review`` (its rubric an older version's) as the owner's review and as the consultation's
    stored grading, straight into the server's file (the server is stopped)."""
    import sqlite3

    with sqlite3.connect(db_path) as db:
        owner = db.execute("SELECT tenant FROM consultations WHERE id = ?", (cid,)).fetchone()[0]
        db.execute("INSERT OR REPLACE INTO reviews (consultation_id, reviewer, label, review, updated_at) "
                   "VALUES (?, ?, ?, ?, 1.0)", (cid, owner, review["reviewer"], json.dumps(review)))
        db.execute("UPDATE gradings SET rubric = ? WHERE consultation_id = ?", (json.dumps(review["rubric"]), cid))


def test_a_review_made_against_an_older_rubric_is_regraded_when_opened(tmp_path: Path) -> None:
    """The case rubric moved on (case@3 -> the current version) after a review was saved: opening the review
    regrades it, carries the clinician's marks onto the same criteria, keeps the marks as they were, and
    says which verdicts changed; saving again clears the notice and a save against the old one is refused."""
    import sqlite3

    from rubric_gen.case_rubric import CASE_RUBRIC_VERSION

    settings = labelled(tmp_path)
    current = f"case@{CASE_RUBRIC_VERSION}"
    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server, server.client() as http:
        cid = consult(server)
        rubric = http.get(f"/v1/consultations/{cid}/review").json()["rubric"]
        assert rubric["generator"] == current
    by_text = {c["criterion"]: c for c in rubric["criteria"]}
    correct = next(c for t, c in by_text.items() if t.startswith("States the correct final diagnosis"))
    asked = next(c for c in rubric["criteria"] if c["turn"] == "consultation" and c["met"] is True
                 and c["id"] != correct["id"])
    gone = next(c for c in rubric["criteria"] if c["id"] not in (correct["id"], asked["id"]) and c["met"] is not None)
    older = _as_older_rubric(rubric, flip=asked["criterion"], renamed=gone["criterion"])
    old_id = {c["criterion"]: c["id"] for c in older["criteria"]}
    renamed_id = old_id["Asks an older version's question about the pain"]
    # The review as the clinician saved it under case@3 (ids of that rubric), and that grading, in the file.
    stored = {
        "consultation_id": cid, "reviewer": "dr-ames", "rubric": older, "updated_at": 1.0, "rating": 3,
        "comment": "saved under the old rubric",
        "criteria": [
            {"id": old_id[correct["criterion"]], "verdict": "agree", "note": "right diagnosis", "points": 9},
            {"id": old_id[asked["criterion"]], "verdict": "agree", "note": "it was not asked"},  # judged: not met
            {"id": renamed_id, "verdict": "disagree", "note": "a note on a criterion that is gone"},
        ],
        "added": [{"criterion": "Advises chewing aspirin", "points": 4, "tags": [], "met": True, "turn": "final"}],
    }
    store_older_review(settings.db_path, cid, stored)

    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server, server.client() as http:
        page = http.get(f"/v1/consultations/{cid}/review").json()
        assert page["rubric"]["generator"] == current and page["rubric"]["criteria"] == rubric["criteria"]
        assert page["regraded_from_version"] == "case@3"
        changes = {(c["change"], c["criterion"]): c for c in page["verdict_changes"]}
        assert changes[("changed", asked["criterion"])] == {
            "criterion": asked["criterion"], "change": "changed", "id": asked["id"], "before": False, "after": True}
        assert ("added", gone["criterion"]) in changes
        assert ("removed", "Asks an older version's question about the pain") in changes
        assert len(changes) == 3

        review = page["review"]
        assert review["rubric"]["generator"] == current and review["regraded_from"] == "case@3"
        marks = {m["id"]: m for m in review["criteria"]}
        # Carried to the same criteria under their new ids; the clinician's judgement kept: "agree" with the
        # old "not met" is "disagree" with the new "met".
        assert marks[correct["id"]] == {"id": correct["id"], "verdict": "agree", "note": "right diagnosis", "points": 9}
        assert marks[asked["id"]]["verdict"] == "disagree" and marks[asked["id"]]["note"] == "it was not asked"
        assert len(marks) == 2
        # Nothing the clinician gave is lost: the old rubric and every mark as it was.
        (earlier,) = review["earlier"]
        assert earlier["rubric"]["generator"] == "case@3" and earlier["criteria"] == [
            {**m, "points": m.get("points")} for m in stored["criteria"]]
        assert review["rating"] == 3 and review["added"][0]["criterion"] == "Advises chewing aspirin"

        # The regrade is stored: the grading and the review (the notice stays until the clinician saves).
        with sqlite3.connect(settings.db_path) as db:
            graded = json.loads(db.execute("SELECT rubric FROM gradings WHERE consultation_id = ?", (cid,)).fetchone()[0])
        assert graded["generator"] == current
        again = http.get(f"/v1/consultations/{cid}/review").json()
        assert again["regraded_from_version"] == "case@3" and again["review"]["criteria"] == review["criteria"]
        agreement = http.get("/v1/reviews/agreement").json()
        assert agreement["grader"]["n"] == 2 and agreement["grader"]["accuracy"] == 0.5

        body = {"criteria": review["criteria"], "rating": 3, "rubric_messages": page["rubric"]["messages"]}
        stale = http.put(f"/v1/consultations/{cid}/review", json={**body, "rubric_generator": "case@3"})
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "review_stale"
        saved = http.put(f"/v1/consultations/{cid}/review", json={**body, "rubric_generator": current})
        assert saved.status_code == 200, saved.text
        assert saved.json()["regraded_from"] is None and len(saved.json()["earlier"]) == 1
        after = http.get(f"/v1/consultations/{cid}/review").json()
        assert after["regraded_from_version"] is None and after["verdict_changes"] == []
        assert after["review"]["earlier"][0]["criteria"][2]["note"] == "a note on a criterion that is gone"
