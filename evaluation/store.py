"""The results store: one SQLite file per run, every finished example written at once.

A run lives in ``$MEDVERIFIER_HOME/runs/<RUN>`` (or ``--runs-dir``): ``config.json`` (the ``RunConfig``
that rebuilds the eval, with the run's provenance: judge template, prompt versions, weights
fingerprints), ``results.sqlite``, and after aggregation ``summary.json`` and
``report.html``. Results are keyed by (example, policy, grader, seed): a killed run restarts where it
stopped, and since aggregation reads the rows back in a fixed order, its final numbers equal an
uninterrupted run's.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from evaluation.records import ExampleResult, RunConfig

logger = logging.getLogger(__name__)


def runs_root(runs_dir: str | Path | None = None) -> Path:
    if runs_dir is not None:
        return Path(runs_dir).expanduser()
    home = Path(os.environ.get("MEDVERIFIER_HOME", Path.home() / ".cache" / "medverifier")).expanduser()
    return home / "runs"


def new_run_name(kind: str) -> str:
    return f"{kind}-{datetime.now().strftime('%Y%m%d-%H%M%S')}-{os.getpid() % 10000:04d}"


def resolve_run_dir(run: str | Path, runs_dir: str | Path | None = None) -> Path:
    """``RUN`` is a run name under the runs root, or a path to a run folder."""
    path = Path(run).expanduser()
    if path.is_dir() and (path / "config.json").is_file():
        return path
    candidate = runs_root(runs_dir) / str(run)
    if not (candidate / "config.json").is_file():
        raise FileNotFoundError(f"run {run!r}: no {candidate / 'config.json'} (and {path} is not a run folder)")
    return candidate


def save_config(run_dir: Path, config: RunConfig) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    tmp = run_dir / "config.json.tmp"
    tmp.write_text(config.model_dump_json(indent=2))
    tmp.replace(run_dir / "config.json")


def load_config(run_dir: Path) -> RunConfig:
    path = run_dir / "config.json"
    try:
        return RunConfig.model_validate_json(path.read_text())
    except ValueError as exc:
        raise ValueError(f"{path}: not a valid run config: {exc}") from exc


class ResultsStore:
    """SQLite rows of ``ExampleResult`` JSON. Every ``put`` commits, so a kill loses nothing finished."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            """CREATE TABLE IF NOT EXISTS results (
                example_id TEXT NOT NULL,
                policy TEXT NOT NULL,
                grader TEXT NOT NULL,
                seed INTEGER NOT NULL,
                kind TEXT NOT NULL,
                payload TEXT NOT NULL,
                finished REAL NOT NULL,
                pid INTEGER NOT NULL,
                PRIMARY KEY (example_id, policy, grader, seed)
            )"""
        )
        self._db.commit()

    @classmethod
    def for_run(cls, run_dir: Path) -> ResultsStore:
        return cls(run_dir / "results.sqlite")

    def put(self, result: ExampleResult, *, policy: str, grader: str, seed: int) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                result.example_id, policy, grader, seed, result.kind,
                result.model_dump_json(), time.time(), os.getpid(),
            ),
        )
        self._db.commit()

    def done(self, *, policy: str, grader: str, seed: int) -> set[str]:
        rows = self._db.execute(
            "SELECT example_id FROM results WHERE policy = ? AND grader = ? AND seed = ?",
            (policy, grader, seed),
        )
        return {row[0] for row in rows}

    def results(self, *, policy: str | None = None, grader: str | None = None, seed: int | None = None
                ) -> list[ExampleResult]:
        """Rows in example order (the order aggregation relies on)."""
        query, args = "SELECT payload FROM results WHERE 1=1", []
        for column, value in (("policy", policy), ("grader", grader), ("seed", seed)):
            if value is not None:
                query += f" AND {column} = ?"
                args.append(value)
        rows = self._db.execute(query + " ORDER BY example_id", args)
        return [ExampleResult.model_validate_json(row[0]) for row in rows]

    def rows_meta(self) -> list[tuple[str, float, int]]:
        """(example_id, finished time, writer pid) per row — how resume tests see who did what."""
        return list(self._db.execute("SELECT example_id, finished, pid FROM results ORDER BY example_id"))

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def dump_json(path: Path, data: BaseModel) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data.model_dump(mode="json"), indent=2))
    tmp.replace(path)
