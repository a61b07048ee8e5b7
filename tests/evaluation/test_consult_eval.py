"""Consultation eval: diagnosis matching (synonyms, judge-assisted) and the main job end to end.

The demo test is the one test here that runs the embedded model for real (doctor and patient); it
shares the session's ``local_client`` so the model is not loaded twice.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from evaluation.consult_eval import judge_match, synonym_match
from policy.clients import ClientSpec, register_client
from serving.cli import app
from verifier.llm import Completion
from verifier.types import Case


def _case() -> Case:
    return Case(id="mi", specialty="cardiology", chief_complaint="chest pain", history_of_present_illness="...",
                final_diagnosis="Acute myocardial infarction", diagnosis_synonyms=["heart attack", "STEMI"])


def test_synonym_match() -> None:
    case = _case()
    assert synonym_match("Acute myocardial infarction.", case)
    assert synonym_match("probable STEMI of the anterior wall", case)
    assert synonym_match("Heart-attack", case)
    assert not synonym_match("stable angina", case)
    assert not synonym_match("MI", case)  # too short to count as "contained in" the reference
    assert not synonym_match(None, case)


class _Judge:
    model = "scripted-judge"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls = 0

    async def complete(self, messages, **kwargs) -> Completion:  # noqa: ANN001, ANN003
        self.calls += 1
        return Completion(text=self.reply)


async def test_judge_assisted_match_and_unusable_judge() -> None:
    yes = _Judge('{"explanation": "same condition", "criteria_met": true}')
    assert await judge_match(yes, "myocardial necrosis from coronary occlusion", _case()) is True
    assert yes.calls == 1
    garbage = _Judge("hmm")
    assert await judge_match(garbage, "something", _case()) is None
    assert garbage.calls == 3  # bounded retries, then no verdict (the synonym result stands)


def test_demo_runs_end_to_end(tmp_path: Path, monkeypatch, local_client) -> None:
    monkeypatch.setenv("MEDVERIFIER_PROGRESS", "0")
    register_client(ClientSpec(model="embedded"), local_client)
    result = CliRunner().invoke(app, ["demo", "--cases", "2", "--max-turns", "2", "--doctor-max-tokens", "32",
                                      "--runs-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "diagnostic accuracy" in result.output and "report:" in result.output
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["finished"] == summary["planned"] == 2
    consult = summary["consult"]
    assert consult["n"] == 2 and 0.0 <= consult["diagnostic_accuracy"] <= 1.0
    assert sum(consult["termination_reasons"].values()) == 2
    assert len(consult["by_specialty"]) == 2  # the demo picks cases across specialties
    assert summary["axes"], "the case rubrics' machine checks produced per-axis scores"
    html = (run_dir / "report.html").read_text()
    assert "data:image/png;base64," in html and "Worst cases" in html
