"""One example, start to finish, in whatever process runs it (the driver or a Ray actor).

``run_example(config, example)`` is the only entry point the executors call. Clients and graders are
rebuilt from the config's specs and cached per process.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from evaluation.specs import GraderSpec, build_grader
from evaluation.store import ExampleResult, RunConfig
from verifier.protocols import Grader
from verifier.types import Case, Message, RubricItem

_graders: dict[str, Grader] = {}


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


Example = Annotated[HealthBenchExample | ConsultExample, Field(discriminator="kind")]


def grader_for(spec: GraderSpec) -> Grader:
    key = spec.model_dump_json()
    if key not in _graders:
        _graders[key] = build_grader(spec)
    return _graders[key]


async def run_example(config: RunConfig, example: HealthBenchExample | ConsultExample) -> ExampleResult:
    if isinstance(example, HealthBenchExample):
        from evaluation.healthbench_eval import evaluate_example

        return await evaluate_example(config, example)
    from evaluation.consult_eval import evaluate_case

    return await evaluate_case(config, example)
