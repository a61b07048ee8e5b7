"""Composition helpers: build graders, the medical backend and the verifier registry.

The CLI, the FastAPI app, the trainer and the evaluations call these instead of wiring
``verifier`` and ``rubric_gen`` together themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from rubric_gen.case_rubric import CaseRubricGenerator
from rubric_gen.llm_rubric import LLMRubricGenerator
from verifier.backends.medical import MedicalBackend
from verifier.graders import HybridGrader, JudgeCache, JudgeGrader
from verifier.llm import ChatClient
from verifier.protocols import Grader, RubricGenerator
from verifier.registry import Registry

logger = logging.getLogger(__name__)


def build_grader(
    judge: ChatClient | None = None,
    *,
    batched: bool = False,
    cache: JudgeCache | None = None,
    max_tokens: int = 256,
) -> Grader:
    """Hybrid grading: rule checks where an item has one, ``judge`` (when given) for the rest."""
    if judge is None:
        return HybridGrader(None)
    return HybridGrader(JudgeGrader(judge, batched=batched, cache=cache, max_tokens=max_tokens))


def build_rubric_generator(rubric_client: ChatClient | None = None) -> RubricGenerator:
    """Case-grounded by default; LLM-backed (with the case-grounded fallback) when a client is given."""
    case_generator = CaseRubricGenerator()
    if rubric_client is None:
        return case_generator
    return LLMRubricGenerator(rubric_client, fallback=case_generator)


def build_medical_backend(
    judge: ChatClient | None = None,
    *,
    rubric_client: ChatClient | None = None,
    batched: bool = False,
    cache: JudgeCache | None = None,
) -> MedicalBackend:
    return MedicalBackend(
        build_rubric_generator(rubric_client), build_grader(judge, batched=batched, cache=cache)
    )


def build_registry(
    judge: ChatClient | None = None, *, rubric_client: ChatClient | None = None, gui_allowed_urls: Sequence[str] = ()
) -> Registry:
    """A registry with the medical backend and every backend ``verifier.backends.default_backends()``
    provides (code, search, gui) when that function exists."""
    import verifier.backends as backends

    registry = Registry()
    registry.register(build_medical_backend(judge, rubric_client=rubric_client))
    if hasattr(backends, "default_backends"):
        for backend in backends.default_backends(gui_allowed_urls=gui_allowed_urls):
            if backend.domain == "medical":
                continue
            registry.register(backend, replace=True)
    return registry
