"""A judge-reply cache keyed by (judge model, grader template, prompt), in SQLite.

The template is the ``GraderPrompt``'s identity (name, SHA-256 of its text, system message), so a reply
given to one template never answers for another, even where two templates render the same text.
Only replies that parsed are stored, so a failed judgement is retried on the next run. The default
file is ``$MEDVERIFIER_HOME/judge_cache.sqlite``; ``":memory:"`` keeps it in the process.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
from pathlib import Path

logger = logging.getLogger(__name__)


def default_cache_path() -> Path:
    home = Path(os.environ.get("MEDVERIFIER_HOME", Path.home() / ".cache" / "medverifier")).expanduser()
    return home / "judge_cache.sqlite"


def cache_key(model: str, prompt: str, template: str) -> str:
    return hashlib.sha256(f"{model}\x00{template}\x00{prompt}".encode()).hexdigest()


class JudgeCache:
    def __init__(self, path: str | Path | None = None) -> None:
        target = default_cache_path() if path is None else path
        if str(target) != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(target)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS judge_cache ("
            " key TEXT PRIMARY KEY, model TEXT NOT NULL, reply TEXT NOT NULL,"
            " created REAL NOT NULL, template TEXT NOT NULL DEFAULT '')"
        )
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(judge_cache)")}
        if "template" not in columns:  # a cache file from before templates were part of the key
            self._db.execute("ALTER TABLE judge_cache ADD COLUMN template TEXT NOT NULL DEFAULT ''")
        self._db.commit()
        self.hits = 0
        self.misses = 0
        self.write_errors = 0

    def get(self, model: str, prompt: str, *, template: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT reply FROM judge_cache WHERE key = ?", (cache_key(model, prompt, template),)
            ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return str(row[0])

    def put(self, model: str, prompt: str, reply: str, *, template: str) -> None:
        """Store a parsed reply. The cache only saves judge calls: a file that can no longer be written
        (disk full, deleted, read-only) is logged once and the judgement stands."""
        with self._lock:
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO judge_cache (key, model, reply, created, template) VALUES (?, ?, ?, ?, ?)",
                    (cache_key(model, prompt, template), model, reply, time.time(), template),
                )
                self._db.commit()
            except sqlite3.Error as exc:
                if not self.write_errors:
                    logger.warning("judge cache %s not written (%s); judging goes on without it", self.path, exc)
                self.write_errors += 1

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM judge_cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
