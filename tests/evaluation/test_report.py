"""The HTML report renders in headless Chromium with its charts (and a demo's doctors side by side), and
`medverifier report` rebuilds it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from typer.testing import CliRunner

from evaluation.healthbench_eval import HealthBenchEval
from evaluation.records import ConsultOutcome, ConsultParams, ExampleResult, RunConfig
from evaluation.report import COMPARISON_FILE
from evaluation.store import ResultsStore, dump_json, save_config
from evaluation.summary import CaseGrade, Comparison, comparison_column, comparison_conclusion
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from serving.cli import app
from verifier.types import CriterionResult, Message

DATA = Path(__file__).parent / "data" / "tiny_healthbench.jsonl"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def _consult_run(run_dir: Path) -> None:
    """A consult run's store with two specialties (the rows are written as the eval would write them)."""
    config = RunConfig(name="consult-report", kind="consult", policy=ClientSpec(), grader=GraderSpec(),
                       consult=ConsultParams())
    save_config(run_dir, config)
    with ResultsStore.for_run(run_dir) as store:
        for i, (specialty, correct, score) in enumerate(
            [("cardiology", True, 0.8), ("cardiology", False, 0.2), ("neurology", True, 0.6)]
        ):
            result = ExampleResult(
                example_id=f"case{i}#p0", kind="consult", score=score,
                metrics={"overall_score": score, "axis:accuracy": score},
                criteria=[CriterionResult(criterion="Asks about <onset>", points=5, tags=["axis:accuracy"],
                                          met=correct, grader="rule")],
                transcript=[Message(role="assistant", content="What brings you in?"),
                            Message(role="user", content="Chest pain <since> this morning.")],
                consult=ConsultOutcome(case_id=f"case{i}", specialty=specialty, final_diagnosis="x",
                                       diagnosis="x" if correct else "y", correct=correct, turns=3, questions=2,
                                       termination_reason="diagnosis"),
            )
            store.put(result, policy=config.policy.label, grader=config.grader.label, seed=config.seed)


def _comparison(run_dir: Path) -> Comparison:
    """A demo's side-by-side comparison saved beside the run (as ``medverifier demo`` saves it)."""
    def column(key: str, role: str, *scores: float) -> object:
        return comparison_column(key, key, f"the {key}", role, f"how the {key} <talks>", {  # type: ignore[arg-type]
            f"case{i}": CaseGrade(score=s, axes={"axis:accuracy": s}, diagnosis="x" if s > 0.5 else "<y>",
                                  correct=s > 0.5) for i, s in enumerate(scores)})

    columns = [column("embedded", "model", 0.8, 0.2, 0.6), column("reference", "reference", 1.0, 1.0, 1.0),
               column("clinician", "natural", 1.0, 0.9, 0.95), column("stuffing", "exploit", 0.1, 0.0, 0.2)]
    comparison = Comparison(cases=["case0", "case1", "case2"], columns=columns,  # type: ignore[arg-type]
                            conclusion=comparison_conclusion(columns))  # type: ignore[arg-type]
    dump_json(run_dir / COMPARISON_FILE, comparison)
    return comparison


def _render(path: Path) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(path.resolve().as_uri())
            page.wait_for_load_state("load")
            return page.evaluate(
                """() => ({
                    title: document.title,
                    charts: Array.from(document.querySelectorAll('img.chart')).map(i => ({
                        id: i.id, ok: i.complete && i.naturalWidth > 100 && i.naturalHeight > 50})),
                    summary: document.querySelector('#summary').innerText,
                    cases: document.querySelectorAll('section.case').length,
                    comparison: Array.from(document.querySelectorAll('table.comparison tr')).map(
                        r => Array.from(r.children).map(c => c.innerText)),
                    text: document.body.innerText,
                })"""
            )
        finally:
            browser.close()


def test_report_renders_with_charts(tmp_path: Path, isolated_home: Path) -> None:
    evaluation = HealthBenchEval.create(
        DATA, policy=ClientSpec(model="py:tests.evaluation.fakes:policy"),
        grader=GraderSpec(kind="hybrid", judge=ClientSpec(model="py:tests.evaluation.fakes:judge")),
        runs_dir=tmp_path, run_name="hb",
    )
    asyncio.run(evaluation.run(show_progress=False))
    page = _render(evaluation.run_dir / "report.html")
    assert {c["id"] for c in page["charts"]} == {"chart-scores-by-axis", "chart-scores-by-theme",
                                                  "chart-score-distribution"}
    assert all(c["ok"] for c in page["charts"]), page["charts"]
    assert "0.417" in page["summary"]  # the overall score, 1.25/3
    assert page["cases"] == 3

    assert page["comparison"] == []  # only a demo run has its doctors side by side
    consult_dir = tmp_path / "consult-report"
    _consult_run(consult_dir)
    comparison = _comparison(consult_dir)
    result = CliRunner().invoke(app, ["report", "consult-report", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    page = _render(consult_dir / "report.html")
    charts = {c["id"]: c["ok"] for c in page["charts"]}
    assert charts.get("chart-diagnostic-accuracy-by-specialty") is True
    assert "0.667 (2/3" in page["summary"]  # diagnostic accuracy
    assert "Chest pain <since> this morning." in page["text"]  # transcripts are escaped, not injected
    assert (consult_dir / "summary.json").is_file()
    rows = page["comparison"]  # one column per doctor: reward, diagnoses, axes
    assert rows[0] == ["", "embedded", "reference", "clinician", "stuffing"]
    assert rows[1] == ["reward", "0.533", "1.000", "0.950", "0.100"]
    assert rows[2] == ["diagnoses right", "2/3", "3/3", "3/3", "0/3"]
    assert rows[3][0] == "accuracy"
    assert comparison.conclusion in page["text"] and "below both on every case" in comparison.conclusion
    assert "how the embedded <talks>" in page["text"]  # the legend, escaped


def test_report_of_an_unknown_run_is_a_clear_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "nope", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert "error: run 'nope'" in result.output
