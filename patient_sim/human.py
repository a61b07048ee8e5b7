"""A human doctor behind the ``ChatClient`` protocol: each completion is a line typed at the terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from verifier.llm import Completion
from verifier.types import Message


class TerminalDoctor:
    """Reads the doctor's turns from ``read`` (``input`` by default); EOF raises ``EOFError``.

    A line ending with a backslash continues on the next line, so a clinician can write
    ``DIAGNOSIS: ...`` followed by a multi-line plan.
    """

    model = "human"

    def __init__(self, read: Callable[[str], str] = input, prompt: str = "doctor> ") -> None:
        self._read = read
        self.prompt = prompt

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        lines: list[str] = []
        prompt = self.prompt
        while True:
            line = await asyncio.to_thread(self._read, prompt)
            if line.endswith("\\"):
                lines.append(line[:-1])
                prompt = "... "
                continue
            lines.append(line)
            break
        return Completion(text="\n".join(lines).strip())
