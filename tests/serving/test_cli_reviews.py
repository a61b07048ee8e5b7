"""``medverifier reviews export|agreement`` on a server's database after two clinicians reviewed one consultation."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from evaluation.healthbench_eval import HealthBenchEval
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from serving.app import create_app
from serving.cli import app
from tests.serving.conftest import KEY_A, KEY_B, ScriptedClient, run_server
from tests.serving.test_reviews import consult, doctor, labelled
from verifier.healthbench import load_healthbench


def test_export_and_agreement_from_the_database(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MEDVERIFIER_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("MEDVERIFIER_PROGRESS", "0")
    settings = labelled(tmp_path)
    with run_server(create_app(settings, client=ScriptedClient(reply=doctor))) as server:
        cid = consult(server)
        with server.client(KEY_A) as ames, server.client(KEY_B) as bell:
            ames.put(f"/v1/consultations/{cid}/shares", json={"reviewers": ["dr-bell"]})
            criteria = ames.get(f"/v1/consultations/{cid}/review").json()["rubric"]["criteria"]
            final = [c["id"] for c in criteria if c["turn"] == "final" and c["met"] is not None][:2]
            assert ames.put(f"/v1/consultations/{cid}/review", json={
                "criteria": [{"id": i, "verdict": "agree"} for i in final]}).status_code == 200
            assert bell.put(f"/v1/consultations/{cid}/review", json={
                "criteria": [{"id": final[0], "verdict": "agree"}, {"id": final[1], "verdict": "disagree"}]}
            ).status_code == 200

    runner = CliRunner()
    out = tmp_path / "exported"
    result = runner.invoke(app, ["reviews", "export", "--db", str(settings.db_path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "healthbench.jsonl: 2 of 2 reviews" in result.output
    records = load_healthbench(out / "healthbench.jsonl")
    assert sorted(r.example_tags[0] for r in records) == ["reviewer:dr-ames", "reviewer:dr-bell"]
    only_bell = runner.invoke(app, ["reviews", "export", "--db", str(settings.db_path), "--out", str(tmp_path / "b"),
                                    "--reviewer", "dr-bell"])
    assert "healthbench.jsonl: 1 of 1 reviews" in only_bell.output

    result = runner.invoke(app, ["reviews", "agreement", "--db", str(settings.db_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["grader"]["n"] == 4 and report["grader"]["accuracy"] == 0.75
    assert report["clinicians"]["n"] == 2 and report["clinicians"]["accuracy"] == 0.5

    # Beside an eval run of the exported file, the agreement becomes a section of its HTML report.
    evaluation = HealthBenchEval.create(out / "healthbench.jsonl", policy=ClientSpec(model="py:tests.evaluation.fakes:policy"),
                                        grader=GraderSpec(kind="rule"), runs_dir=tmp_path / "runs", run_name="rv")
    asyncio.run(evaluation.run(show_progress=False))
    result = runner.invoke(app, ["reviews", "agreement", "--db", str(settings.db_path), "--run", "rv",
                                 "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert "clinician vs" in result.output and "2/4 disagree" not in result.output
    html = (tmp_path / "runs" / "rv" / "report.html").read_text()
    assert 'id="agreement"' in html and "dr-ames, dr-bell" in html

    # `grade` regrades the reviewed final turns under the clinicians' rubrics.
    result = runner.invoke(app, ["grade", "--data", str(out / "healthbench.jsonl"), "--responses",
                                 str(out / "responses.jsonl"), "--grading", "rule"])
    assert result.exit_code == 0, result.output
    graded = json.loads(result.output[result.output.index("{"):])
    # Both kept the two diagnosis items (+10 met, -10 not met) of the final turn, a correct diagnosis: 10/10.
    assert graded["n_examples"] == 2 and graded["score"] == 1.0 and graded["unscored_items"] == 0

    # The consultations export drives the consultation eval: each case graded with its clinician's rubric.
    result = runner.invoke(app, ["eval", "consult", "--cases", str(out / "consultations.jsonl"), "--reviewed",
                                 "--model", "py:tests.evaluation.fakes:policy", "--patient-model",
                                 "py:tests.evaluation.fakes:policy", "--grading", "rule", "--max-turns", "2",
                                 "--runs-dir", str(tmp_path / "runs"), "--run-name", "consult-rv"])
    assert result.exit_code == 0, result.output
    from evaluation.store import ResultsStore

    with ResultsStore.for_run(tmp_path / "runs" / "consult-rv") as store:
        results = store.results()
    kept = {r.criterion for r in load_healthbench(out / "healthbench.jsonl")[0].rubrics}
    assert len(results) == 2 and all({c.criterion for c in r.criteria} == kept for r in results)
    bad = runner.invoke(app, ["eval", "consult", "--cases", str(out / "healthbench.jsonl"), "--reviewed"])
    assert bad.exit_code == 2 and "healthbench.jsonl:1" in bad.output

    missing = runner.invoke(app, ["reviews", "export", "--db", str(tmp_path / "nope.sqlite")])
    assert missing.exit_code == 2 and "no such database" in missing.output
