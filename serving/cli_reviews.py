"""``medverifier reviews export`` and ``medverifier reviews agreement``: clinicians' reviews, offline.

Both read the server's SQLite file (``--db``, default the server's) directly, with every review in it;
the HTTP API (``/v1/reviews/export``, ``/v1/reviews/agreement``) gives each key the reviews it may see.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from serving.cli_common import fail, run_dir_or_fail

if TYPE_CHECKING:
    from evaluation.agreement import AgreementReport, AgreementStats
    from evaluation.reviews import ReviewedConsultation

reviews_app = typer.Typer(help="Clinicians' reviews of served consultations: eval files and agreement.",
                          no_args_is_help=True)

DB_HELP = "The server's SQLite file (default: the server's, under MEDVERIFIER_HOME)."
REVIEWER_HELP = "Only this reviewer's reviews (a key label); repeat for several."



async def _load(db: Path, reviewers: list[str]) -> list[ReviewedConsultation]:
    from patient_sim.cases import project_cases
    from serving.reviews import ReviewStore
    from serving.sessions import ConsultationStore

    consultations = await ConsultationStore.open(db, None, cases=project_cases())
    try:
        store = await ReviewStore.open(consultations)
        reviews = [r for r in await store.visible(None) if not reviewers or r.reviewer in reviewers]
        return await store.reviewed(reviews)
    finally:
        await consultations.close()


def _db(db: Path | None) -> Path:
    from serving.settings import Settings

    path = db or Settings().resolved_db_path()
    if not path.is_file():
        raise fail(f"{path}: no such database (give the server's file with --db)")
    return path


@reviews_app.command("export")
def export(
    out: Path = typer.Option(Path("reviews"), "--out", help="Folder for healthbench.jsonl, responses.jsonl and "
                             "consultations.jsonl."),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    reviewer: list[str] = typer.Option([], "--reviewer", help=REVIEWER_HELP),
) -> None:
    """Write the reviews as eval files: HealthBench records (+ the graded final turns, for `grade`) and
    case + clinician rubric + dialogue verify requests."""
    from evaluation.reviews import EXPORT_FORMATS, export_lines

    reviewed = asyncio.run(_load(_db(db), reviewer))
    out.mkdir(parents=True, exist_ok=True)
    for fmt in EXPORT_FORMATS:
        lines = export_lines(reviewed, fmt)
        path = out / f"{fmt}.jsonl"
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        typer.echo(f"{path}: {len(lines)} of {len(reviewed)} reviews")
    typer.echo(f"grade them: medverifier eval healthbench {out / 'healthbench.jsonl'}  |  medverifier grade "
               f"--data {out / 'healthbench.jsonl'} --responses {out / 'responses.jsonl'}")


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _ci(stats: AgreementStats, name: str) -> str:
    interval = getattr(stats, f"{name}_ci")
    value = _fmt(getattr(stats, name))
    return value if interval is None else f"{value} [{interval.low:.2f}, {interval.high:.2f}]"


def agreement_table(report: AgreementReport) -> object:
    from rich.table import Table

    table = Table(title=f"agreement over {report.reviews} reviews of {report.consultations} consultations "
                  f"({', '.join(report.reviewers) or 'no reviewers'})")
    for column in ("comparison", "n", "accuracy", "macro F1", "Cohen's kappa"):
        table.add_column(column, justify="left" if column == "comparison" else "right")
    rows = [("grader vs clinicians", report.grader)]
    rows += [(f"  axis {axis}", stats) for axis, stats in report.by_axis.items()]
    rows += [(f"  grader {name}", stats) for name, stats in report.by_grader.items()]
    if report.clinicians is not None:
        rows.append(("clinician vs clinician", report.clinicians))
    for name, stats in rows:
        table.add_row(name, str(stats.n), _ci(stats, "accuracy"), _ci(stats, "macro_f1"), _ci(stats, "kappa"))
    return table


@reviews_app.command("agreement")
def agreement(
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    reviewer: list[str] = typer.Option([], "--reviewer", help=REVIEWER_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    run: str | None = typer.Option(None, "--run", help="Save it beside an eval run (agreement.json) and add it to "
                                   "the run's HTML report."),
    runs_dir: str | None = typer.Option(None, "--runs-dir", help="Where --run is looked up."),
) -> None:
    """The grader's agreement with clinicians (accuracy, macro F1, kappa; per axis and grader), clinicians'
    with each other, 95% bootstrap intervals, and the most disagreed criteria."""
    from rich.console import Console

    from evaluation.agreement import agreement_report

    run_dir = None if run is None else run_dir_or_fail(run, runs_dir)
    report = agreement_report([r.review for r in asyncio.run(_load(_db(db), reviewer))])
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        console = Console()
        console.print(agreement_table(report))
        for item in report.most_disagreed:
            console.print(f"{item.disagreements}/{item.compared} disagree  {item.criterion}", markup=False,
                          highlight=False)
    if run_dir is not None:
        from evaluation.report import AGREEMENT_FILE, write_report

        (run_dir / AGREEMENT_FILE).write_text(report.model_dump_json(indent=2), encoding="utf-8")
        typer.echo(f"report:  {write_report(run_dir)}", err=as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(reviews_app, name="reviews")
