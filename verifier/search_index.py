"""A BM25 index (bm25s) over the project's own passage corpus, and the ``search`` tool for rollouts.

The index is built in memory at first use (about a tenth of a second for the shipped corpus) and
cached per corpus file, so every backend and tool in a process shares one.
"""

from __future__ import annotations

import functools
import logging
import threading
from pathlib import Path

import bm25s
from bm25s.tokenization import Tokenizer
from pydantic import BaseModel, Field

from verifier.backends import DATA_DIR, load_records

logger = logging.getLogger(__name__)

DEFAULT_CORPUS = DATA_DIR / "search" / "corpus.jsonl"


class Passage(BaseModel):
    id: str = Field(min_length=1)
    title: str = ""
    text: str = Field(min_length=1)


class SearchHit(BaseModel):
    id: str
    title: str
    text: str
    score: float


class SearchIndex:
    def __init__(self, passages: list[Passage]) -> None:
        if not passages:
            raise ValueError("search index: the corpus is empty")
        self.passages = passages
        self._tokenizer = Tokenizer(stopwords="en")
        corpus_ids = self._tokenizer.tokenize(
            [f"{p.title} {p.text}" for p in passages], show_progress=False
        )
        self._bm25 = bm25s.BM25()
        self._bm25.index(corpus_ids, show_progress=False)
        self._lock = threading.Lock()  # the tokenizer keeps state; retrieval is quick, so serialise it

    @classmethod
    def from_jsonl(cls, path: str | Path) -> SearchIndex:
        return cls(load_records(path, Passage))

    def search(self, query: str, k: int = 3) -> list[SearchHit]:
        """The top ``k`` passages for ``query`` (fewer when fewer share any term with it)."""
        if k < 1:
            raise ValueError(f"search: k must be at least 1, got {k}")
        k = min(k, len(self.passages))
        with self._lock:
            query_ids = self._tokenizer.tokenize([query], update_vocab=False, show_progress=False)
            docs, scores = self._bm25.retrieve(query_ids, k=k, show_progress=False)
        hits = []
        for index, score in zip(docs[0], scores[0], strict=True):
            if score <= 0:
                continue
            passage = self.passages[int(index)]
            hits.append(SearchHit(id=passage.id, title=passage.title, text=passage.text, score=float(score)))
        return hits


@functools.lru_cache(maxsize=8)
def _cached_index(path: str) -> SearchIndex:
    logger.info("building the BM25 index over %s", path)
    return SearchIndex.from_jsonl(path)


def default_index(path: str | Path | None = None) -> SearchIndex:
    return _cached_index(str(Path(path or DEFAULT_CORPUS).resolve()))


def format_hits(hits: list[SearchHit]) -> str:
    """How results come back to the policy in a ``tool`` turn."""
    if not hits:
        return "No results."
    return "\n".join(f"[{i}] ({hit.id}) {hit.title}: {hit.text}" for i, hit in enumerate(hits, start=1))


class SearchTool:
    """The ``search(query, k)`` tool for rollouts; counts its calls."""

    name = "search"
    description = "Search the reference corpus. Call with one query; returns the top k passages."

    def __init__(self, index: SearchIndex | None = None, *, k: int = 3) -> None:
        self.index = index or default_index()
        self.k = k
        self.calls = 0

    def search(self, query: str, k: int | None = None) -> list[SearchHit]:
        self.calls += 1
        return self.index.search(query, k or self.k)

    def __call__(self, query: str, k: int | None = None) -> str:
        return format_hits(self.search(query, k))
