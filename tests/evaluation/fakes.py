"""Scripted ``ChatClient``s for orchestration tests (resume, executors, the score arithmetic).

They are loaded through the eval's plug-in hook ``--model py:tests.evaluation.fakes:policy`` so that a
subprocess or a Ray actor can rebuild them from a spec, exactly as it rebuilds a real model.

* ``policy`` answers deterministically from the last user message; ``SCRIPTED_DELAY_S`` slows it down
  and ``SCRIPTED_CALL_LOG`` appends one line per call (how a test sees which examples were sampled).
* ``judge`` reads the verdict written into the rubric item itself — ``(verdict: met)``,
  ``(verdict: unmet)`` or ``(verdict: garbage)`` (an unparseable reply, so the item ends unscored).
"""

from __future__ import annotations

import asyncio
import os
import re

from verifier.llm import Completion, Usage
from verifier.types import Message

_VERDICT_RE = re.compile(r"\(verdict: (met|unmet|garbage)\)")


class ScriptedPolicy:
    model = "scripted-policy"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
                       stop: list[str] | None = None, seed: int | None = None) -> Completion:
        self.calls += 1
        last = next(m.content for m in reversed(messages) if m.role == "user")
        if log := os.environ.get("SCRIPTED_CALL_LOG"):
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"{os.getpid()}\t{last}\n")
        if delay := float(os.environ.get("SCRIPTED_DELAY_S", "0")):
            await asyncio.sleep(delay)
        text = f"About '{last[:40]}': please see a clinician if it gets worse."
        return Completion(text=text, usage=Usage(prompt_tokens=len(last), completion_tokens=len(text.split())))


class ScriptedJudge:
    model = "scripted-judge"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, messages: list[Message], *, max_tokens: int = 256, temperature: float = 0.0,
                       stop: list[str] | None = None, seed: int | None = None) -> Completion:
        self.calls += 1
        prompt = messages[-1].content
        item = prompt.split("# Rubric item", 1)[-1]
        match = _VERDICT_RE.search(item)
        verdict = match.group(1) if match else "garbage"
        if verdict == "garbage":
            return Completion(text="I am not sure what you mean.")
        met = "true" if verdict == "met" else "false"
        return Completion(text=f'{{"explanation": "scripted {verdict}", "criteria_met": {met}}}')


def policy() -> ScriptedPolicy:
    return ScriptedPolicy()


def judge() -> ScriptedJudge:
    return ScriptedJudge()
