"""The one grader builder, and the rest of the verifier's wiring: rubric generators, the medical
backend, the backend registry.

A grading kind means the same everywhere (``verifier.graders.grader_for``): ``rule`` — the rule checks
only, items without one unscored; ``judge`` — the LLM judge on every item, checks ignored (a judge is
required); ``hybrid`` — the rule where an item has a check, the judge (when there is one) for the rest.
``make_grader`` assembles a grader from a judge client; ``build_grader`` does it from a picklable
``GraderSpec`` (building the judge's client with ``policy.clients.build_client``), cached per process.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from policy.clients import ClientSpec, build_client
from rubric_gen.case_rubric import CaseRubricGenerator
from rubric_gen.llm_rubric import LLMRubricGenerator
from verifier.backends.medical import MedicalBackend
from verifier.grader_prompts import MEDVERIFIER_BATCH, GraderPrompt, GraderPromptName, grader_prompt
from verifier.graders import HybridGrader, JudgeCache, JudgeGrader, RuleGrader, grader_for
from verifier.judge_cache import default_cache_path
from verifier.llm import ChatClient
from verifier.protocols import Grader, RubricGenerator
from verifier.registry import Registry, default_backends

logger = logging.getLogger(__name__)

GradingKind = Literal["rule", "judge", "hybrid"]
GRADING_KINDS: tuple[GradingKind, ...] = ("rule", "judge", "hybrid")

_graders: dict[str, Grader] = {}


class GraderSpec(BaseModel):
    """``rule``: checks only; ``judge``: an LLM judge for every item; ``hybrid``: checks, then the judge.

    ``prompt`` names the judge's single-item prompt (verifier/grader_prompts.py): ``healthbench`` or
    ``medverifier``; None is the project's (``medverifier``) unless the eval fills in its own default
    (``HealthBenchEval`` fills in ``healthbench``). Batched grading always uses ``medverifier-batch``.
    """

    model_config = ConfigDict(frozen=True)

    kind: GradingKind = "hybrid"
    judge: ClientSpec | None = None
    batched: bool = False
    judge_cache: bool = True  # reuse parsed judge replies from $MEDVERIFIER_HOME/judge_cache.sqlite
    prompt: GraderPromptName | None = None
    max_tokens: int = Field(256, ge=1, description="The judge's reply tokens per call.")

    @property
    def label(self) -> str:
        if self.judge is None:
            return "rule" if self.kind != "judge" else "judge:none"
        if self.batched:
            return f"{self.kind}:{self.judge.label}:batched"
        # No suffix for None: the labels (results-store keys) of runs made before prompts were named.
        return f"{self.kind}:{self.judge.label}" + (f":{self.prompt}" if self.prompt else "")

    @property
    def uses_judge(self) -> bool:
        return self.judge is not None and self.kind != "rule"

    def judge_prompt(self) -> GraderPrompt | None:
        """The prompt the judge is sent (None without a judge); loads and verifies HealthBench's."""
        if not self.uses_judge:
            return None
        return MEDVERIFIER_BATCH if self.batched else grader_prompt(self.prompt or "medverifier")


def make_grader(
    judge: ChatClient | None = None,
    kind: GradingKind = "hybrid",
    *,
    batched: bool = False,
    prompt: GraderPromptName | None = None,
    cache: JudgeCache | None = None,
    max_tokens: int = 256,
) -> Grader:
    """The grader for ``kind`` with ``judge`` (None: no judge) behind a ``JudgeGrader``."""
    if kind not in GRADING_KINDS:
        raise ValueError(f"grading must be one of {', '.join(GRADING_KINDS)}, got {kind!r}")
    if kind == "judge" and judge is None:
        raise ValueError("grading 'judge' needs a judge model")
    judge_grader = None
    if judge is not None and kind != "rule":
        judge_grader = JudgeGrader(judge, prompt=prompt or "medverifier", batched=batched, cache=cache,
                                   max_tokens=max_tokens)
    return grader_for(HybridGrader(judge_grader), kind)


def build_grader(spec: GraderSpec) -> Grader:
    """The grader ``spec`` describes, built once per process and judge-cache file (its judge's client is
    shared as well; ``$MEDVERIFIER_HOME`` decides the cache file when the grader is built)."""
    key = spec.model_dump_json() + (spec.judge.cache_key() if spec.judge is not None else "")
    if spec.judge_cache and spec.judge is not None:
        key += f"|{default_cache_path()}"
    if key not in _graders:
        judge = build_client(spec.judge) if spec.uses_judge and spec.judge is not None else None
        if spec.kind == "judge" and judge is None:
            raise ValueError("grader 'judge' needs a judge model (--judge)")
        _graders[key] = make_grader(
            judge, spec.kind, batched=spec.batched, prompt=spec.prompt,
            cache=JudgeCache() if spec.judge_cache and judge is not None else None, max_tokens=spec.max_tokens,
        )
    return _graders[key]


def judge_of(grader: Grader) -> Grader | None:
    """What judges the items without a check in ``grader`` (what ``grader_for(grader, "judge")`` uses):
    a hybrid's judge, or the grader itself unless it is the rule grader; None when there is none."""
    judge = grader.judge if isinstance(grader, HybridGrader) else grader
    return None if judge is None or isinstance(judge, RuleGrader) else judge


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
    """Hybrid grading (each request's ``grading`` option narrows it) with ``judge`` when given."""
    return MedicalBackend(
        build_rubric_generator(rubric_client), make_grader(judge, "hybrid", batched=batched, cache=cache)
    )


def build_registry(
    judge: ChatClient | None = None, *, rubric_client: ChatClient | None = None, gui_allowed_urls: Sequence[str] = ()
) -> Registry:
    """A registry with the medical backend and ``verifier.registry.default_backends()`` (code, search, gui)."""
    registry = Registry()
    registry.register(build_medical_backend(judge, rubric_client=rubric_client))
    for backend in default_backends(gui_allowed_urls=gui_allowed_urls):
        registry.register(backend)
    return registry
