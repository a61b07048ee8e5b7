"""One generation request: its sampling settings, where its result goes, and what it has produced.

A request is made on the caller's event loop and then lives on the decoding thread; its result goes
back through ``settle`` (``call_soon_threadsafe`` onto the caller's loop), so any number of event
loops can share one engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from verifier.llm import Completion, Usage


@dataclass(frozen=True)
class Sampling:
    """A request's own sampling settings; a row's output does not depend on its batch-mates'."""

    max_tokens: int
    temperature: float
    stop: tuple[str, ...]
    seed: int

    def __post_init__(self) -> None:
        self.check(self.max_tokens, self.temperature)

    @staticmethod
    def check(max_tokens: int, temperature: float) -> None:
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")


@dataclass(eq=False)  # compared and hashed by identity: a request is one caller's
class Request:
    prompt_ids: list[int]
    sampling: Sampling
    future: asyncio.Future[Completion]
    loop: asyncio.AbstractEventLoop
    on_text: Callable[[str], None] | None = None  # streaming callback, called from the decoding thread
    generated: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    first_entropy: float | None = None  # the next-token entropy (nats) at the first generated position
    text: str = ""  # the decoded reply so far (cut at a stop string once one is found)
    emitted: int = 0  # characters of ``text`` already handed to ``on_text``
    finish_reason: str | None = None
    generator: torch.Generator | None = None  # seeded when the request is admitted

    @property
    def cancelled(self) -> bool:
        return self.future.cancelled()

    def completion(self) -> Completion:
        return Completion(
            text=self.text,
            tokens=self.generated,
            finish_reason=self.finish_reason or "length",
            logprobs=self.logprobs,
            first_entropy=self.first_entropy,
            usage=Usage(prompt_tokens=len(self.prompt_ids), completion_tokens=len(self.generated)),
        )

    def finish(self) -> None:
        """Hand the completion back to the caller."""
        completion = self.completion()
        self.settle(lambda f: f.set_result(completion))

    def fail(self, exc: BaseException) -> None:
        self.settle(lambda f: f.set_exception(exc))

    def settle(self, action: Callable[[asyncio.Future[Completion]], None]) -> None:
        def settle() -> None:
            if not self.future.done():
                action(self.future)

        try:
            self.loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the caller's event loop is closed: nobody is waiting any more
            pass
