"""The prefix cache: keys and values of prompts and finished requests, looked up by longest common start.

When a request finishes, the KV cache of its tokens is kept (LRU, bounded by ``max_bytes``). A later
prompt that starts with the same tokens — the next turn of a consultation, or any prompt with the
same system prompt — prefills only the rest. Cached keys and values are exactly what a fresh prefill
of those tokens computes; the cache is dropped whenever the model's weights change (a training step),
so it never serves stale activations. An entry covered by a longer one is dropped.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any

import torch
from transformers.cache_utils import DynamicCache

from policy.engine.kv import KV
from policy.engine.request import Request

# A cached prefix shorter than this is not worth a separate prefill pass.
MIN_PREFIX_TOKENS = 16


@dataclass
class Prefix:
    """The keys and values of ``tokens`` for every layer, shape [1, heads, len(tokens), head_dim]."""

    tokens: torch.Tensor  # 1-D, int64, on CPU
    layers: list[KV]
    nbytes: int


@dataclass
class Hit:
    """A request whose prompt continues a cached prefix, and how many tokens they share."""

    request: Request
    prefix: Prefix
    shared: int

    def cache(self) -> DynamicCache:
        """A fresh cache holding the shared tokens' keys and values (the prefix entry stays as it is)."""
        return DynamicCache([(k[:, :, : self.shared, :], v[:, :, : self.shared, :]) for k, v in self.prefix.layers])


def shared_start(a: list[int], b: list[int]) -> int:
    """How many tokens ``a`` and ``b`` share at their start."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


class PrefixCache:
    """Least-recently-used KV caches of prompts and finished requests, looked up by longest common prefix."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: collections.OrderedDict[int, Prefix] = collections.OrderedDict()
        self.nbytes = 0
        self._next_key = 0
        self._weights_version: int | None = None

    def clear(self) -> None:
        self.entries.clear()
        self.nbytes = 0

    def drop_if_stale(self, model: torch.nn.Module) -> None:
        """Cached keys and values are only valid for the weights that computed them."""
        version = sum(p._version for p in model.parameters())
        if version != self._weights_version:
            self.clear()
            self._weights_version = version

    def remember(self, cache: Any, row: int, tokens: list[int], width: int) -> None:
        """Cache the keys and values of ``tokens``, the last ones of ``row`` in a cache ``width`` wide."""
        if self.covers(tokens):  # already held by a longer entry: skip the copy
            return
        n = len(tokens)
        layers = [
            KV(layer.keys[row : row + 1, :, width - n : width, :].clone(), layer.values[row : row + 1, :, width - n : width, :].clone())
            for layer in cache.layers
        ]
        self.add(tokens, layers)

    def add(self, tokens: list[int], layers: list[KV]) -> None:
        nbytes = sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in layers)
        if nbytes > self.max_bytes or len(tokens) < MIN_PREFIX_TOKENS:
            return
        if self.covers(tokens):
            return
        new = torch.tensor(tokens, dtype=torch.long)
        for key, entry in list(self.entries.items()):
            n = len(entry.tokens)
            if n <= len(new) and torch.equal(entry.tokens, new[:n]):  # the new entry covers this one: keep one copy
                del self.entries[key]
                self.nbytes -= entry.nbytes
        self.entries[self._next_key] = Prefix(new, layers, nbytes)
        self._next_key += 1
        self.nbytes += nbytes
        while self.nbytes > self.max_bytes:
            _, evicted = self.entries.popitem(last=False)
            self.nbytes -= evicted.nbytes

    def covers(self, tokens: list[int]) -> bool:
        """Whether a longer entry already holds ``tokens`` (it then counts as used)."""
        wanted = torch.tensor(tokens, dtype=torch.long)
        for key, entry in self.entries.items():
            if len(entry.tokens) > len(wanted) and torch.equal(entry.tokens[: len(wanted)], wanted):
                self.entries.move_to_end(key)
                return True
        return False

    def longest(self, prompt: list[int]) -> tuple[Prefix, int] | None:
        """The entry sharing the longest prefix with ``prompt`` and that length (leaving one token to prefill)."""
        wanted = torch.tensor(prompt, dtype=torch.long)
        best: tuple[int, int] | None = None
        for key, entry in self.entries.items():
            n = min(len(entry.tokens), len(wanted) - 1)
            if n < MIN_PREFIX_TOKENS:
                continue
            differ = (entry.tokens[:n] != wanted[:n]).nonzero()
            shared = int(differ[0]) if len(differ) else n
            if shared >= MIN_PREFIX_TOKENS and (best is None or shared > best[1]):
                best = (key, shared)
        if best is None:
            return None
        self.entries.move_to_end(best[0])
        return self.entries[best[0]], best[1]

    def hit(self, request: Request) -> Hit | None:
        """The request's longest cached prefix, as a ``Hit`` (None when nothing useful is cached)."""
        found = self.longest(request.prompt_ids)
        return Hit(request, *found) if found is not None else None
