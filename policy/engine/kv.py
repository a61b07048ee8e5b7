"""KV memory of the running batch: a cache layer with room to spare, and the batch whose rows come and go.

The running batch's rows are left-padded to one width (padding masked, positions from the attention
mask), so a request's output does not depend on its batch-mates. Its cache keeps spare room around
its rows and tokens (``RoomyLayer``): a decoding step writes one column instead of re-copying the
whole cache, a row that joins is copied into a spare row, and a row that leaves is replaced by the
last one; the other rows stay where they are.

Models whose cache is not made of plain ``DynamicLayer`` s (sliding-window or hybrid caches) cannot
have rows spliced in (``spliceable``); their batch takes new rows only when it has drained.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import torch
from transformers.cache_utils import DynamicLayer

from policy.engine.request import Request


class KV(NamedTuple):
    """One layer's keys and values, [rows, heads, tokens, head_dim] each."""

    keys: torch.Tensor
    values: torch.Tensor


@dataclass
class Prefilled:
    """Rows fresh from a prefill pass, ready to join the running batch."""

    requests: list[Request]
    attention: torch.Tensor  # [rows, width], 0 on left padding
    cache: Any  # a transformers Cache with these rows, right-aligned to ``width``
    logits: torch.Tensor | None = None  # [rows, vocab] at the last prompt position, when the pass made them


def spliceable(cache: Any) -> bool:
    """Whether rows can be spliced in and out of ``cache`` by hand (every layer a plain ``DynamicLayer``)."""
    layers = getattr(cache, "layers", None)
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


class RoomyLayer(DynamicLayer):
    """A ``DynamicLayer`` whose keys and values are a window of bigger buffers, with rows and columns to spare.

    The running batch's rows are left-padded to one width and end in the same column. A decoding step
    writes one column into the room on the right. A row that leaves is replaced by the batch's last
    row (one row copied), and padding no row needs any more leaves the window. A joining row is
    written into a spare row, right-aligned, widening the window into the room on the left if it is
    longer. The buffers are rebuilt only when a room runs out. ``DynamicLayer.update`` re-concatenated
    the whole cache for every token (with 16 rows of 800 tokens, a third of a decoding step on
    2 cores), and re-stacking every row whenever a row came or went cost 30–45 ms a time with
    10 rows of 500 tokens, in a consultation batch where rows come and go every few steps.
    """

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, rows: int, start: int, end: int) -> None:
        super().__init__()
        self.is_initialized = True
        self.device = keys.device
        self._keys, self._values = keys, values
        self._rows, self._start, self._end = rows, start, end
        self._view()

    @classmethod
    def empty(cls, like: torch.Tensor, capacity: int, width: int) -> RoomyLayer:
        """No rows yet; room for ``capacity`` rows of up to ``width`` tokens plus spare columns."""
        left = _room(width)
        shape = (capacity, like.shape[1], left + width + _room(width), like.shape[3])
        return cls(like.new_empty(shape), like.new_empty(shape), 0, left + width, left + width)

    @classmethod
    def stacked(cls, pieces: list[KV], width: int, capacity: int = 0) -> RoomyLayer:
        """The rows of ``pieces`` in order, right-aligned to ``width`` tokens."""
        layer = cls.empty(pieces[0].keys, max(capacity, sum(p.keys.shape[0] for p in pieces)), width)
        layer.join(pieces)
        return layer

    @property
    def capacity(self) -> int:
        return self._keys.shape[0]

    def _view(self) -> None:
        self.keys = self._keys[: self._rows, :, self._start : self._end]
        self.values = self._values[: self._rows, :, self._start : self._end]

    def fits(self, rows: int, width: int) -> bool:
        """Whether ``rows`` more rows of up to ``width`` tokens fit without rebuilding the buffers."""
        return self._rows + rows <= self.capacity and width <= self._end

    def rebuild(self, capacity: int, width: int) -> None:
        """Move the rows into new buffers: ``capacity`` rows, a window that can widen to ``width``
        tokens on the left, and spare columns on both sides."""
        current = self._end - self._start
        left = max(0, width - current) + _room(width)
        shape = (capacity, self._keys.shape[1], left + current + _room(width), self._keys.shape[3])
        keys, values = self._keys.new_empty(shape), self._values.new_empty(shape)
        keys[: self._rows, :, left : left + current] = self.keys
        values[: self._rows, :, left : left + current] = self.values
        self._keys, self._values, self._start, self._end = keys, values, left, left + current
        self._view()

    def join(self, pieces: list[KV]) -> None:
        """Append the rows of ``pieces``, right-aligned to the window; see ``fits``."""
        start = min([self._start] + [self._end - p.keys.shape[2] for p in pieces])
        if start < self._start:  # the window widens to the left: zero padding there for the old rows
            self._keys[: self._rows, :, start : self._start].zero_()
            self._values[: self._rows, :, start : self._start].zero_()
            self._start = start
        row = self._rows
        for piece in pieces:
            n, end = piece.keys.shape[2], row + piece.keys.shape[0]
            for buffer, part in zip((self._keys, self._values), piece, strict=True):
                buffer[row:end, :, self._start : self._end - n].zero_()  # left padding: masked, must not hold NaN
                buffer[row:end, :, self._end - n : self._end] = part
            row = end
        self._rows = row
        self._view()

    def retain(self, moves: list[tuple[int, int]], rows: int, trim: int) -> None:
        """Keep the first ``rows`` rows after copying row ``source`` into row ``target`` for each
        ``(target, source)`` of ``moves``; drop the window's ``trim`` leftmost columns."""
        for target, source in moves:
            self._keys[target, :, self._start : self._end] = self._keys[source, :, self._start : self._end]
            self._values[target, :, self._start : self._end] = self._values[source, :, self._start : self._end]
        self._rows, self._start = rows, self._start + trim
        self._view()

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
        added = key_states.shape[-2]
        if self._end + added > self._keys.shape[2]:  # out of room on the right
            self.rebuild(self.capacity, self._end - self._start + added)
        self._keys[: self._rows, :, self._end : self._end + added] = key_states
        self._values[: self._rows, :, self._end : self._end + added] = value_states
        self._end += added
        self._view()
        return self.keys, self.values


def _room(width: int) -> int:
    """Spare columns for a cache of ``width`` tokens: a rebuild every 64 or more steps."""
    return max(64, width // 4)


def _row_room(rows: int, most: int) -> int:
    """Rows to allocate for a batch of ``rows``: a few to spare for rows joining, at most ``most``."""
    return max(rows, min(most, rows + max(2, rows // 2)))


def pad_left(tensor: torch.Tensor, width: int, dim: int = 1) -> torch.Tensor:
    missing = width - tensor.shape[dim]
    if missing <= 0:
        return tensor
    shape = list(tensor.shape)
    shape[dim] = missing
    return torch.cat([tensor.new_zeros(shape), tensor], dim=dim)


class RunningBatch:
    """The running batch: its requests, their attention mask and the shared KV cache."""

    def __init__(self, max_rows: int, *, spliceable: bool = True) -> None:
        self.max_rows = max_rows
        self.spliceable = spliceable
        self.rows: list[Request] = []
        self.attention: torch.Tensor | None = None  # [rows, width], 0 on left padding
        self.cache: Any = None

    def __len__(self) -> int:
        return len(self.rows)

    def keep(self, keep: list[int]) -> None:
        """Drop every row not in ``keep`` and trim padding columns no remaining row needs. The order
        of the rows changes: the last rows move into the places of the dropped ones."""
        if len(keep) == len(self.rows):
            return
        if not keep:
            self.rows, self.attention, self.cache = [], None, None
            return
        if not self.spliceable:  # a cache we cannot trim by hand: let it select its own rows
            index = torch.tensor(keep, device=self.attention.device)
            self.rows = [self.rows[i] for i in keep]
            self.attention = self.attention.index_select(0, index)
            self.cache.batch_select_indices(index)
            return
        count, kept = len(keep), set(keep)
        holes = [row for row in range(count) if row not in kept]
        moves = list(zip(holes, [row for row in keep if row >= count], strict=True))
        order = list(range(count))
        for target, source in moves:
            order[target] = source
        self.rows = [self.rows[i] for i in order]
        self.attention = self.attention[order]
        used = self.attention.any(dim=0).nonzero()
        trim = int(used[0]) if len(used) else 0
        self.attention = self.attention[:, trim:]
        for layer in self.cache.layers:
            layer.retain(moves, count, trim)

    def extend(self, groups: list[Prefilled]) -> None:
        """Add freshly prefilled rows after the batch's rows, left-padding every row to one width; only
        the new rows are copied, unless the buffers run out of room."""
        if not self.rows and not self.spliceable and len(groups) == 1:
            self.rows, self.attention, self.cache = list(groups[0].requests), groups[0].attention, groups[0].cache
            return
        added = sum(len(g.requests) for g in groups)
        width = max(g.attention.shape[1] for g in groups)
        pieces = [[KV(g.cache.layers[i].keys, g.cache.layers[i].values) for g in groups] for i in range(len(groups[0].cache.layers))]
        if self.rows:
            if not self.cache.layers[0].fits(added, width):
                capacity = _row_room(len(self.rows) + added, self.max_rows)
                for layer in self.cache.layers:
                    layer.rebuild(capacity, max(width, self.attention.shape[1]))
            for layer, layer_pieces in zip(self.cache.layers, pieces, strict=True):
                layer.join(layer_pieces)
        else:
            self.cache = groups[0].cache
            self.cache.layers = [RoomyLayer.stacked(p, width, _row_room(added, self.max_rows)) for p in pieces]
        joined = ([self.attention] if self.rows else []) + [g.attention for g in groups]
        total = max(attention.shape[1] for attention in joined)
        self.attention = torch.cat([pad_left(attention, total) for attention in joined])
        for g in groups:
            self.rows.extend(g.requests)
