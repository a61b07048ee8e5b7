"""A rubric cache keyed by input hash + generator name + generator version (JSON files).

Files live under ``$MEDVERIFIER_HOME/rubric_cache/``; bumping a generator's ``version`` makes its old
entries unreachable, so a changed generator never serves stale rubrics.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from pydantic import ValidationError

from verifier.protocols import RubricGenerator
from verifier.types import Case, Message, Rubric

logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    home = Path(os.environ.get("MEDVERIFIER_HOME", Path.home() / ".cache" / "medverifier")).expanduser()
    return home / "rubric_cache"


def input_hash(case: Case | None, conversation: list[Message] | None) -> str:
    payload = {
        "case": case.model_dump(mode="json") if case is not None else None,
        "conversation": [m.model_dump(mode="json") for m in conversation or []],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class RubricCache:
    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.hits = 0
        self.misses = 0

    def path_for(self, generator: str, version: str, key: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{generator}-{version}")
        return self.directory / f"{safe}-{key[:40]}.json"

    def get(self, generator: str, version: str, key: str) -> Rubric | None:
        path = self.path_for(generator, version, key)
        if not path.is_file():
            self.misses += 1
            return None
        try:
            rubric = Rubric.model_validate_json(path.read_text(encoding="utf-8"))
        except (ValidationError, OSError) as exc:
            logger.warning("ignoring unreadable rubric cache entry %s: %s", path, exc)
            self.misses += 1
            return None
        self.hits += 1
        return rubric

    def put(self, generator: str, version: str, key: str, rubric: Rubric) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path_for(generator, version, key)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(rubric.model_dump_json(), encoding="utf-8")
        tmp.replace(path)  # atomic, so a concurrent reader never sees half a file


class CachedRubricGenerator:
    """Wraps any ``RubricGenerator``; only rubrics without a fallback are cached (a retry may do better)."""

    def __init__(self, inner: RubricGenerator, cache: RubricCache | None = None) -> None:
        self.inner = inner
        self.cache = cache or RubricCache()
        self.name = inner.name
        self.version = inner.version

    async def generate(self, *, case: Case | None = None, conversation: list[Message] | None = None) -> Rubric:
        key = input_hash(case, conversation)
        cached = self.cache.get(self.name, self.version, key)
        if cached is not None:
            return cached
        rubric = await self.inner.generate(case=case, conversation=conversation)
        if rubric.fallback_reason is None:
            self.cache.put(self.name, self.version, key, rubric)
        return rubric
