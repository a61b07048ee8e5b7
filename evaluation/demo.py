"""The main job (``make run`` → ``medverifier demo``): a small end-to-end consultation eval.

Prepares the embedded model, runs consultations on a handful of the project's cases (one per
specialty first, so the report's by-specialty chart has something to show; cases with a natural
consultation in ``data/natural/project.yaml`` first) with the embedded model as both doctor and
patient, generates each case's rubric, verifies the transcripts, and writes the run's summary and HTML
report. All consultations run concurrently so their turns share batched forward passes on the one
local model.

Then the story: the same cases graded for other doctors, side by side with the embedded one
(:class:`evaluation.summary.Comparison`, saved as ``comparison.json`` and shown in the report): the
scripted reference (``patient_sim.doctors.REFERENCE``), a clinician's own wording (the case's
``gp_lay`` natural consultation) and a few exploits that try to score without the skill. These talk to
fixed patient replies and are graded exactly as the exploit audit grades them (no model, milliseconds);
one line computed from the figures says what the comparison shows.

Grading is rule-only (``hybrid`` without a judge): the 135M model is far too weak to be a useful
judge, so items without a machine check are reported as *unscored*, never guessed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evaluation.consult_eval import ConsultEval, load_consult_cases
from evaluation.records import ConsultParams, ExampleResult
from evaluation.report import COMPARISON_FILE, write_report
from evaluation.store import ResultsStore, dump_json, new_run_name
from evaluation.summary import (
    CaseGrade,
    Comparison,
    ComparisonColumn,
    RunSummary,
    comparison_column,
    comparison_conclusion,
)
from patient_sim.loop import SamplingConfig
from policy.clients import ClientSpec
from policy.graders import GraderSpec
from verifier.types import Case, MedicalVerifyRequest, Message, VerifyResult

logger = logging.getLogger(__name__)

NATURAL_REGISTER = "gp_lay"  # the register of the clinician's column (a British GP in lay words)
# The exploits shown beside the good consultations: (name in patient_sim.doctors, header, title).
DEMO_EXPLOITS: tuple[tuple[str, str, str], ...] = (
    ("stuffed_vague_guess", "stuffing", "keyword stuffing"),
    ("shotgun_commas", "shotgun", "a shotgun of 40 diagnoses"),
    ("wrong_differential", "wrong dx", "the right process with the wrong diagnosis"),
)


class DemoOptions(BaseModel):
    cases: int = 4
    max_turns: int = 4
    doctor_max_tokens: int = 48
    seed: int = 0
    concurrency: int = 8
    model: str = "embedded"


def pick_cases(cases: list[Case], n: int, *, prefer: Collection[str] = ()) -> list[str]:
    """Up to ``n`` case ids, round-robin over specialties in file order (deterministic); the cases in
    ``prefer`` first, then the rest the same way."""
    picked: list[str] = []
    for group in ([c for c in cases if c.id in prefer], [c for c in cases if c.id not in prefer]):
        by_specialty: dict[str, list[Case]] = {}
        for case in group:
            by_specialty.setdefault(case.specialty, []).append(case)
        while len(picked) < n and any(by_specialty.values()):
            for queue in by_specialty.values():
                if queue and len(picked) < n:
                    picked.append(queue.pop(0).id)
    return picked


def natural_turns(case_ids: Collection[str], path: Path | None = None) -> dict[str, list[str]]:
    """The doctor's turns of each case's natural consultation in ``NATURAL_REGISTER`` (the project's
    ``data/natural/project.yaml`` by default); a missing file gives none (the column shows n/a)."""
    from evaluation.audit_recall import load_natural
    from verifier.data import data_dir

    path = path or data_dir() / "natural" / "project.yaml"
    if not path.is_file():
        logger.warning("%s not present: the demo has no natural consultations to show", path)
        return {}
    natural = load_natural(path, case_ids, skip_unknown_cases=True)
    return {entry.case: consultation.turns for entry in natural.entries
            for consultation in entry.consultations if consultation.register_ == NATURAL_REGISTER}


def build_demo(options: DemoOptions, *, runs_dir: str | Path | None = None, run_name: str | None = None
               ) -> ConsultEval:
    from patient_sim.cases import project_cases

    cases = project_cases()
    if not cases:
        raise ValueError("no project cases found in data/cases")
    model = ClientSpec(model=options.model)
    params = ConsultParams(
        case_ids=pick_cases(cases, options.cases, prefer=natural_turns({c.id for c in cases})),
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


# --------------------------------------------------------------------------- the comparison
def _stated(transcript: Sequence[Message]) -> str | None:
    """The last ``DIAGNOSIS:`` statement of the doctor's turns."""
    from verifier.markers import parse_diagnosis

    for message in reversed(transcript):
        if message.role == "assistant":
            for line in reversed(message.content.splitlines()):
                if (stated := parse_diagnosis(line)) is not None:
                    return stated
    return None


def _axes(scores: dict[str, float]) -> dict[str, float]:
    return {name: value for name, value in scores.items() if name.startswith("axis:")}


def graded_case(case: Case, transcript: list[Message], result: VerifyResult) -> CaseGrade:
    """A scripted or natural consultation's grade: the example score, its axes and the diagnosis as the
    consultation eval checks it (``final_diagnosis_match``, the rubric's matcher)."""
    from verifier.rule_grader import final_diagnosis_match

    score = result.scores.get("overall") if result.meta.get("scored") is not False else None
    return CaseGrade(score=score, axes=_axes(result.scores), diagnosis=_stated(transcript),
                     correct=final_diagnosis_match(transcript, case).matched)


def model_case(result: ExampleResult) -> CaseGrade:
    """The model's consultation as the run stored it."""
    outcome = result.consult
    return CaseGrade(score=result.score, axes=_axes(result.metrics),
                     diagnosis=outcome.diagnosis if outcome else None, correct=bool(outcome and outcome.correct))


def model_column(options: DemoOptions, case_ids: Sequence[str], results: Sequence[ExampleResult]) -> ComparisonColumn:
    from policy.model import EMBEDDED, EMBEDDED_NAME

    by_case = {r.consult.case_id: r for r in sorted(results, key=lambda r: r.example_id) if r.consult is not None}
    embedded = options.model == EMBEDDED
    return comparison_column(
        "model", "embedded" if embedded else "model",
        "the embedded 135M doctor" if embedded else f"the model under test ({options.model})", "model",
        (f"{EMBEDDED_NAME} as the doctor" if embedded else f"{options.model} as the doctor")
        + f", talking to the simulated patient (up to {options.max_turns} turns)",
        {case: (model_case(by_case[case]) if case in by_case else None) for case in case_ids})


async def scripted_columns(cases: Sequence[Case], natural: dict[str, list[str]]) -> list[ComparisonColumn]:
    """The scripted reference, the clinician's own wording and the demo's exploits on ``cases``: each
    dialogue with fixed patient replies, graded as the exploit audit grades it (no model)."""
    from evaluation.audit_medical import medical_suite
    from evaluation.audit_recall import natural_request
    from patient_sim import doctors

    names = [name for name, _label, _title in DEMO_EXPLOITS]
    chosen = {d.name: d for d in doctors.EXPLOITS if d.name in names}
    missing = [n for n in names if n not in chosen]
    if missing:
        raise LookupError(f"demo exploits not among patient_sim.doctors.EXPLOITS: {', '.join(missing)}")
    suite = medical_suite(list(cases), exploits=[chosen[n] for n in names], source="demo cases")

    async def grade(case: Case, request: MedicalVerifyRequest | None) -> CaseGrade | None:
        if request is None:
            return None
        return graded_case(case, request.trajectory, await suite.verify(request))

    async def column(build: Callable[[Case], Any]) -> dict[str, CaseGrade | None]:
        grades = await asyncio.gather(*(grade(case, build(case)) for case in cases))
        return {case.id: g for case, g in zip(cases, grades, strict=True)}

    columns = [comparison_column(
        "reference", "reference", "the scripted reference", "reference",
        doctors.REFERENCE.description + " (the case author's wording)", await column(suite.reference.build))]
    columns.append(comparison_column(
        "clinician", "clinician", "a clinician's own wording", "natural",
        "a natural consultation written by hand as a British GP talks (data/natural/project.yaml, "
        f"{NATURAL_REGISTER})",
        await column(lambda case: natural_request(case, natural[case.id]) if case.id in natural else None)))
    for policy, (name, label, title) in zip(suite.exploits, DEMO_EXPLOITS, strict=True):
        columns.append(comparison_column(name, label, title, "exploit", f"{name}: {chosen[name].description}",
                                         await column(policy.build)))
    return columns


async def compare(options: DemoOptions, cases: Sequence[Case], results: Sequence[ExampleResult],
                  natural: dict[str, list[str]] | None = None) -> Comparison:
    """The model's consultations beside the scripted and natural ones on the same cases."""
    natural = natural_turns({c.id for c in cases}) if natural is None else natural
    ids = [c.id for c in cases]
    columns = [model_column(options, ids, results), *await scripted_columns(cases, natural)]
    return Comparison(cases=ids, columns=columns, conclusion=comparison_conclusion(columns))


async def run_demo(options: DemoOptions | None = None, *, runs_dir: str | Path | None = None,
                   run_name: str | None = None, show_progress: bool | None = None
                   ) -> tuple[RunSummary, Path, Comparison]:
    """Run the demo; return its summary, the path of its HTML report and the side-by-side comparison."""
    options = options or DemoOptions()
    if options.model == "embedded":
        from policy.model import prepare_embedded

        prepare_embedded()
    evaluation = build_demo(options, runs_dir=runs_dir, run_name=run_name)
    summary = await evaluation.run(show_progress=show_progress)
    config = evaluation.config
    assert config.consult is not None
    with ResultsStore.for_run(evaluation.run_dir) as store:
        results = store.results(policy=config.policy.label, grader=config.grader.label, seed=config.seed)
    comparison = await compare(options, load_consult_cases(config.consult), results)
    dump_json(evaluation.run_dir / COMPARISON_FILE, comparison)
    return summary, write_report(evaluation.run_dir), comparison
