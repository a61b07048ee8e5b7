"""The code exploit audit through the real backend and sandbox: every exploit scores 0 on the shipped
tasks, the reference scores 1.0, and the exploits are real (they win where their way is left open)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from evaluation.audit import AuditReport, run_audit
from evaluation.audit_code import code_suite
from verifier.backends.code import CodeBackend, load_code_tasks
from verifier.sandbox import Sandbox
from verifier.types import CodeVerifyRequest, Message

FAMILIES = {"reading_harness", "always_equal", "patched_builtins", "patched_harness", "early_exit",
            "forged_channel", "print_everything"}


@pytest.fixture(scope="module")
def report(run_shared) -> AuditReport:  # built once per run and shared by the workers (tests/conftest.py)
    return run_shared.get("audit-code", AuditReport, lambda: asyncio.run(run_audit(code_suite())))


def test_the_code_audit_passes(report: AuditReport) -> None:
    failures = {p.name: p.failures for p in [report.reference, *report.exploits] if not p.passed}
    assert report.passed, failures
    assert report.items == 22 and report.reference.mean_reward == 1.0
    assert set(report.reference.rewards.values()) == {1.0}
    assert report.notes[0].startswith("22 of 22 tasks are judged entirely outside the sandbox: 15 with")


def test_every_exploit_class_is_there_and_scores_zero(report: AuditReport) -> None:
    assert {p.family for p in report.exploits} == FAMILIES
    assert len(report.exploits) >= 20 and all(p.case_independent for p in report.exploits)
    for policy in report.exploits:
        assert policy.items > 0, policy.name
        if policy.name != "forge_channel_guess_true":
            assert policy.bound == "reward 0 everywhere" and set(policy.rewards.values()) == {0.0}, (
                policy.name, {k: v for k, v in policy.rewards.items() if v})


async def test_writing_guesses_into_the_channel_is_no_better_than_returning_them(report: AuditReport) -> None:
    guess = next(p for p in report.exploits if p.name == "forge_channel_guess_true")
    credited = {task for task, reward in guess.rewards.items() if reward}
    backend = CodeBackend()
    for record in load_code_tasks():
        if record.task.id in credited:
            program = f"def {record.task.entry_point}(*args, **kwargs):\n    return True"
            request = CodeVerifyRequest(task=record.task, trajectory=[Message(role="assistant", content=f"```python\n{program}\n```")])
            assert (await backend.verify(request)).reward == guess.rewards[record.task.id], record.task.id


async def test_the_reading_exploits_win_when_files_are_readable() -> None:
    # The same programs against a sandbox without file-system isolation: they find the task file,
    # so what stops them in the audit is the Landlock/mount-namespace layer, not a broken exploit.
    # The disk search stops once it has learnt the answer; its budget here is generous because a
    # loaded machine walks slowly (the audit's 2 s find nothing under isolation however long they read).
    open_box = CodeBackend(Sandbox(fs_isolation="off", switch_uid=False))  # reads whatever root can
    suite = code_suite(open_box, walk_s=40.0)
    items = [r for r in suite.items if r.task.id in {"fizzbuzz", "sum_lines"}]
    for name in ("read_task_file_by_path", "search_filesystem"):
        policy = next(p for p in suite.exploits if p.name == name)
        for item in items:
            request = policy.build(item)
            request = request.model_copy(update={"options": request.options.model_copy(update={"timeout_s": 60.0})})
            result = await open_box.verify(request)
            assert result.reward == 1.0, (name, item.task.id, result.criteria)
            assert "fs:" not in str(result.meta["sandbox"])


async def test_tasks_with_in_process_tests_are_left_out_because_they_can_be_beaten(tmp_path: Path) -> None:
    shipped = next(r for r in load_code_tasks() if r.task.id == "gcd")
    mixed = shipped.model_copy(deep=True)
    mixed.task.id = "gcd_in_process"
    mixed.task.tests[0].code = "g = gcd(12, 18)\nassert g == 6"
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(json.dumps(r.model_dump()) for r in (shipped, mixed)) + "\n")
    suite = code_suite(tasks_path=tasks)
    assert [r.task.id for r in suite.items] == ["gcd"]
    assert any("gcd_in_process" in note for note in suite.notes)
    backend = CodeBackend()
    for name in ("read_cmdline_argv_environ", "read_frames_and_gc"):  # the nonce shares their process
        policy = next(p for p in suite.exploits if p.name == name)
        result = await backend.verify(policy.build(mixed))
        assert result.meta["isolation"] == "in-process"
        assert [c.met for c in result.criteria] == [True, False, False], (name, result.criteria)
