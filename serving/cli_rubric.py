"""``medverifier rubric`` (print a case's generated rubric) and ``medverifier grade`` (grade responses
to HealthBench-format records: rule checks, plus an LLM judge when one is given)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer

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
    from serving.wiring import build_rubric_generator

    client = None
    if llm or base_url:
        from serving.clients import build_client

        client = build_client(llm or "embedded", base_url=base_url)
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
    batched: bool = typer.Option(False, "--batched", help="Grade many rubric items per judge call."),
    out: Path | None = typer.Option(None, "--out", help="Write per-example results (JSONL) here."),
    max_tokens: int = typer.Option(256, "--max-tokens", help="Judge reply tokens per rubric item."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse judge replies ($MEDVERIFIER_HOME)."),
) -> None:
    """Grade given responses against their rubrics and print the HealthBench aggregate as JSON."""
    from verifier.healthbench import DataFileError, load_healthbench, load_responses

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
    client = None
    if judge or judge_base_url:
        from serving.clients import build_client

        client = build_client(judge or "judge", base_url=judge_base_url)
    judge_cache = None
    if client is not None and cache:
        from verifier.judge_cache import JudgeCache

        judge_cache = JudgeCache()
    summary = asyncio.run(_grade_all(by_id, answers, client, batched, max_tokens, out, judge_cache))
    typer.echo(json.dumps(summary, indent=2))


async def _grade_all(by_id, answers, client, batched: bool, max_tokens: int, out: Path | None, cache) -> dict:
    from rich.progress import Progress

    from serving.wiring import build_grader
    from verifier.backends.medical import grade_conversation, rubric_conversation
    from verifier.scoring import aggregate, score_example
    from verifier.types import Message

    grader = build_grader(client, batched=batched, max_tokens=max_tokens, cache=cache)
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
    return {
        "grader": grader.name,
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
