"""The code verifier: run the policy's program against the task's tests in the sandbox.

Trajectory format (``assistant`` is the policy):

* single turn: the last ```python fenced block of the last assistant turn that has one is the answer;
* tool-integrated (``options.run_cells``): every ```python block of every assistant turn is a cell that
  was run during the rollout (its output came back as a ``tool`` turn); the program is all cells in
  order, earlier cells guarded so an exploratory cell that raised does not sink the answer, the last
  cell run as is.

A void turn (SimpleTIR) is an assistant turn with neither a code block nor a ``FINAL ANSWER:`` marker.

Each test runs in its own sandboxed process; wherever the test's form allows, that process never decides
whether it passed:

* an assert test in the isolated form (:mod:`verifier.code_isolation`: entry-point calls with literal
  arguments, comparisons, ``not``/``and``/``or``, literals, a few pure builtins) sends only the calls
  into the sandbox; a trusted harness runs them after the program and reports each result as strict
  plain data on fd 3; the assert is evaluated here. Expected values never enter the sandbox;
* any other assert test runs ``program`` then ``test`` in one process and passes on exit 0 with the
  run's nonce written after the test — a program can defeat that (it shares the process with the
  test), so such tests are marked: tag ``isolation:in-process`` and ``meta["isolation"] = "in-process"``;
* stdin/stdout tests pass on exit 0 and equal output (trailing spaces and blank lines ignored),
  compared here.

Reward = pass fraction. ``meta["isolation"]`` is ``"isolated"`` when every verdict was reached outside
the sandbox, else ``"in-process"`` (with ``meta["tests_in_process"]``); ``meta["sandbox"]`` lists the
sandbox's own layers (``fs:landlock-...`` when programs cannot read the project, the task files or
other runs).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from verifier.backends import DATA_DIR, load_records
from verifier.code_channel import ChannelError, calls_harness, decode_channel, in_process_harness
from verifier.code_isolation import NotIsolated, evaluate, parse_isolated
from verifier.sandbox import Sandbox, SandboxLimits, SandboxResult, trim
from verifier.types import (
    CodeOptions,
    CodeTask,
    CodeTest,
    CodeVerifyRequest,
    CriterionResult,
    Message,
    VerifyResult,
)

logger = logging.getLogger(__name__)

_BLOCK_RE = re.compile(r"```(?:python|py|python3)[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_FINAL_RE = re.compile(r"FINAL ANSWER\s*:", re.IGNORECASE)


def code_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of one message, in order."""
    return [block.strip("\n") for block in _BLOCK_RE.findall(text)]


def final_code(trajectory: list[Message]) -> str | None:
    """The last python block of the last assistant turn that has one."""
    for message in reversed(trajectory):
        if message.role == "assistant":
            blocks = code_blocks(message.content)
            if blocks:
                return blocks[-1]
    return None


def cells_program(trajectory: list[Message]) -> str | None:
    """All assistant code cells as one program: earlier cells guarded, the last one run as is."""
    cells = [b for m in trajectory if m.role == "assistant" for b in code_blocks(m.content)]
    if not cells:
        return None
    lines = []
    for i, cell in enumerate(cells[:-1]):
        lines.append(
            f"try:\n    exec(compile({cell!r}, 'cell{i}', 'exec'), globals())\n"
            "except BaseException as _e:\n    pass\n"
        )
    lines.append(cells[-1])
    return "\n".join(lines)


def count_void_turns(trajectory: list[Message]) -> int:
    return sum(
        1
        for m in trajectory
        if m.role == "assistant" and not code_blocks(m.content) and not _FINAL_RE.search(m.content)
    )


def _normalise_output(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _test_name(test: CodeTest, index: int) -> str:
    return test.name or f"test_{index}"


def isolation_of(test: CodeTest, entry_point: str | None) -> str:
    """How a test is judged: "isolated" (calls inside, assert here), "stdout" or "in-process"."""
    if test.code is None:
        return "stdout"
    try:
        parse_isolated(test.code, entry_point)
    except NotIsolated:
        return "in-process"
    return "isolated"


@dataclass
class _TestRun:
    passed: bool
    result: SandboxResult
    why: str
    isolation: str  # "isolated", "stdout" or "in-process"


def _failure(result: SandboxResult, limits: SandboxLimits) -> str | None:
    if result.timed_out:
        return f"timed out after {limits.timeout_s:g} s"
    if result.exit_code != 0:
        last = result.stderr.strip().splitlines()[-1:] or [f"exit code {result.exit_code}"]
        return trim(last[0], 300)
    return None


def _unscored(task: CodeTask, meta: dict, reason: str) -> VerifyResult:
    """Nothing is known about the program: reward None (never 0.0), the reason in ``meta``."""
    logger.warning("code task %s could not be graded: %s", task.id or "?", reason)
    meta.update(unscored_reason=reason, tests_passed=None)
    criteria = [CriterionResult(criterion=_test_name(t, i), points=1, met=None, grader="sandbox",
                                explanation=reason) for i, t in enumerate(task.tests)]
    return VerifyResult(domain="code", reward=None, criteria=criteria, unscored=len(criteria), meta=meta)


class CodeBackend:
    domain = "code"

    def __init__(self, sandbox: Sandbox | None = None) -> None:
        self.sandbox = sandbox or Sandbox()

    async def verify(self, request: object) -> VerifyResult:
        if not isinstance(request, CodeVerifyRequest):
            raise TypeError(f"code backend got {type(request).__name__}, expected CodeVerifyRequest")
        task, options = request.task, request.options
        void = count_void_turns(request.trajectory)
        program = cells_program(request.trajectory) if options.run_cells else final_code(request.trajectory)
        meta: dict[str, str | int | float | bool | None] = {
            "task_id": task.id, "void_turns": void, "tests_total": len(task.tests),
        }
        if program is None:
            meta.update(tests_passed=0, error="no ```python code block in the trajectory")
            criteria = [
                CriterionResult(criterion=_test_name(t, i), points=1, met=False, grader="sandbox",
                                explanation="no code")
                for i, t in enumerate(task.tests)
            ]
            return VerifyResult(domain="code", reward=0.0, scores={"pass_fraction": 0.0},
                                criteria=criteria, meta=meta)
        limits = self.sandbox.limits.model_copy(
            update={"timeout_s": options.timeout_s, "memory_mb": options.memory_mb}
        )
        try:
            runs = await asyncio.gather(*(self._run_test(program, t, task.entry_point, limits) for t in task.tests))
        except OSError as exc:  # the interpreter or the sandbox's files could not be started
            return _unscored(task, meta, f"the sandbox could not start: {exc}")
        broken = next((r for r in runs if r.result.setup_failed), None)
        if broken is not None:
            last = (broken.result.stderr.strip().splitlines() or [f"exit code {broken.result.exit_code}"])[-1]
            return _unscored(task, meta, f"the sandbox could not set up its isolation: {trim(last, 300)}")
        criteria = []
        first_failure = ""
        for i, (test, run) in enumerate(zip(task.tests, runs, strict=True)):
            criteria.append(CriterionResult(criterion=_test_name(test, i), points=1, met=run.passed,
                                            tags=[f"isolation:{run.isolation}"], explanation=run.why,
                                            grader="sandbox"))
            if not run.passed and not first_failure:
                first_failure = trim(run.result.stderr, 1500) or run.why
        passed_n = sum(1 for c in criteria if c.met)
        fraction = passed_n / len(task.tests)
        in_process = sum(1 for r in runs if r.isolation == "in-process")
        meta.update(
            tests_passed=passed_n,
            stderr=first_failure,
            timed_out=sum(1 for r in runs if r.result.timed_out),
            isolation="in-process" if in_process else "isolated",
            tests_in_process=in_process,
            sandbox=runs[0].result.isolation,
            code_chars=len(program),
        )
        return VerifyResult(domain="code", reward=fraction, scores={"pass_fraction": fraction},
                            criteria=criteria, meta=meta)

    async def _run_test(
        self, program: str, test: CodeTest, entry_point: str | None, limits: SandboxLimits
    ) -> _TestRun:
        if test.code is not None:
            try:
                isolated = parse_isolated(test.code, entry_point)
            except NotIsolated as exc:
                return await self._run_in_process(program, test, limits, str(exc))
            harness = calls_harness(entry_point or "", isolated.payload())
            result = await self.sandbox.run(program, stdin=test.stdin or "", limits=limits, harness=harness)
            failure = _failure(result, limits)
            if failure:
                return _TestRun(False, result, failure, "isolated")
            try:
                outcomes = decode_channel(result.report, len(isolated.calls), truncated=result.report_truncated)
            except ChannelError as exc:
                return _TestRun(False, result, trim(f"result channel rejected: {exc}", 300), "isolated")
            passed, why = evaluate(isolated, outcomes)
            return _TestRun(passed, result, trim(why, 300), "isolated")
        if test.expected_stdout is None:
            raise ValueError(f"code test {test.name!r}: needs either code or expected_stdout")
        result = await self.sandbox.run(program, stdin=test.stdin or "", limits=limits)
        failure = _failure(result, limits)
        if failure:
            return _TestRun(False, result, failure if result.timed_out else f"exit code {result.exit_code}", "stdout")
        got, want = _normalise_output(result.stdout), _normalise_output(test.expected_stdout)
        if got != want:
            return _TestRun(False, result, trim(f"expected {want!r}, got {got!r}", 300), "stdout")
        return _TestRun(True, result, "passed", "stdout")

    async def _run_in_process(self, program: str, test: CodeTest, limits: SandboxLimits, reason: str) -> _TestRun:
        # Program and test share one process, so the program could fake the nonce: marked as such.
        nonce = secrets.token_hex(16)
        harness = in_process_harness(test.code or "", nonce)
        result = await self.sandbox.run(program, stdin=test.stdin or "", limits=limits, harness=harness)
        failure = _failure(result, limits)
        if failure is None and result.report != nonce:
            failure = "the program exited before the test finished"
        note = f" (in-process: {trim(reason, 120)})"
        return _TestRun(failure is None, result, (failure or "passed") + note, "in-process")


class CodeTaskRecord(BaseModel):
    """One line of ``data/code/tasks.jsonl``: a task with a known correct and a known wrong answer."""

    task: CodeTask
    trajectory: list[Message] = Field(min_length=1)
    wrong_trajectory: list[Message] = Field(min_length=1)
    options: CodeOptions = Field(default_factory=CodeOptions)

    def request(self, *, wrong: bool = False) -> CodeVerifyRequest:
        return CodeVerifyRequest(task=self.task, options=self.options,
                                 trajectory=self.wrong_trajectory if wrong else self.trajectory)


def load_code_tasks(path: str | Path | None = None) -> list[CodeTaskRecord]:
    return load_records(path or DATA_DIR / "code" / "tasks.jsonl", CodeTaskRecord)
