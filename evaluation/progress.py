"""The one progress helper: a rich progress bar on stderr, and the serial debug switch.

``MEDVERIFIER_SERIAL=1`` runs every eval one example at a time (concurrency 1), which makes logs
readable and failures easy to attribute; ``MEDVERIFIER_PROGRESS=0`` hides the bars (tests, CI logs).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

_tick: Callable[[str], None] | None = None


def tick(note: str = "") -> None:
    """Report a unit of work finer than an example (e.g. one consultation message) to the live bar."""
    if _tick is not None:
        _tick(note)


def serial_mode() -> bool:
    return os.environ.get("MEDVERIFIER_SERIAL", "").lower() in {"1", "true", "yes"}


def effective_concurrency(requested: int) -> int:
    if requested < 1:
        raise ValueError(f"concurrency must be >= 1, got {requested}")
    return 1 if serial_mode() else requested


def progress_enabled() -> bool:
    return os.environ.get("MEDVERIFIER_PROGRESS", "1").lower() not in {"0", "false", "no"}


@contextmanager
def progress(total: int, description: str, *, completed: int = 0, enabled: bool | None = None
             ) -> Iterator[Callable[[str], None]]:
    """Yield ``advance(note)``; one call per finished unit of work."""
    show = progress_enabled() if enabled is None else enabled
    if not show:
        yield lambda note="": None
        return
    console = Console(file=sys.stderr)
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[note]}"),
        console=console,
        transient=False,
    )
    global _tick
    with bar:
        task = bar.add_task(description, total=total, completed=completed, note="")
        steps: list[int] = []  # the finer-grained row appears only once something ticks

        def advance(note: str = "") -> None:
            bar.update(task, advance=1, note=note[:40])

        def step(note: str = "") -> None:
            if not steps:
                steps.append(bar.add_task("  messages", total=None, note=""))
            bar.update(steps[0], advance=1, note=note[:40])

        _tick = step
        try:
            yield advance
        finally:
            _tick = None
