"""``medverifier eval healthbench|consult``, ``medverifier report RUN`` and ``medverifier demo``.

Bad input (a missing or malformed data file, an unknown run, an unknown case id) prints one
``error:`` line naming the file, line and field where known, and exits with code 2.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from serving.cli_common import fail
from serving.cli_model import DEVICE_HELP, DTYPE_HELP, placement

if TYPE_CHECKING:
    from evaluation.consult_eval import ConsultEval
    from evaluation.healthbench_eval import HealthBenchEval
    from policy.graders import GraderSpec

eval_app = typer.Typer(help="Offline evaluations (HealthBench-style rubrics, AgentClinic-style consultations).",
                       no_args_is_help=True)

_POLICY_HELP = "`embedded`, a checkpoint folder, a served model name (with --base-url) or py:module:factory."



def _model_ref(model: str, base_url: str | None) -> str:
    """A local checkpoint folder as an absolute path (e.g. ``runs/rule/final``, a training run's output), so
    the run's stored config and weights fingerprint still find it when resumed from another directory;
    ``embedded``, a served model's name and a ``py:`` factory unchanged."""
    if base_url or model == "embedded" or model.startswith("py:"):
        return model
    path = Path(model).expanduser()
    return str(path.resolve()) if path.is_dir() else model


def _bad_input_errors() -> tuple[type[BaseException], ...]:
    from pydantic import ValidationError

    from policy.model import ModelNotAvailableError

    return (ValueError, FileNotFoundError, LookupError, ValidationError, ModelNotAvailableError, OSError)


def _grader(grading: str, judge: str | None, judge_base_url: str | None, batched: bool, cache: bool,
            local: dict[str, str | None]) -> GraderSpec:
    from policy.clients import ClientSpec
    from policy.graders import GRADING_KINDS, GraderSpec

    if grading not in GRADING_KINDS:
        raise fail(f"--grading must be rule, judge or hybrid, got {grading!r}")
    if grading == "judge" and not judge:
        raise fail("--grading judge needs --judge MODEL")
    spec = ClientSpec(model=_model_ref(judge, judge_base_url), base_url=judge_base_url, **local) if judge else None
    return GraderSpec(kind=grading, judge=spec, batched=batched, judge_cache=cache)  # type: ignore[arg-type]


def _finish(evaluation: HealthBenchEval | ConsultEval) -> None:
    from rich.console import Console

    from evaluation.report import summary_table

    try:
        summary = asyncio.run(evaluation.run())
    except _bad_input_errors() as exc:
        raise fail(str(exc)) from exc
    console = Console()
    console.print(summary_table(summary))
    console.print(f"run:     {evaluation.config.name}  (resume with --resume {evaluation.config.name})")
    console.print(f"summary: {evaluation.run_dir / 'summary.json'}")
    console.print(f"report:  {evaluation.run_dir / 'report.html'}")
    if summary.finished < summary.planned:
        console.print(f"[yellow]{summary.planned - summary.finished} examples did not finish; "
                      f"rerun with --resume {evaluation.config.name}[/yellow]")


def _resume(run: str, runs_dir: str | None, kind: str) -> HealthBenchEval | ConsultEval:
    from evaluation.store import load_config, resolve_run_dir

    try:
        run_dir = resolve_run_dir(run, runs_dir)
        config = load_config(run_dir)
    except (FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from exc
    if config.kind != kind:
        raise fail(f"run {run!r} is a {config.kind} run; resume it with `medverifier eval {config.kind}`")
    if kind == "healthbench":
        from evaluation.healthbench_eval import HealthBenchEval

        return HealthBenchEval(config, run_dir)
    from evaluation.consult_eval import ConsultEval

    return ConsultEval(config, run_dir)


@eval_app.command("healthbench")
def healthbench(
    data: Path | None = typer.Argument(None, help="HealthBench-format JSONL (not needed with --resume)."),
    model: str = typer.Option("embedded", help=_POLICY_HELP),
    base_url: str | None = typer.Option(None, help="OpenAI-compatible server of the policy."),
    judge: str | None = typer.Option(None, help="Judge model (without one only items with rule checks are "
                                     "graded; a file with none is refused unless --grading rule)."),
    judge_base_url: str | None = typer.Option(None, help="OpenAI-compatible server of the judge."),
    grading: str = typer.Option("hybrid", help="rule, judge or hybrid."),
    grader_prompt: str = typer.Option(
        "healthbench", help="The judge's template: healthbench (HealthBench's own, from the healthbench extra; "
        "comparable numbers) or medverifier (the project's hardened prompt; not comparable)."),
    batched: bool = typer.Option(False, help="Grade many rubric items per judge call (the project's batch "
                                 "prompt: not comparable with published HealthBench numbers)."),
    judge_cache: bool = typer.Option(True, help="Reuse cached judge replies ($MEDVERIFIER_HOME/judge_cache.sqlite)."),
    device: str | None = typer.Option(None, envvar="MEDVERIFIER_DEVICE", help=DEVICE_HELP),
    dtype: str | None = typer.Option(None, envvar="MEDVERIFIER_DTYPE", help=DTYPE_HELP),
    limit: int | None = typer.Option(None, min=1, help="Evaluate a seeded sample of this many examples."),
    concurrency: int = typer.Option(8, min=1),
    seed: int = typer.Option(0),
    max_tokens: int = typer.Option(256, min=1, help="Response length limit for the policy."),
    length_penalty: float = typer.Option(0.05, help="p in the length-adjusted score."),
    executor: str = typer.Option("local", help="local (asyncio) or ray."),
    ray_address: str | None = typer.Option(None, help="An existing Ray cluster (default: a local one)."),
    runs_dir: str | None = typer.Option(None, help="Where runs live (default $MEDVERIFIER_HOME/runs)."),
    run_name: str | None = typer.Option(None, help="Name of a new run."),
    resume: str | None = typer.Option(
        None, help="Continue the run RUN (a name or a folder); its stored settings are used, not these options."),
) -> None:
    """Sample responses to HealthBench-format prompts and grade them against their rubrics."""
    from evaluation.healthbench_eval import HealthBenchEval
    from policy.clients import ClientSpec
    from verifier.grader_prompts import GRADER_PROMPT_NAMES
    from verifier.healthbench_template import GraderTemplateUnavailable

    if resume:
        _finish(_resume(resume, runs_dir, "healthbench"))
        return
    if data is None:
        raise fail("give a HealthBench JSONL file (or --resume RUN)")
    if not data.is_file():
        raise fail(f"{data}: no such file")
    if executor not in ("local", "ray"):
        raise fail(f"--executor must be local or ray, got {executor!r}")
    if grader_prompt not in GRADER_PROMPT_NAMES:
        raise fail(f"--grader-prompt must be one of {', '.join(GRADER_PROMPT_NAMES)}, got {grader_prompt!r}")
    if judge_base_url and not judge:
        raise fail("--judge-base-url needs --judge MODEL (the name the server serves)")
    local = placement(device, dtype)
    grader = _grader(grading, judge, judge_base_url, batched, judge_cache, local).model_copy(
        update={"prompt": grader_prompt})
    if judge and batched and grader_prompt == "healthbench":
        typer.echo("note: --batched grades with the project's batch prompt (HealthBench has none): the scores "
                   "are not comparable with published HealthBench numbers", err=True)
    evaluation = HealthBenchEval.create(
        data, policy=ClientSpec(model=_model_ref(model, base_url), base_url=base_url, **local),
        grader=grader, seed=seed, limit=limit,
        concurrency=concurrency, executor=executor, ray_address=ray_address, max_tokens=max_tokens,
        length_penalty=length_penalty, run_name=run_name, runs_dir=runs_dir,
    )
    try:
        evaluation.preflight()  # the file, gradability and the judge's template, before anything is sampled
    except GraderTemplateUnavailable as exc:
        raise fail(f"{exc}; or pass --grader-prompt medverifier to grade with the project's prompt "
                    "(recorded as such; not comparable with published HealthBench numbers)") from exc
    except _bad_input_errors() as exc:
        raise fail(str(exc)) from exc
    _finish(evaluation)


def _report_agentclinic_import(cases: Path, strict: bool) -> None:
    """Say on stderr what the AgentClinic importer makes of ``cases`` ('N imported, M skipped')."""
    from patient_sim.cases import read_agentclinic

    try:
        imported = read_agentclinic(cases, strict=strict)
    except _bad_input_errors() as exc:
        raise fail(str(exc)) from exc
    typer.echo(f"{cases}: {imported.summary()}", err=True)
    for skipped in imported.skipped[:20]:
        typer.echo(f"skipped: {skipped}", err=True)
    if len(imported.skipped) > 20:
        typer.echo(f"skipped: ... and {len(imported.skipped) - 20} more", err=True)
    if not imported.cases:
        raise fail(f"{cases}: no record could be imported as a case")


@eval_app.command("consult")
def consult(
    cases: Path | None = typer.Option(None, help="Case file or folder (default: the project's cases)."),
    agentclinic: bool = typer.Option(False, help="--cases is an AgentClinic (OSCE) JSONL file."),
    reviewed: bool = typer.Option(False, help="--cases is a clinician reviews export (consultations.jsonl): each "
                                  "case graded with the rubric its clinician confirmed and wrote."),
    strict: bool = typer.Option(False, help="With --agentclinic: fail on the first record that cannot be a case "
                                "(default: skip it, and say 'N imported, M skipped')."),
    case: list[str] = typer.Option([], help="Only these case ids (repeatable)."),
    personas: int = typer.Option(1, min=1, help="Personas sampled per case."),
    max_turns: int | None = typer.Option(None, min=1, help="Doctor turns (default: the shared sampling config's, 6)."),
    doctor_max_tokens: int | None = typer.Option(None, min=4, help="Tokens per doctor turn (default 64)."),
    temperature: float | None = typer.Option(None, min=0.0, help="The doctor's temperature (default 0.7)."),
    model: str = typer.Option("embedded", help=_POLICY_HELP),
    base_url: str | None = typer.Option(None, help="OpenAI-compatible server of the doctor policy."),
    patient_model: str = typer.Option("embedded", help="The simulated patient's model."),
    patient_base_url: str | None = typer.Option(None),
    judge: str | None = typer.Option(None, help="Judge model (rubric items without checks, diagnosis matching)."),
    judge_base_url: str | None = typer.Option(None),
    grading: str = typer.Option("hybrid", help="rule, judge or hybrid."),
    batched: bool = typer.Option(False),
    judge_cache: bool = typer.Option(True, help="Reuse cached judge replies."),
    device: str | None = typer.Option(None, envvar="MEDVERIFIER_DEVICE", help=DEVICE_HELP),
    dtype: str | None = typer.Option(None, envvar="MEDVERIFIER_DTYPE", help=DTYPE_HELP),
    limit: int | None = typer.Option(None, min=1, help="A seeded sample of this many cases."),
    concurrency: int = typer.Option(8, min=1),
    seed: int = typer.Option(0),
    executor: str = typer.Option("local", help="local (asyncio) or ray."),
    ray_address: str | None = typer.Option(None),
    runs_dir: str | None = typer.Option(None),
    run_name: str | None = typer.Option(None),
    resume: str | None = typer.Option(
        None, help="Continue the run RUN (a name or a folder); its stored settings are used, not these options."),
) -> None:
    """Run consultations against the patient simulator and grade them (AgentClinic-style)."""
    from evaluation.consult_eval import ConsultEval
    from evaluation.records import ConsultParams
    from patient_sim.loop import SamplingConfig
    from policy.clients import ClientSpec

    if resume:
        _finish(_resume(resume, runs_dir, "consult"))
        return
    if cases is not None and not cases.exists():
        raise fail(f"{cases}: no such file or folder")
    if executor not in ("local", "ray"):
        raise fail(f"--executor must be local or ray, got {executor!r}")
    if reviewed and (cases is None or agentclinic):
        raise fail("--reviewed needs --cases FILE (the consultations.jsonl of `medverifier reviews export`)")
    if agentclinic and cases is not None:
        _report_agentclinic_import(cases, strict)
    local = placement(device, dtype)
    chosen = {"max_turns": max_turns, "turn_tokens": doctor_max_tokens, "temperature": temperature}
    params = ConsultParams(
        cases_path=str(cases) if cases else None,
        cases_format="agentclinic" if agentclinic else "reviews" if reviewed else "project",
        case_ids=list(case), personas_per_case=personas,
        sampling=SamplingConfig(**{k: v for k, v in chosen.items() if v is not None}),
        patient=ClientSpec(model=_model_ref(patient_model, patient_base_url), base_url=patient_base_url, **local),
    )
    evaluation = ConsultEval.create(
        policy=ClientSpec(model=_model_ref(model, base_url), base_url=base_url, **local),
        grader=_grader(grading, judge, judge_base_url, batched, judge_cache, local),
        params=params, seed=seed, limit=limit, concurrency=concurrency, executor=executor,
        ray_address=ray_address, run_name=run_name, runs_dir=runs_dir,
    )
    try:
        evaluation.examples()
    except _bad_input_errors() as exc:
        raise fail(str(exc)) from exc
    _finish(evaluation)


def report(
    run: str = typer.Argument(..., help="A run name (under --runs-dir) or a run folder."),
    runs_dir: str | None = typer.Option(None),
) -> None:
    """Rebuild a run's HTML report and JSON summary from its results store."""
    from evaluation.report import write_report
    from evaluation.store import resolve_run_dir

    try:
        path = write_report(resolve_run_dir(run, runs_dir))
    except (FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(f"report:  {path}")
    typer.echo(f"summary: {path.with_name('summary.json')}")


def demo(
    cases: int = typer.Option(4, min=1, help="How many of the project's cases."),
    max_turns: int = typer.Option(4, min=1),
    doctor_max_tokens: int = typer.Option(48, min=8),
    seed: int = typer.Option(0),
    runs_dir: str | None = typer.Option(None),
) -> None:
    """The main job: consultations with the embedded doctor and patient, verified, with a report; then the
    same cases graded for the scripted reference, a clinician's own wording and exploits, side by side."""
    import time

    from rich.console import Console
    from rich.markup import escape

    from evaluation.demo import DemoOptions, run_demo
    from evaluation.report import comparison_table, summary_table

    console = Console()
    started = time.perf_counter()
    console.print(f"[bold]medverifier demo[/bold]: {cases} consultations, embedded doctor and patient, "
                  f"up to {max_turns} doctor turns each")
    options = DemoOptions(cases=cases, max_turns=max_turns, doctor_max_tokens=doctor_max_tokens, seed=seed)
    try:
        summary, report_path, comparison = asyncio.run(run_demo(options, runs_dir=runs_dir))
    except _bad_input_errors() as exc:
        raise fail(str(exc)) from exc
    console.print(summary_table(summary))
    console.print(comparison_table(comparison))
    for column in comparison.columns:
        console.print(f"[dim]{escape(column.label)}: {escape(column.description)}[/dim]", highlight=False)
    console.print(f"[bold]{escape(comparison.conclusion)}[/bold]", highlight=False)
    console.print(f"report:  {report_path}")
    console.print(f"summary: {report_path.with_name('summary.json')}")
    console.print(f"done in {time.perf_counter() - started:.0f}s")


def register(app: typer.Typer) -> None:
    """Add ``eval``, ``report`` and ``demo`` to ``app``."""
    app.add_typer(eval_app, name="eval")
    app.command("report")(report)
    app.command("demo")(demo)
