"""Consultation eval: diagnosis matching (synonyms, judge-assisted) and the main job end to end.

The demo test is the one test here that runs the embedded model for real (doctor and patient); it
shares the session's ``local_client`` so the model is not loaded twice. The demo's side-by-side
comparison (scripted reference, a clinician's own wording, exploits) is checked on real grading without
a model: those doctors talk to fixed patient replies.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluation.consult_eval import judge_match, synonym_match
from evaluation.demo import DEMO_EXPLOITS, DemoOptions, compare, natural_turns, pick_cases
from evaluation.store import load_config
from evaluation.summary import CaseGrade, Comparison, comparison_column, comparison_conclusion
from patient_sim.cases import project_cases
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
    result = CliRunner().invoke(app, ["demo", "--cases", "2", "--max-turns", "2", "--doctor-max-tokens", "16",
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
    # the same cases, side by side: the embedded doctor, the reference, a clinician, the exploits
    comparison = Comparison.model_validate_json((run_dir / "comparison.json").read_text())
    assert [c.role for c in comparison.columns] == ["model", "reference", "natural", *["exploit"] * len(DEMO_EXPLOITS)]
    config = load_config(run_dir)
    assert config.consult is not None and comparison.cases == config.consult.case_ids
    model = comparison.column("model")
    assert model is not None and model.graded == 2 and model.reward == pytest.approx(summary["score"])
    _check_story(comparison)
    assert "clinician" in result.output and "wrong dx" in result.output  # the side-by-side table
    assert "The reward tells good medicine" in result.output  # the one-line conclusion
    assert 'id="comparison"' in html and comparison.conclusion.replace("'", "&#39;") in html


def _check_story(comparison: Comparison) -> None:
    """The comparison tells the story on real grading: the reference above every exploit on every case,
    a clinician's own wording close to the reference, and a conclusion that quotes those figures."""
    reference, natural = comparison.column("reference"), comparison.column("natural")
    assert reference is not None and natural is not None
    assert reference.graded == natural.graded == len(comparison.cases)  # every column exists on every case
    assert reference.right == natural.right == len(comparison.cases)
    assert reference.reward is not None and reference.reward >= 0.9
    assert natural.reward is not None and natural.reward >= 0.85 * reference.reward
    exploits = comparison.exploits()
    assert {c.key for c in exploits} == {name for name, _label, _title in DEMO_EXPLOITS}
    for exploit in exploits:
        assert exploit.reward is not None and exploit.reward < 0.6 * reference.reward, exploit.key
        assert exploit.right == 0, exploit.key
        for case in comparison.cases:
            grade, ref = exploit.cases[case], reference.cases[case]
            assert grade is not None and ref is not None and grade.score < ref.score, (exploit.key, case)
    best = max(exploits, key=lambda c: c.reward or 0.0)
    assert comparison.conclusion.startswith("The reward tells good medicine from gaming it")
    for figure in (reference.reward, natural.reward, best.reward):
        assert f"{figure:.3f}" in comparison.conclusion
    assert best.title in comparison.conclusion and "below both on every case" in comparison.conclusion


def test_demo_comparison_on_real_grading() -> None:
    """The scripted and natural columns on the demo's cases (four, across specialties, each with a natural
    consultation), graded for real; the model column from no stored results: no model is run."""
    cases = project_cases()
    natural = natural_turns({c.id for c in cases})
    ids = pick_cases(cases, 4, prefer=natural)
    assert all(i in natural for i in ids) and len({c.specialty for c in cases if c.id in ids}) == 4
    by_id = {c.id: c for c in cases}
    comparison = asyncio.run(compare(DemoOptions(), [by_id[i] for i in ids], [], natural))
    assert comparison.cases == ids
    model = comparison.column("model")
    assert model is not None and model.graded == 0 and model.reward is None
    assert "the embedded 135M doctor n/a (0/4 diagnoses right)" in comparison.conclusion
    _check_story(comparison)


def test_pick_cases_prefers_the_given_cases() -> None:
    cases = [Case(id=f"{s}{i}", specialty=s, chief_complaint="x", history_of_present_illness="x", final_diagnosis="x")
             for s in ("a", "b") for i in range(3)]
    assert pick_cases(cases, 3) == ["a0", "b0", "a1"]
    assert pick_cases(cases, 3, prefer={"a2", "b1"}) == ["a2", "b1", "a0"]
    assert pick_cases(cases, 10, prefer={"b2"}) == ["b2", "a0", "b0", "a1", "b1", "a2"]


def test_comparison_conclusion_says_when_an_exploit_reaches_good_medicine() -> None:
    def column(key: str, role: str, *scores: float) -> object:
        return comparison_column(key, key, f"the {key}", role, "", {  # type: ignore[arg-type]
            f"c{i}": CaseGrade(score=s, axes={"axis:accuracy": s}, correct=s > 0.5) for i, s in enumerate(scores)})

    good = [column("model", "model", 0.1, 0.3), column("reference", "reference", 1.0, 0.9),
            column("clinician", "natural", 0.9, 0.9)]
    fine = comparison_conclusion([*good, column("stuffing", "exploit", 0.2, 0.4)])
    assert fine == ("The reward tells good medicine from gaming it: the reference and the clinician score 0.950 "
                    "and 0.900; the 1 exploit at most 0.300 (the stuffing), below both on every case; the model "
                    "0.200 (0/2 diagnoses right).")
    tie = comparison_conclusion([*good, column("stuffing", "exploit", 0.2, 0.9)])
    assert "below both on every case" not in tie and tie.startswith("The reward tells")  # mean below, a case ties
    gamed = comparison_conclusion([*good, column("stuffing", "exploit", 0.2, 0.4), column("padding", "exploit", 1.0, 1.0)])
    assert gamed.startswith("WARNING, the reward can be gamed here") and "the padding reaches 1.000" in gamed
