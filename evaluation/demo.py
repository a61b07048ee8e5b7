"""The main job (``make run`` → ``medverifier demo``): a small end-to-end consultation eval.

Prepares the embedded model, runs consultations on a handful of the project's cases (one per
specialty first, so the report's by-specialty chart has something to show) with the embedded model as
both doctor and patient, generates each case's rubric, verifies the transcripts, and writes the run's
summary and HTML report. All consultations run concurrently so their turns share batched forward
passes on the one local model.

Grading is rule-only (``hybrid`` without a judge): the 135M model is far too weak to be a useful
judge, so items without a machine check are reported as *unscored*, never guessed.
"""

from __future__ import annotations

import logging
from pathlib import Path

from pydantic import BaseModel

from evaluation.consult_eval import ConsultEval
from evaluation.records import ConsultParams
from evaluation.store import new_run_name
from evaluation.summary import RunSummary
from patient_sim.loop import SamplingConfig
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from verifier.types import Case

logger = logging.getLogger(__name__)


class DemoOptions(BaseModel):
    cases: int = 4
    max_turns: int = 4
    doctor_max_tokens: int = 48
    seed: int = 0
    concurrency: int = 8
    model: str = "embedded"


def pick_cases(cases: list[Case], n: int) -> list[str]:
    """Up to ``n`` case ids, round-robin over specialties in file order (deterministic)."""
    by_specialty: dict[str, list[Case]] = {}
    for case in cases:
        by_specialty.setdefault(case.specialty, []).append(case)
    picked: list[str] = []
    while len(picked) < n and any(by_specialty.values()):
        for queue in by_specialty.values():
            if queue and len(picked) < n:
                picked.append(queue.pop(0).id)
    return picked


def build_demo(options: DemoOptions, *, runs_dir: str | Path | None = None, run_name: str | None = None
               ) -> ConsultEval:
    from patient_sim.cases import project_cases

    cases = project_cases()
    if not cases:
        raise ValueError("no project cases found in data/cases")
    model = ClientSpec(model=options.model)
    params = ConsultParams(
        case_ids=pick_cases(cases, options.cases),
        sampling=SamplingConfig(max_turns=options.max_turns, turn_tokens=options.doctor_max_tokens),
        patient=model,
    )
    return ConsultEval.create(
        policy=model,
        grader=GraderSpec(kind="hybrid", judge=None),
        params=params,
        seed=options.seed,
        concurrency=options.concurrency,
        run_name=run_name or new_run_name("demo"),
        runs_dir=runs_dir,
    )


async def run_demo(options: DemoOptions | None = None, *, runs_dir: str | Path | None = None,
                   run_name: str | None = None, show_progress: bool | None = None) -> tuple[RunSummary, Path]:
    """Run the demo; return its summary and the path of its HTML report."""
    options = options or DemoOptions()
    if options.model == "embedded":
        from policy.model import prepare_embedded

        prepare_embedded()
    evaluation = build_demo(options, runs_dir=runs_dir, run_name=run_name)
    summary = await evaluation.run(show_progress=show_progress)
    return summary, evaluation.run_dir / "report.html"
