"""``medverifier audit``: the exploit audit of a verifier domain (scripted exploits beside a reference).

For the medical domain the recall audit runs beside it (``evaluation/audit_recall.py``): the project's
natural consultations, written in clinicians' own words, graded against the same reference. Its table
follows the precision table, and ``--json`` adds it under ``"recall"``.

Exit status 0 when every exploit stays within its bound, 1 when one does not (so the audit can gate
a CI job or a training run), 2 on bad input. The recall figures are reported, not gated.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from serving.cli_common import fail, run_dir_or_fail

if TYPE_CHECKING:
    from rich.console import Console

    from evaluation.audit_recall import NaturalSet, RecallReport
    from verifier.llm import ChatClient

DOMAINS = ("medical", "code", "search", "gui")
# The AgentClinic file the shipped natural consultations were written for (their ids follow its order).
AGENTCLINIC_FILE = "agentclinic_medqa.jsonl"


def _medical_cases(cases: Path | None, agentclinic: bool, strict: bool = False) -> tuple[list, str]:
    from patient_sim.cases import CaseFormatError, load_cases, project_cases, read_agentclinic

    if cases is None:
        if agentclinic:
            raise fail("--agentclinic needs --cases FILE (an AgentClinic JSONL)")
        return project_cases(), "project cases"
    try:
        if agentclinic:
            imported = read_agentclinic(cases, strict=strict)
            typer.echo(f"{cases}: {imported.summary()}", err=True)
            for skipped in imported.skipped[:20]:
                typer.echo(f"skipped: {skipped}", err=True)
            if len(imported.skipped) > 20:
                typer.echo(f"skipped: ... and {len(imported.skipped) - 20} more", err=True)
            loaded = imported.cases
        else:
            loaded = load_cases(cases)
    except CaseFormatError as exc:
        raise fail(str(exc)) from exc
    if not loaded:
        raise fail(f"{cases}: no cases in the file")
    return loaded, str(cases)


def _natural(natural: Path | None, cases: Path | None, agentclinic: bool, loaded: list) -> tuple[NaturalSet | None, str]:
    """The natural consultations to measure recall on (or None) and a note when there are none. An explicit
    ``--natural`` must name only audited cases; the shipped file is narrowed to them."""
    from evaluation.audit_recall import NaturalFormatError, load_natural
    from verifier.data import data_dir

    explicit = natural is not None
    if natural is None:
        if agentclinic and cases is not None and cases.name != AGENTCLINIC_FILE:
            return None, (f"recall: not measured (the shipped natural consultations are for {AGENTCLINIC_FILE}; "
                          "pass --natural FILE for these cases)")
        natural = data_dir() / "natural" / ("agentclinic.yaml" if agentclinic else "project.yaml")
        if not natural.is_file():
            return None, f"recall: not measured ({natural} not present)"
    elif not natural.is_file():
        raise fail(f"{natural}: no such file")
    try:
        chosen = load_natural(natural, {c.id for c in loaded}, skip_unknown_cases=not explicit)
    except NaturalFormatError as exc:
        raise fail(str(exc)) from exc
    if not chosen.entries:
        return None, f"recall: not measured (no natural consultations in {natural} for these cases)"
    return chosen, ""


async def _run(domain: str, cases: Path | None, agentclinic: bool, tasks: Path | None, judge: ChatClient | None,
               show: bool, strict: bool = False, natural: Path | None = None):
    """The precision report, and for the medical domain the recall report (or None) and a note."""
    from evaluation.audit import run_audit
    from evaluation.progress import progress

    backend_to_close = None
    chosen, note = None, ""
    if domain == "medical":
        from evaluation.audit_medical import medical_suite

        loaded, source = _medical_cases(cases, agentclinic, strict)
        chosen, note = _natural(natural, cases, agentclinic, loaded)
        suite = medical_suite(loaded, judge=judge, source=source)
    elif domain == "code":
        from evaluation.audit_code import code_suite

        suite = code_suite(tasks_path=tasks)
    elif domain == "search":
        from evaluation.audit_search import search_suite

        suite = search_suite(tasks_path=tasks)
    else:
        from evaluation.audit_gui import gui_suite
        from verifier.backends.gui import GuiBackend, load_gui_tasks

        backend_to_close = GuiBackend()
        suite = gui_suite(backend_to_close)
        if tasks is not None:
            from dataclasses import replace

            suite = replace(suite, items=load_gui_tasks(tasks), source=str(tasks))
    try:
        with progress(1 + len(suite.exploits), f"audit {domain}", enabled=show) as advance:
            report = await run_audit(suite, progress=advance)
    finally:
        if backend_to_close is not None:
            await backend_to_close.aclose()
    if chosen is None:
        return report, None, note
    from evaluation.audit_recall import recall_audit

    with progress(3, f"recall {domain}", enabled=show) as advance:
        recall = await recall_audit(loaded, chosen, case_set="agentclinic" if agentclinic else "project",
                                    precision=report, progress=advance)
    return report, recall, note


def audit(
    domain: str = typer.Option("medical", "--domain", help="medical | code | search | gui"),
    cases: Path | None = typer.Option(None, "--cases", help="Medical: a case file (project YAML/JSONL; "
                                      "with --agentclinic an AgentClinic JSONL). Default: the project's cases."),
    agentclinic: bool = typer.Option(False, "--agentclinic", help="Read --cases as AgentClinic OSCE JSONL."),
    strict: bool = typer.Option(False, "--strict", help="With --agentclinic: fail on the first record that cannot "
                                "be a case (default: skip it, and say 'N imported, M skipped')."),
    tasks: Path | None = typer.Option(None, "--tasks", help="Code/search/gui: a tasks JSONL (default: the shipped one)."),
    judge: str | None = typer.Option(None, "--judge", help="Medical: the judge model for the text-aimed-at-the-"
                                     "judge exploits (default: a scripted judge that obeys the response)."),
    judge_base_url: str | None = typer.Option(None, "--judge-base-url", help="OpenAI-compatible judge server URL."),
    natural: Path | None = typer.Option(None, "--natural", help="Medical: natural consultations to measure recall "
                                        "on (YAML, as data/natural/*.yaml). Default: the shipped file for the "
                                        "case set, narrowed to the audited cases."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of a table."),
    out: Path | None = typer.Option(None, "--out", help="Also write the JSON report to this file."),
    run: str | None = typer.Option(None, "--run", help="Save the report beside an eval run (audit-<domain>.json) "
                                   "and rebuild that run's HTML report, which then shows it."),
    runs_dir: str | None = typer.Option(None, "--runs-dir", help="Where --run is looked up."),
) -> None:
    """Try to score without the skill: scripted exploits against a domain's verifier, beside a reference."""
    if domain not in DOMAINS:
        raise fail(f"--domain must be one of {', '.join(DOMAINS)}, got {domain!r}")
    if domain != "medical" and (cases is not None or agentclinic or strict or judge or judge_base_url or natural):
        raise fail("--cases, --agentclinic, --strict, --judge and --natural apply to --domain medical only "
                   "(use --tasks)")
    if tasks is not None and not tasks.is_file():
        raise fail(f"{tasks}: no such file")
    run_dir = None if run is None else run_dir_or_fail(run, runs_dir)
    client = None
    if judge or judge_base_url:
        from policy.clients import ClientSpec, build_client

        client = build_client(ClientSpec(model=judge or "judge", base_url=judge_base_url))
    from verifier.backends import RecordError

    try:
        report, recall, recall_note = asyncio.run(_run(domain, cases, agentclinic, tasks, client, show=not as_json,
                                                       strict=strict, natural=natural))
    except RecordError as exc:
        raise fail(str(exc)) from exc
    text = report.model_dump_json(indent=2)
    combined = json.loads(text)
    if recall is not None:
        combined["recall"] = json.loads(recall.model_dump_json())
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(combined, indent=2), encoding="utf-8")
    if run_dir is not None:
        from evaluation.report import write_report

        (run_dir / f"audit-{domain}.json").write_text(text, encoding="utf-8")
        typer.echo(f"report:  {write_report(run_dir)}", err=as_json)
    if as_json:
        typer.echo(json.dumps(combined, indent=2))
    else:
        from rich.console import Console

        from evaluation.audit import render_table

        console = Console()
        console.print(render_table(report))
        for note in report.notes:
            console.print(f"note: {note}", soft_wrap=True)
        for policy in [report.reference, *report.exploits]:
            if not policy.passed:
                console.print(f"breach: {policy.name} ({policy.family}): {'; '.join(policy.failures)}",
                              soft_wrap=True, markup=False)
        _print_recall(console, recall, recall_note)
    if not report.passed:
        raise typer.Exit(code=1)


def _print_recall(console: Console, recall: RecallReport | None, note: str) -> None:
    if recall is None:
        if note:
            console.print(note, soft_wrap=True, markup=False)
        return
    from evaluation.audit_recall import recall_lines, render_recall_table

    console.print(render_recall_table(recall))
    for line in recall_lines(recall):
        console.print(line, soft_wrap=True, markup=False)


def register(app: typer.Typer) -> None:
    """Add ``audit`` to ``app``."""
    app.command("audit")(audit)
