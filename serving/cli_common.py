"""What every ``medverifier`` subcommand shares: the one error exit, and finding an eval run by name."""

from __future__ import annotations

from pathlib import Path

import typer


def fail(message: str) -> typer.Exit:
    """``raise fail("...")``: the message on stderr, exit status 2 (a usage or input error)."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def run_dir_or_fail(run: str, runs_dir: str | None) -> Path:
    """The folder of eval run ``run`` (a name under ``runs_dir`` or a path), or a clear exit."""
    from evaluation.store import resolve_run_dir

    try:
        return resolve_run_dir(run, runs_dir)
    except (FileNotFoundError, ValueError) as exc:
        raise fail(str(exc)) from exc
