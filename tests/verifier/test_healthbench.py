"""HealthBench-format loading (errors name file, line and field) and the project's rubric tasks."""

from __future__ import annotations

import json

import pytest

from verifier.healthbench import DataFileError, load_healthbench, load_responses
from verifier.rule_grader import RuleGrader
from verifier.types import Message

RECORD = {
    "prompt": [{"role": "user", "content": "hi"}],
    "prompt_id": "p1",
    "rubrics": [{"criterion": "Greets back", "points": 2.0, "tags": ["axis:communication_quality"]}],
    "example_tags": ["theme:communication"],
    "ideal_completions_data": None,
}


def write(tmp_path, *records) -> str:
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return str(path)


def test_loads_healthbench_records_unchanged(tmp_path) -> None:
    [record] = load_healthbench(write(tmp_path, RECORD))
    assert record.rubrics[0].points == 2 and record.rubrics[0].check is None
    assert record.to_task().prompt_id == "p1"


@pytest.mark.parametrize(
    ("bad", "line", "field"),
    [
        ("{not json", 2, ""),
        ({**RECORD, "prompt_id": "p2", "rubrics": [{"criterion": "x", "points": "many", "tags": []}]}, 2, "rubrics.0.points"),
        ({**RECORD, "prompt_id": "p2", "prompt": [{"role": "doctor", "content": "x"}]}, 2, "prompt.0.role"),
        ({**RECORD, "prompt_id": "p2", "rubrics": [{"criterion": "x", "points": 1, "check": {"kind": "nope"}}]}, 2, "rubrics.0.check"),
        (RECORD, 2, "prompt_id"),  # duplicate id
    ],
)
def test_errors_name_file_line_and_field(tmp_path, bad, line: int, field: str) -> None:
    path = write(tmp_path, RECORD, bad)
    with pytest.raises(DataFileError) as info:
        load_healthbench(path)
    assert info.value.line == line and info.value.field.startswith(field)
    assert str(info.value).startswith(f"{path}:{line}")


def test_responses_accept_completion_alias(tmp_path) -> None:
    path = write(tmp_path, {"prompt_id": "p1", "completion": "hello"})
    assert load_responses(path)[0].response == "hello"
    with pytest.raises(DataFileError, match="field 'response'"):
        load_responses(write(tmp_path, {"prompt_id": "p1"}))


def test_project_rubric_tasks(repo_root) -> None:
    records = load_healthbench(repo_root / "data" / "rubric_tasks" / "medverifier_rubric_tasks.jsonl")
    assert len(records) >= 30
    themes = {t for r in records for t in r.example_tags if t.startswith("theme:")}
    assert {"theme:emergency_referrals", "theme:hedging", "theme:context_seeking", "theme:communication",
            "theme:global_health"} <= themes
    grader = RuleGrader()
    for record in records:
        assert any(i.points > 0 for i in record.rubrics) and any(i.points < 0 for i in record.rubrics)
        ideal = record.ideal_completions_data.ideal_completion
        convo = [*record.prompt, Message(role="assistant", content=ideal)]
        results = grader.grade_sync(convo, record.rubrics)
        # The written ideal answer passes every rule-checked positive item and no rule-checked harm.
        for result, rubric_item in zip(results, record.rubrics, strict=True):
            if rubric_item.check is not None:
                assert result.met is (rubric_item.points > 0), (record.prompt_id, rubric_item.criterion, result.explanation)
