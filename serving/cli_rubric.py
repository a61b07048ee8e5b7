"""``medverifier rubric`` (print a case's generated rubric) and ``medverifier grade`` (grade responses
to HealthBench-format records: rule checks, plus an LLM judge when one is given).

``grade``'s judge reads HealthBench's own grader template by default (the ``healthbench`` extra), so its
numbers are comparable with published ones; ``--grader-prompt medverifier`` picks the project's
hardened prompt (recorded in the output as such)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from verifier.protocols import Grader

MAX_CONCURRENT_EXAMPLES = 16


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def rubric(
    case: str = typer.Option(..., "--case", help="A project case id, or a case file path."),
    as_json: bool = typer.Option(False, "--json", help="Print the rubric as JSON."),
    llm: str | None = typer.Option(None, "--llm", help="Generate with this model (LLM rubric; case fallback)."),
    base_url: str | None = typer.Option(None, "--base-url", help="OpenAI-compatible server for --llm."),
) -> None:
    """Print the rubric generated for a case."""
    from patient_sim.cases import CaseFormatError, CaseNotFoundError, find_case

    try:
        found = find_case(case)
    except (CaseNotFoundError, CaseFormatError) as exc:
        _fail(str(exc).strip("'\""))
        return
    from policy.clients import ClientSpec, build_client
    from policy.graders import build_rubric_generator

    client = build_client(ClientSpec(model=llm or "embedded", base_url=base_url)) if llm or base_url else None
    generated = asyncio.run(build_rubric_generator(client).generate(case=found))
    if as_json:
        typer.echo(generated.model_dump_json(indent=2, exclude_none=True))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Rubric for {found.id} ({generated.generator}@{generated.version})")
    for column in ("points", "axis", "criterion", "check"):
        table.add_column(column)
    for item in generated.items:
        axis = next((t for t in item.tags if t.startswith("axis:")), "")
        table.add_row(str(item.points), axis, item.criterion, item.check.kind if item.check else "judge")
    console = Console()
    console.print(table)
    if generated.fallback_reason:
        console.print(f"[yellow]LLM rubric unusable, case-grounded fallback used: {generated.fallback_reason}")


def grade(
    data: Path = typer.Option(..., "--data", help="HealthBench-format JSONL (prompt, prompt_id, rubrics, ...)."),
    responses: Path = typer.Option(..., "--responses", help="JSONL of {prompt_id, response}."),
    judge: str | None = typer.Option(None, "--judge", help="Judge model: 'embedded', a checkpoint, or a served name."),
    judge_base_url: str | None = typer.Option(None, "--judge-base-url", help="OpenAI-compatible judge server URL."),
    grading: str = typer.Option("hybrid", "--grading", help="rule (checks only), judge (every item) or hybrid."),
    grader_prompt: str = typer.Option(
        "healthbench", "--grader-prompt", help="The judge's template: healthbench (HealthBench's own, from the "
        "healthbench extra; comparable numbers) or medverifier (the project's hardened prompt; not comparable)."),
    batched: bool = typer.Option(False, "--batched", help="Grade many rubric items per judge call (the "
                                 "project's batch prompt: not comparable with published HealthBench numbers)."),
    out: Path | None = typer.Option(None, "--out", help="Write per-example results (JSONL) here."),
    max_tokens: int = typer.Option(256, "--max-tokens", help="Judge reply tokens per rubric item."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse judge replies ($MEDVERIFIER_HOME)."),
) -> None:
    """Grade given responses against their rubrics and print the HealthBench aggregate as JSON."""
    from verifier.grader_prompts import GRADER_PROMPT_NAMES
    from verifier.healthbench import (
        DataFileError,
        NotGradable,
        check_gradable,
        load_healthbench,
        load_responses,
    )

    if grading not in ("rule", "judge", "hybrid"):
        _fail(f"--grading must be rule, judge or hybrid, got {grading!r}")
    if grader_prompt not in GRADER_PROMPT_NAMES:
        _fail(f"--grader-prompt must be one of {', '.join(GRADER_PROMPT_NAMES)}, got {grader_prompt!r}")
    has_judge = bool(judge or judge_base_url) and grading != "rule"
    if grading == "judge" and not has_judge:
        _fail("--grading judge needs --judge MODEL (or --judge-base-url URL)")
    try:
        records = load_healthbench(data)
        answers = load_responses(responses)
    except DataFileError as exc:
        _fail(str(exc))
        return
    by_id = {r.prompt_id: r for r in records}
    for line, answer in enumerate(answers, start=1):
        if answer.prompt_id not in by_id:
            _fail(f"{responses}:{line}: field 'prompt_id': {answer.prompt_id!r} is not in {data}")
    try:
        check_gradable((item for a in answers for item in by_id[a.prompt_id].rubrics), grading=grading,
                       has_judge=has_judge)
    except NotGradable as exc:
        _fail(str(exc))
    grader = _grader(grading, judge if has_judge else None, judge_base_url if has_judge else None, grader_prompt,
                     batched, max_tokens, cache)
    if has_judge and batched and grader_prompt == "healthbench":
        typer.echo("note: --batched grades with the project's batch prompt (HealthBench has none): the "
                   "scores are not comparable with published HealthBench numbers", err=True)
    summary = asyncio.run(_grade_all(by_id, answers, grader, out))
    typer.echo(json.dumps(summary, indent=2))


def _grader(grading: str, judge: str | None, base_url: str | None, prompt: str, batched: bool, max_tokens: int,
            cache: bool) -> Grader:
    """The grader for ``--grading`` with the judge ``judge`` at ``base_url`` (both None: no judge)."""
    from policy.clients import ClientSpec
    from policy.graders import GraderSpec, build_grader
    from verifier.grader_prompts import grader_prompt
    from verifier.healthbench_template import GraderTemplateError, GraderTemplateUnavailable

    judge_spec = ClientSpec(model=judge or "judge", base_url=base_url) if judge or base_url else None
    try:
        if judge_spec is not None and not batched:  # before a judge model is loaded
            grader_prompt(prompt)
    except GraderTemplateUnavailable as exc:
        _fail(f"{exc}; or pass --grader-prompt medverifier to grade with the project's prompt (recorded as "
              "such; not comparable with published HealthBench numbers)")
    except GraderTemplateError as exc:
        _fail(str(exc))
    return build_grader(GraderSpec(kind=grading, judge=judge_spec, batched=batched, prompt=prompt,  # type: ignore[arg-type]
                                   judge_cache=cache, max_tokens=max_tokens))


async def _grade_all(by_id, answers, grader: Grader, out: Path | None) -> dict:
    from rich.progress import Progress

    from policy.graders import judge_of
    from verifier.backends.medical import grade_conversation, rubric_conversation
    from verifier.graders import JudgeGrader
    from verifier.scoring import aggregate, score_example
    from verifier.types import Message

    limit = asyncio.Semaphore(MAX_CONCURRENT_EXAMPLES)

    async def one(answer):
        record = by_id[answer.prompt_id]
        conversation = rubric_conversation(record.to_task(), [Message(role="assistant", content=answer.response)])
        async with limit:
            result = await grade_conversation(conversation, record.rubrics, grader, example_tags=record.example_tags)
        return answer, record, result

    rows = []
    with Progress(transient=True) as progress:
        task = progress.add_task("grading", total=len(answers))
        for future in asyncio.as_completed([one(a) for a in answers]):
            rows.append(await future)
            progress.advance(task)
    rows.sort(key=lambda row: row[0].prompt_id)
    examples = [
        score_example(result.criteria, example_tags=record.example_tags, prompt_id=record.prompt_id)
        for _, record, result in rows
    ]
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        with out.open("w", encoding="utf-8") as handle:
            for answer, _, result in rows:
                handle.write(json.dumps({"prompt_id": answer.prompt_id, **result.model_dump(mode="json")}) + "\n")
    total = aggregate(examples)
    judge = judge_of(grader)
    template = judge.active_prompt if isinstance(judge, JudgeGrader) else None
    return {
        "grader": grader.name,
        "judge_template": None if template is None else {
            "name": template.name, "version": template.version, "sha256": template.sha256,
            "system": template.system, "source": template.source},
        "healthbench_comparable": template is not None and template.comparable,
        "score": total.score,
        "bootstrap_std": total.bootstrap_std,
        "n_examples": total.n_examples,
        "n_scored_examples": total.n_scored_examples,
        "unscored_items": total.unscored_items,
        "metrics": total.flat(),
    }


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("rubric")(rubric)
    app.command("grade")(grade)
