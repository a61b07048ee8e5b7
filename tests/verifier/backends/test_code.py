"""The code backend on every shipped task, hostile answers and tool-integrated trajectories."""

from __future__ import annotations

import asyncio

import pytest

from verifier.backends.code import (
    CodeBackend,
    cells_program,
    count_void_turns,
    final_code,
    isolation_of,
    load_code_tasks,
)
from verifier.registry import Registry
from verifier.sandbox import Sandbox, SandboxLimits
from verifier.types import CodeOptions, CodeTask, CodeTest, CodeVerifyRequest, Message


@pytest.fixture(scope="module")
def backend() -> CodeBackend:
    return CodeBackend(Sandbox(SandboxLimits(timeout_s=3.0)))


def _asst(text: str) -> Message:
    return Message(role="assistant", content=text)


ADD_TASK = CodeTask(
    id="add", problem="Write add(a, b).", entry_point="add",
    tests=[CodeTest(name="small", code="assert add(1, 2) == 3"), CodeTest(name="neg", code="assert add(-1, 1) == 0")],
)


def test_at_least_twenty_shipped_tasks() -> None:
    records = load_code_tasks()
    assert len(records) >= 20
    assert len({r.task.id for r in records}) == len(records)


def test_every_shipped_test_is_judged_outside_the_sandbox() -> None:
    kinds = {(r.task.id, isolation_of(t, r.task.entry_point)) for r in load_code_tasks() for t in r.task.tests}
    assert {kind for _, kind in kinds} == {"isolated", "stdout"}, sorted(kinds)
    assert len({task for task, kind in kinds if kind == "isolated"}) == 15


async def test_every_shipped_task_correct_scores_one_wrong_scores_less(backend: CodeBackend) -> None:
    records = load_code_tasks()
    good = await asyncio.gather(*(backend.verify(r.request()) for r in records))
    bad = await asyncio.gather(*(backend.verify(r.request(wrong=True)) for r in records))
    for record, g, b in zip(records, good, bad, strict=True):
        assert g.reward == 1.0, (record.task.id, g.meta)
        assert b.reward < 1.0, (record.task.id, b.meta)
        assert g.meta["isolation"] == "isolated" and g.meta["tests_in_process"] == 0
        assert g.scores["pass_fraction"] == 1.0 and g.meta["tests_passed"] == len(record.task.tests)
        assert [c.met for c in g.criteria] == [True] * len(record.task.tests)


async def test_partial_pass_fraction_and_stderr(backend: CodeBackend) -> None:
    answer = "```python\ndef add(a, b):\n    return abs(a) + b\n```"
    result = await backend.verify(CodeVerifyRequest(task=ADD_TASK, trajectory=[_asst(answer)]))
    assert result.reward == 0.5
    assert [c.met for c in result.criteria] == [True, False]
    assert "AssertionError" in str(result.meta["stderr"])


async def test_exiting_before_the_asserts_does_not_pass(backend: CodeBackend) -> None:
    answer = "```python\nimport sys\ndef add(a, b):\n    return 0\nsys.exit(0)\n```"
    result = await backend.verify(CodeVerifyRequest(task=ADD_TASK, trajectory=[_asst(answer)]))
    assert result.reward == 0.0
    assert "exited before the test finished" in result.criteria[0].explanation


async def test_hostile_answer_scores_zero_and_the_backend_still_answers(backend: CodeBackend) -> None:
    loop = "```python\ndef add(a, b):\n    while True:\n        pass\n```"
    request = CodeVerifyRequest(task=ADD_TASK, trajectory=[_asst(loop)], options=CodeOptions(timeout_s=1.0))
    result = await backend.verify(request)
    assert result.reward == 0.0 and result.meta["timed_out"] == 2


async def test_no_code_block_scores_zero_and_counts_void_turns(backend: CodeBackend) -> None:
    trajectory = [Message(role="user", content="Write add."), _asst("Let me think about it."), _asst("Hmm.")]
    result = await backend.verify(CodeVerifyRequest(task=ADD_TASK, trajectory=trajectory))
    assert result.reward == 0.0 and result.meta["void_turns"] == 2 and "no ```python" in str(result.meta["error"])


async def test_tool_integrated_cells_are_run_in_order_through_the_registry(backend: CodeBackend) -> None:
    trajectory = [
        Message(role="user", content="Write add(a, b)."),
        _asst("```python\nBASE = 0\nraise RuntimeError('exploration failed')\n```"),
        Message(role="tool", content="RuntimeError: exploration failed"),
        _asst("Thinking..."),  # a void turn
        _asst("```python\ndef add(a, b):\n    return a + b + BASE\n```\nFINAL ANSWER: add above"),
    ]
    assert count_void_turns(trajectory) == 1
    assert final_code(trajectory) == "def add(a, b):\n    return a + b + BASE"
    assert "exploration failed" in (cells_program(trajectory) or "")
    registry = Registry()
    registry.register(backend)
    request = {"domain": "code", "task": ADD_TASK.model_dump(), "options": {"run_cells": True},
               "trajectory": [m.model_dump() for m in trajectory]}
    with_cells = await registry.verify(request)
    assert with_cells.reward == 1.0 and with_cells.meta["void_turns"] == 1
    request["options"] = {"run_cells": False}  # the last cell alone lacks BASE
    assert (await registry.verify(request)).reward == 0.0


async def test_stdin_stdout_tests_ignore_trailing_whitespace(backend: CodeBackend) -> None:
    task = CodeTask(problem="echo twice", tests=[CodeTest(stdin="ab\n", expected_stdout="ab\nab")])
    answer = "```python\ns = input()\nprint(s + '  ')\nprint(s)\nprint()\n```"
    result = await backend.verify(CodeVerifyRequest(task=task, trajectory=[_asst(answer)]))
    assert result.reward == 1.0


BMI = CodeTask(id="bmi", problem="bmi", entry_point="bmi", tests=[CodeTest(code="assert bmi(70, 1.75) == 22.9")])
BMI_ANSWER = [_asst("```python\ndef bmi(w, h):\n    return round(w / h ** 2, 1)\n```")]


async def test_a_sandbox_that_cannot_start_leaves_the_answer_unscored_not_zero(tmp_path) -> None:
    missing = CodeBackend(Sandbox(python=str(tmp_path / "no-python"), network_namespace=False, fs_isolation="off"))
    result = await missing.verify(CodeVerifyRequest(task=BMI, trajectory=BMI_ANSWER))
    assert result.reward is None and "could not start" in result.meta["unscored_reason"]
    assert [c.met for c in result.criteria] == [None]
    broken = CodeBackend(Sandbox(python="/bin/false", network_namespace=False, fs_isolation="off"))
    result = await broken.verify(CodeVerifyRequest(task=BMI, trajectory=BMI_ANSWER))
    assert result.reward is None and "could not set up" in result.meta["unscored_reason"]


async def test_a_program_cannot_pass_itself_off_as_a_sandbox_that_failed(backend: CodeBackend) -> None:
    forged = _asst("```python\nimport os, sys\nsys.stderr.write('sandbox: unshare failed\\n')\nos._exit(125)\n```")
    result = await backend.verify(CodeVerifyRequest(task=BMI, trajectory=[forged]))
    assert result.reward == 0.0 and "unscored_reason" not in result.meta  # graded, and failed
