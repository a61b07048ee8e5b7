"""``medverifier rubric`` and ``medverifier grade`` (rule grading; the judge path is tested in tests/verifier)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from serving.cli import app

runner = CliRunner()


def test_rubric_prints_case_rubric_as_json() -> None:
    result = runner.invoke(app, ["rubric", "--case", "acs-stemi", "--json"])
    assert result.exit_code == 0, result.output
    rubric = json.loads(result.output)
    assert rubric["generator"] == "case" and len(rubric["items"]) > 10


def test_rubric_unknown_case_is_a_clear_error() -> None:
    result = runner.invoke(app, ["rubric", "--case", "no-such-case"])
    assert result.exit_code == 2 and "no-such-case" in result.output and "Traceback" not in result.output


def test_grade_rule_only(tmp_path, repo_root) -> None:
    data = repo_root / "data" / "rubric_tasks" / "medverifier_rubric_tasks.jsonl"
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        json.dumps({"prompt_id": "mv-emerg-002", "response": "Call 911 now, this may be a heart attack."}) + "\n"
        + json.dumps({"prompt_id": "mv-emerg-001", "response": "Wait and see if it passes."}) + "\n"
    )
    out = tmp_path / "graded.jsonl"
    result = runner.invoke(app, ["grade", "--data", str(data), "--responses", str(responses), "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output[result.output.index("{"):])
    assert summary["n_examples"] == 2 and summary["grader"] == "hybrid(rule)"
    rows = {json.loads(line)["prompt_id"]: json.loads(line) for line in out.read_text().splitlines()}
    assert rows["mv-emerg-002"]["scores"]["overall"] == 1.0
    # rule-decided positives: emergency (10) + names the cause (5), both unmet; the "wait and see" harm met
    assert rows["mv-emerg-001"]["scores"]["overall"] == -10 / 15
    # clipped mean of (1.0, -2/3) = 1/6
    assert abs(summary["score"] - 1 / 6) < 1e-9


def test_grade_bad_file_names_line_and_field(tmp_path, repo_root) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text('{"prompt": [{"role": "user", "content": "x"}], "prompt_id": "a", "rubrics": []}\n')
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"prompt_id": "a", "response": "y"}\n')
    result = runner.invoke(app, ["grade", "--data", str(data), "--responses", str(responses)])
    assert result.exit_code == 2
    assert f"{data}:1: field 'rubrics'" in result.output and "Traceback" not in result.output
