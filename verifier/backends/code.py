"""The code verifier: run the policy's program against the task's tests in the sandbox.

Trajectory format (``assistant`` is the policy):

* single turn: the last ```python fenced block of the last assistant turn that has one is the answer;
* tool-integrated (``options.run_cells``): every ```python block of every assistant turn is a cell that
  was run during the rollout (its output came back as a ``tool`` turn); the program is all cells in
  order, earlier cells guarded so an exploratory cell that raised does not sink the answer, the last
  cell run as is.

A void turn (SimpleTIR) is an assistant turn with neither a code block nor a ``FINAL ANSWER:`` marker.

Each test runs in its own sandboxed process: assert-style tests run ``program + test`` and pass when
the process exits 0 *and* wrote the run's nonce to fd 3 after the test (so ``sys.exit(0)`` before the
asserts does not pass); stdin/stdout tests pass on exit 0 and equal output (trailing spaces and blank
lines ignored). Reward = pass fraction.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
from pathlib import Path

from pydantic import BaseModel, Field

from verifier.backends import DATA_DIR, load_records
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
        runs = await asyncio.gather(*(self._run_test(program, t, limits) for t in task.tests))
        criteria = []
        first_failure = ""
        for i, (test, (passed, result, why)) in enumerate(zip(task.tests, runs, strict=True)):
            criteria.append(CriterionResult(criterion=_test_name(test, i), points=1, met=passed,
                                            explanation=why, grader="sandbox"))
            if not passed and not first_failure:
                first_failure = trim(result.stderr, 1500) or why
        passed_n = sum(1 for c in criteria if c.met)
        fraction = passed_n / len(task.tests)
        meta.update(
            tests_passed=passed_n,
            stderr=first_failure,
            timed_out=sum(1 for _, r, _ in runs if r.timed_out),
            isolation=runs[0][1].isolation,
            code_chars=len(program),
        )
        return VerifyResult(domain="code", reward=fraction, scores={"pass_fraction": fraction},
                            criteria=criteria, meta=meta)

    async def _run_test(
        self, program: str, test: CodeTest, limits: SandboxLimits
    ) -> tuple[bool, SandboxResult, str]:
        if test.code is not None:
            nonce = secrets.token_hex(16)
            source = f"{program}\n\n{test.code}\n\nimport os as _mv_os\n_mv_os.write(3, {nonce.encode()!r})\n"
            result = await self.sandbox.run(source, stdin=test.stdin or "", limits=limits)
            if result.timed_out:
                return False, result, f"timed out after {limits.timeout_s:g} s"
            if result.exit_code != 0:
                last = result.stderr.strip().splitlines()[-1:] or [f"exit code {result.exit_code}"]
                return False, result, trim(last[0], 300)
            if result.report != nonce:
                return False, result, "the program exited before the test finished"
            return True, result, "passed"
        if test.expected_stdout is None:
            raise ValueError(f"code test {test.name!r}: needs either code or expected_stdout")
        result = await self.sandbox.run(program, stdin=test.stdin or "", limits=limits)
        if result.timed_out:
            return False, result, f"timed out after {limits.timeout_s:g} s"
        if result.exit_code != 0:
            return False, result, f"exit code {result.exit_code}"
        got, want = _normalise_output(result.stdout), _normalise_output(test.expected_stdout)
        if got != want:
            return False, result, trim(f"expected {want!r}, got {got!r}", 300)
        return True, result, "passed"


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
