"""One ``Protocol`` per extension point of the verifier.

The composition roots (the CLI, the FastAPI app, the trainer) build concrete objects and inject
them; ``verifier`` itself never imports ``rubric_gen`` or ``patient_sim``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from verifier.types import Case, CriterionResult, Message, Rubric, RubricItem, VerifyResult


@runtime_checkable
class Grader(Protocol):
    """Decides rubric items for a conversation whose last assistant turn(s) are being judged."""

    name: str

    async def grade(
        self, conversation: list[Message], items: list[RubricItem], *, case: Case | None = None
    ) -> list[CriterionResult]:
        """Return one result per item, in order. Undecidable items come back with ``met=None``."""
        ...


@runtime_checkable
class RubricGenerator(Protocol):
    name: str
    version: str

    async def generate(
        self, *, case: Case | None = None, conversation: list[Message] | None = None
    ) -> Rubric: ...


@runtime_checkable
class VerifierBackend(Protocol):
    """A domain backend: ``medical``, ``code``, ``search``, ``gui`` or one of your own."""

    domain: str

    async def verify(self, request: object) -> VerifyResult: ...
