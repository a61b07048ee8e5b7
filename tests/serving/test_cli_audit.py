"""``medverifier audit``: the table/JSON report, its exit status, bad input, and the report beside a run."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from serving.cli import app
from tests.evaluation.test_report import _consult_run

runner = CliRunner()


def test_medical_audit_of_a_case_file_as_json(repo_root: Path) -> None:
    result = runner.invoke(app, ["audit", "--domain", "medical", "--cases",
                                 str(repo_root / "data" / "cases" / "neurology.yaml"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["passed"] and report["items"] == 7 and report["source"].endswith("neurology.yaml")
    assert report["reference"]["mean_reward"] >= 0.8
    names = {p["name"] for p in report["exploits"]}
    assert {"stuffed_turn", "shotgun_or", "wrong_differential", "injection_stuffed"} <= names
    assert all(p["ratio"] is not None for p in report["exploits"] if p["applicable"])


def test_a_breached_bound_exits_1_and_says_where(tmp_path: Path) -> None:
    # A thin case: one symptom, no key questions, tests or differential. Its rubric cannot tell a generic
    # doctor who happens to guess "Migraine" from a good one, and the audit says so.
    thin = {"id": "thin-migraine", "chief_complaint": "Headache", "history_of_present_illness": "A headache.",
            "final_diagnosis": "Migraine"}
    path = tmp_path / "thin.yaml"
    path.write_text(yaml.safe_dump([thin]))
    result = runner.invoke(app, ["audit", "--cases", str(path)])
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "stuffed_fixed" in result.output


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    cases = [
        (["audit", "--domain", "chess"], "--domain must be one of"),
        (["audit", "--agentclinic"], "--agentclinic needs --cases"),
        (["audit", "--cases", str(tmp_path / "missing.yaml")], "missing.yaml"),
        (["audit", "--domain", "code", "--cases", "x.yaml"], "apply to --domain medical only"),
        (["audit", "--domain", "search", "--tasks", str(tmp_path / "none.jsonl")], "none.jsonl: no such file"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, (args, result.output)


def test_the_audit_is_saved_beside_a_run_and_shown_in_its_report(tmp_path: Path, repo_root: Path) -> None:
    _consult_run(tmp_path / "consult-report")
    result = runner.invoke(app, ["audit", "--cases", str(repo_root / "data" / "cases" / "neurology.yaml"),
                                 "--run", "consult-report", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    run_dir = tmp_path / "consult-report"
    saved = json.loads((run_dir / "audit-medical.json").read_text())
    assert saved["domain"] == "medical" and saved["passed"]
    html = (run_dir / "report.html").read_text()
    assert 'id="audit-medical"' in html and "stuffed_turn" in html and "passed" in html


NATURAL = Path(__file__).parents[1] / "evaluation" / "data" / "natural_consultations.yaml"


def _two_cases(tmp_path: Path) -> Path:
    from patient_sim.cases import project_cases

    chosen = [c.model_dump(mode="json") for c in project_cases() if c.id in {"acute-appendicitis", "acute-gout"}]
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(chosen))
    return path


def test_the_medical_audit_shows_recall_beside_precision(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", "--cases", str(_two_cases(tmp_path)), "--natural", str(NATURAL)])
    assert result.exit_code == 0, result.output
    assert "exploit audit: medical" in result.output and "recall audit: medical project" in result.output
    assert "quality ladder ordered" in result.output and "gp_lay" in result.output and "heldout" in result.output


def test_the_recall_report_is_in_the_json(tmp_path: Path) -> None:
    out = tmp_path / "audit.json"
    result = runner.invoke(app, ["audit", "--cases", str(_two_cases(tmp_path)), "--natural", str(NATURAL), "--json",
                                 "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["passed"] and report["items"] == 2 and {p["name"] for p in report["exploits"]} >= {"stuffed_turn"}
    recall = report["recall"]
    assert (recall["cases"], recall["consultations"], recall["case_set"]) == (2, 6, "project")
    assert {(f["split"], f["register"]) for f in recall["figures"]} >= {("tune", "us_abbrev"), ("heldout", "all")}
    assert [len(ladder["rungs"]) for ladder in recall["ladders"]] == [5, 5]
    assert json.loads(out.read_text()) == report


def test_recall_needs_a_valid_natural_file_for_the_audited_cases(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump([{"case": "acute-gout", "heldout": True,
                                    "consultations": [{"register": "pirate", "turns": ["Arr?"]}]}]))
    neurology = str(Path(__file__).parents[2] / "data" / "cases" / "neurology.yaml")
    cases = [
        (["audit", "--natural", str(bad)], "bad.yaml: entry 1 (case 'acute-gout')"),
        (["audit", "--natural", str(tmp_path / "none.yaml")], "none.yaml: no such file"),
        (["audit", "--cases", neurology, "--natural", str(NATURAL)], "unknown case id 'acute-appendicitis'"),
        (["audit", "--domain", "code", "--natural", str(NATURAL)], "apply to --domain medical only"),
    ]
    for args, message in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, (args, result.output)


def test_without_natural_consultations_for_the_cases_the_audit_says_so(tmp_path: Path) -> None:
    thin = {"id": "thin-case", "chief_complaint": "Cough", "history_of_present_illness": "A cough.",
            "final_diagnosis": "Viral bronchitis", "key_questions": ["How long have you had the cough"]}
    path = tmp_path / "thin.yaml"
    path.write_text(yaml.safe_dump([thin]))
    result = runner.invoke(app, ["audit", "--cases", str(path)])
    assert "recall: not measured" in result.output and "recall audit" not in result.output, result.output
