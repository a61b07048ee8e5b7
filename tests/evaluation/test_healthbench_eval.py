"""The HealthBench eval end to end on a tiny file with scripted judge verdicts, against hand-computed numbers.

Per example (verdicts are written into each criterion; "garbage" is an unparseable reply → unscored):
  a: +5 met, +3 unmet, -2 met            overall (5-2)/8 = 0.375   accuracy 5/5 = 1   completeness 0/3 = 0
  b: +4 met, +4 unscored, +2 met         overall (4+2)/6 = 1.0     accuracy 1         completeness 2/2 = 1
  c: +6 unmet, +2 met, -3 met            overall (2-3)/8 = -0.125  accuracy -3/6=-0.5 completeness 1
Aggregates (clipped means): overall 1.25/3, accuracy 1.5/3 = 0.5, completeness 2/3,
theme:emergency_referrals (a, c) 0.25/2 = 0.125, theme:hedging (b) 1.0; communication_quality has no
positive points anywhere, so it is never scored.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evaluation.healthbench_eval import HealthBenchEval
from policy import clients
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from serving.cli import app
from tests.evaluation.fakes import ScriptedPolicy
from verifier.healthbench import NotGradable
from verifier.scoring import bootstrap_std, clipped_mean, length_adjusted

DATA = Path(__file__).parent / "data" / "tiny_healthbench.jsonl"
POLICY = ClientSpec(model="py:tests.evaluation.fakes:policy")
JUDGE = GraderSpec(kind="hybrid", judge=ClientSpec(model="py:tests.evaluation.fakes:judge"))


async def test_scores_match_hand_computed_numbers(tmp_path: Path, isolated_home: Path) -> None:
    evaluation = HealthBenchEval.create(DATA, policy=POLICY, grader=JUDGE, runs_dir=tmp_path, run_name="hb",
                                        length_penalty=0.1)
    summary = await evaluation.run(show_progress=False)

    assert summary.finished == summary.planned == 3
    assert summary.score == pytest.approx(1.25 / 3)
    assert summary.n_scored == 3
    assert summary.unscored_items == 1
    assert summary.bootstrap_std == pytest.approx(bootstrap_std([0.375, 1.0, -0.125], seed=0))
    assert set(summary.axes) == {"axis:accuracy", "axis:completeness"}
    assert summary.axes["axis:accuracy"].mean == pytest.approx(0.5)
    assert summary.axes["axis:completeness"].mean == pytest.approx(2 / 3)
    assert summary.axes["axis:completeness"].n_samples == 3
    assert summary.themes["theme:emergency_referrals"].mean == pytest.approx(0.125)
    assert summary.themes["theme:emergency_referrals"].n_samples == 2
    assert summary.themes["theme:hedging"].mean == pytest.approx(1.0)

    from evaluation.store import ResultsStore

    with ResultsStore.for_run(evaluation.run_dir) as store:
        results = {r.example_id: r for r in store.results()}
    by_id = {"a": 0.375, "b": 1.0, "c": -0.125}
    assert {k: r.score for k, r in results.items()} == pytest.approx(by_id)
    unscored = [c for c in results["b"].criteria if c.met is None]
    assert [c.criterion for c in unscored] == ["Mentions stomach side effects (verdict: garbage)"]
    expected_adjusted = clipped_mean([length_adjusted(by_id[k], results[k].response_chars, 0.1) for k in "abc"])
    assert summary.length_adjusted == pytest.approx(expected_adjusted)
    assert (evaluation.run_dir / "summary.json").is_file()
    assert (evaluation.run_dir / "report.html").is_file()


async def test_limit_is_a_seeded_sample(tmp_path: Path, isolated_home: Path) -> None:
    first = HealthBenchEval.create(DATA, policy=POLICY, grader=JUDGE, limit=2, seed=3, runs_dir=tmp_path)
    again = HealthBenchEval.create(DATA, policy=POLICY, grader=JUDGE, limit=2, seed=3, runs_dir=tmp_path)
    ids = [e.example_id for e in first.examples()]
    assert len(ids) == 2 and ids == [e.example_id for e in again.examples()]


async def test_explicit_rule_grading_leaves_unchecked_items_unscored(tmp_path: Path, isolated_home: Path) -> None:
    evaluation = HealthBenchEval.create(DATA, policy=POLICY, grader=GraderSpec(kind="rule"),
                                        runs_dir=tmp_path, run_name="rule")
    summary = await evaluation.run(show_progress=False)
    assert summary.score is None and summary.n_scored == 0
    assert summary.unscored_items == 9
    assert summary.provenance is not None and summary.provenance.judge_template is None


async def test_no_checks_and_no_judge_stops_before_any_policy_call(tmp_path: Path, isolated_home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    policy = ScriptedPolicy()
    monkeypatch.setitem(clients._clients, POLICY.cache_key(), policy)
    evaluation = HealthBenchEval.create(DATA, policy=POLICY, grader=GraderSpec(kind="hybrid"),
                                        runs_dir=tmp_path, run_name="nothing-to-grade")
    with pytest.raises(NotGradable, match=r"--judge MODEL.*--judge-base-url.*--grading rule"):
        await evaluation.run(show_progress=False)
    assert policy.calls == 0
    assert not (tmp_path / "nothing-to-grade" / "results.sqlite").exists()


def test_cli_no_checks_and_no_judge_exits_2_before_sampling(tmp_path: Path, isolated_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "calls.log"
    monkeypatch.setenv("SCRIPTED_CALL_LOG", str(log))
    result = CliRunner().invoke(app, ["eval", "healthbench", str(DATA), "--model", POLICY.model,
                                      "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 2, result.output
    for option in ("--judge MODEL", "--judge-base-url", "--grading rule"):
        assert option in result.output
    assert not log.exists()  # the policy was never called
    responses = tmp_path / "responses.jsonl"
    responses.write_text("".join(json.dumps({"prompt_id": i, "response": "see a doctor"}) + "\n" for i in "abc"))
    graded = CliRunner().invoke(app, ["grade", "--data", str(DATA), "--responses", str(responses)])
    assert graded.exit_code == 2 and "--grading rule" in graded.output and "Traceback" not in graded.output
    explicit = CliRunner().invoke(app, ["grade", "--data", str(DATA), "--responses", str(responses),
                                        "--grading", "rule"])
    assert explicit.exit_code == 0, explicit.output
    assert json.loads(explicit.output[explicit.output.index("{"):])["unscored_items"] == 9
