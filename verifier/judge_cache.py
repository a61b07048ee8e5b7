"""A judge-reply cache keyed by (judge model, prompt), in SQLite.

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


def cache_key(model: str, prompt: str) -> str:
    return hashlib.sha256(f"{model}\x00{prompt}".encode()).hexdigest()


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
            " created REAL NOT NULL)"
        )
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def get(self, model: str, prompt: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT reply FROM judge_cache WHERE key = ?", (cache_key(model, prompt),)
            ).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return str(row[0])

    def put(self, model: str, prompt: str, reply: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO judge_cache (key, model, reply, created) VALUES (?, ?, ?, ?)",
                (cache_key(model, prompt), model, reply, time.time()),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM judge_cache").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
