"""What an eval's modules pass each other: the run's config, its examples, their results, provenance.

Plain pydantic models with no behaviour beyond validation, at the bottom of ``evaluation``: the
results store, provenance, the summary, the executors, the runner and the evals all import them, and
they import none of those. A run's ``config.json`` is a ``RunConfig``; an executor hands each example to
the eval's ``Evaluate`` function (``healthbench_eval.evaluate_example``, ``consult_eval.evaluate_case``)
in whatever process runs it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from patient_sim.loop import SamplingConfig
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from verifier.types import Case, CriterionResult, Message, RubricItem

EvalKind = Literal["healthbench", "consult"]


# --------------------------------------------------------------------------- provenance
class TemplateIdentity(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str  # healthbench | medverifier | medverifier-batch
    version: str
    sha256: str
    system: str | None = None
    source: str


class ModelFingerprint(BaseModel):
    model_config = ConfigDict(frozen=True)

    model: str
    kind: Literal["local", "embedded", "remote", "plugin"]
    fingerprint: str
    detail: str = ""


class Provenance(BaseModel):
    """Everything besides the data and the settings in ``RunConfig`` that decides a run's numbers."""

    model_config = ConfigDict(frozen=True)

    judge_template: TemplateIdentity | None = None  # None: no judge (rule checks only)
    # True when the judge is sent HealthBench's own template one item at a time, as simple-evals does:
    # on HealthBench data (no rule checks) the score can be set beside published numbers, given the
    # same judge model. Items with a rule ``check`` (this project's files) are decided by the rule.
    healthbench_comparable: bool = False
    prompts: dict[str, str] = Field(default_factory=dict)  # prompt name -> version
    models: dict[str, ModelFingerprint] = Field(default_factory=dict)  # role -> fingerprint


# --------------------------------------------------------------------------- the run
class HealthBenchParams(BaseModel):
    data_path: str
    max_tokens: int = 256
    length_penalty: float = 0.05  # p in score - p * (chars - 2000) / 500


class ConsultParams(BaseModel):
    cases_path: str | None = None  # None: the project's own cases
    # "reviews": the consultations export of clinician reviews (each case graded with its clinician's rubric)
    cases_format: Literal["project", "agentclinic", "reviews"] = "project"
    case_ids: list[str] = Field(default_factory=list)  # empty: all cases
    personas_per_case: int = 1
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)  # the loop's, as training's defaults
    patient: ClientSpec = Field(default_factory=ClientSpec)

    @model_validator(mode="before")
    @classmethod
    def _old_fields(cls, data: object) -> object:
        """Runs recorded before the shared sampling config kept ``max_turns``/``doctor_max_tokens``."""
        if isinstance(data, dict) and ("max_turns" in data or "doctor_max_tokens" in data):
            data = dict(data)
            old = {"max_turns": data.pop("max_turns", 6), "turn_tokens": data.pop("doctor_max_tokens", 96)}
            data.setdefault("sampling", old)
        return data


class RunConfig(BaseModel):
    """Everything needed to rebuild (and resume) a run."""

    name: str
    kind: EvalKind
    policy: ClientSpec
    grader: GraderSpec
    seed: int = 0
    limit: int | None = None
    concurrency: int = 8
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None
    healthbench: HealthBenchParams | None = None
    consult: ConsultParams | None = None
    created: str = Field(default_factory=lambda: datetime.now().isoformat(timespec="seconds"))
    provenance: Provenance | None = None  # filled in when the run starts (evaluation/provenance.py)


# --------------------------------------------------------------------------- examples
class HealthBenchExample(BaseModel):
    kind: Literal["healthbench"] = "healthbench"
    example_id: str
    prompt: list[Message]
    rubrics: list[RubricItem]
    example_tags: list[str] = Field(default_factory=list)


class ConsultExample(BaseModel):
    kind: Literal["consult"] = "consult"
    example_id: str
    case: Case
    persona_seed: int = 0
    rubrics: list[RubricItem] | None = None  # None: the case-grounded rubric


Example = Annotated[HealthBenchExample | ConsultExample, Field(discriminator="kind")]
ExampleT = TypeVar("ExampleT", HealthBenchExample, ConsultExample)


# --------------------------------------------------------------------------- results
class ConsultOutcome(BaseModel):
    case_id: str
    specialty: str = "general"
    final_diagnosis: str = ""
    diagnosis: str | None = None
    correct: bool = False
    match: Literal["synonym", "judge", "none"] = "none"
    persona: str = ""
    turns: int = 0
    questions: int = 0
    tests_ordered: list[str] = Field(default_factory=list)
    leaks_caught: int = 0
    fallbacks: int = 0
    termination_reason: str = ""


class ExampleResult(BaseModel):
    """One finished example: what was said, every criterion's verdict, and the scores."""

    example_id: str
    kind: EvalKind
    score: float | None  # None when every criterion was unscored
    metrics: dict[str, float] = Field(default_factory=dict)  # "axis:accuracy", "theme:...", ...
    example_tags: list[str] = Field(default_factory=list)
    criteria: list[CriterionResult] = Field(default_factory=list)
    unscored: int = 0
    response_chars: int = 0
    length_adjusted: float | None = None
    transcript: list[Message] = Field(default_factory=list)
    consult: ConsultOutcome | None = None
    seconds: float = 0.0


# One example, start to finish, in whatever process runs it (the driver or a Ray actor): a module-level
# function, so that Ray sends it by reference and the actor imports its module.
Evaluate = Callable[[RunConfig, ExampleT], Awaitable[ExampleResult]]
