"""``LocalChatClient``: a transformers model behind the ``ChatClient`` protocol, with continuous batching.

Concurrent ``complete()`` / ``stream()`` calls from any number of coroutines (and event loops) go
into one inbox. A decoding thread owns the running batch: at every step it admits waiting requests
into free slots (up to ``max_batch_size``), prefills them, splices their KV cache into the running
one, decodes one token for every active row, and hands each finished request back to its caller at
once — nobody waits for the longest row of "their" batch, and a request that arrives mid-decode
joins at the next step instead of waiting for the batch to drain. ``batch_wait_ms`` is how long an
idle thread waits for stragglers before starting a new batch.

Each row keeps its own temperature, seed, token limit and stop strings, so a request's output does
not depend on its batch-mates (up to float32 batch variance, see ``tests/policy/test_local_client.py``):
rows are left-padded, padding is masked and positions come from the attention mask.

Prefix caching: when a request finishes, the KV cache of its tokens is kept (LRU, bounded by
``prefix_cache_mb``). A later prompt that starts with the same tokens — the next turn of a
consultation, or any prompt with the same system prompt — prefills only the rest. Cached keys and
values are exactly what a fresh prefill of those tokens computes; the cache is dropped whenever the
model's weights change (a training step), so it never serves stale activations.

Requests admitted together whose prompts share a start (16 consultations opening with one system
prompt) prefill that start once: the first is prefilled whole and cached, the others only what
differs. The running batch's cache keeps spare room around its rows and tokens (``_RoomyLayer``):
a decoding step writes one column instead of re-copying the whole cache, a row that joins is copied
into a spare row, and a row that leaves is replaced by the last one; the other rows stay where they
are. Prefill computes the logits of the last prompt position only. One step samples all its rows'
tokens in one batched pass (``sample_tokens``), each row from its own seeded generator.

A request whose prompt continues a cached prefix, arriving while rows are decoding, does not get a
prefill pass of its own: its new tokens ride along the next decoding step, in one ragged pass over
the decoding rows' tokens and the new prompts' tokens (``policy.ragged``): the linear layers run once
over all of them, attention piece by piece. The decoding rows do not wait a whole pass for it.

Decoding steps of more than one row, and prefill passes of up to ``PACKED_MAX_ROWS`` tokens, run the
linear layers on weights prepacked for oneDNN (CPU float32 models, see ``policy.packed``;
``pack_weights``): MKL re-packs every weight matrix on every such call. A one-row step stays on MKL's
matrix-vector path, which is faster than oneDNN's.

Models whose cache is not made of plain ``DynamicLayer`` s (sliding-window or hybrid caches) cannot
have rows spliced in; for them new requests are admitted only when the running batch has drained,
and there is no prefix caching.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import inspect
import logging
import random
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from policy.model import LoadedModel
from policy.packed import packed_linears
from policy.ragged import PLAN_KWARG, RaggedPlan, RaggedSegment, ragged_attention, ragged_supported
from verifier.llm import Completion, Usage
from verifier.types import Message

logger = logging.getLogger(__name__)

# An idle decoding thread exits after this long; the next request starts a new one.
IDLE_EXIT_S = 2.0
# Passes of up to this many token rows run on prepacked weights (see ``_packed_for``).
PACKED_MAX_ROWS = 256
# A cached prefix shorter than this is not worth a separate prefill pass.
MIN_PREFIX_TOKENS = 16
# One decoding step at a time per model, even when several clients share it.
_MODEL_LOCKS: weakref.WeakKeyDictionary[torch.nn.Module, threading.Lock] = weakref.WeakKeyDictionary()


# Clients whose decoding thread may be running; stopped before the interpreter exits (see below).
_LIVE_CLIENTS: weakref.WeakSet[LocalChatClient] = weakref.WeakSet()


def _model_lock(model: torch.nn.Module) -> threading.Lock:
    lock = _MODEL_LOCKS.get(model)
    if lock is None:
        lock = _MODEL_LOCKS.setdefault(model, threading.Lock())
    return lock


class ClientClosedError(RuntimeError):
    """The client was closed while the request was waiting or decoding."""


@dataclass
class _Request:
    prompt_ids: list[int]
    max_tokens: int
    temperature: float
    stop: list[str]
    seed: int
    future: asyncio.Future[Completion]
    loop: asyncio.AbstractEventLoop
    on_text: Callable[[str], None] | None = None  # streaming callback, called from the decoding thread
    generated: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    text: str = ""
    emitted: int = 0
    finish_reason: str | None = None
    generator: torch.Generator | None = None


class _RoomyLayer(DynamicLayer):
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
    def empty(cls, like: torch.Tensor, capacity: int, width: int) -> _RoomyLayer:
        """No rows yet; room for ``capacity`` rows of up to ``width`` tokens plus spare columns."""
        left = _room(width)
        shape = (capacity, like.shape[1], left + width + _room(width), like.shape[3])
        return cls(like.new_empty(shape), like.new_empty(shape), 0, left + width, left + width)

    @classmethod
    def stacked(cls, pieces: list[tuple[torch.Tensor, torch.Tensor]], width: int, capacity: int = 0) -> _RoomyLayer:
        """The rows of ``pieces`` (keys, values) in order, right-aligned to ``width`` tokens."""
        layer = cls.empty(pieces[0][0], max(capacity, sum(keys.shape[0] for keys, _ in pieces)), width)
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

    def join(self, pieces: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
        """Append the rows of ``pieces`` (keys, values), right-aligned to the window; see ``fits``."""
        start = min([self._start] + [self._end - keys.shape[2] for keys, _ in pieces])
        if start < self._start:  # the window widens to the left: zero padding there for the old rows
            self._keys[: self._rows, :, start : self._start].zero_()
            self._values[: self._rows, :, start : self._start].zero_()
            self._start = start
        row = self._rows
        for piece in pieces:
            n, end = piece[0].shape[2], row + piece[0].shape[0]
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


class _Batch:
    """The running batch: its requests, their attention mask and the shared KV cache."""

    def __init__(self, max_rows: int) -> None:
        self.max_rows = max_rows
        self.rows: list[_Request] = []
        self.attention: torch.Tensor | None = None  # [rows, width], 0 on left padding
        self.cache: Any = None

    def __len__(self) -> int:
        return len(self.rows)

    def keep(self, keep: list[int], *, spliceable: bool) -> None:
        """Drop every row not in ``keep`` and trim padding columns no remaining row needs. The order
        of the rows changes: the last rows move into the places of the dropped ones."""
        if len(keep) == len(self.rows):
            return
        if not keep:
            self.rows, self.attention, self.cache = [], None, None
            return
        if not spliceable:  # a cache we cannot trim by hand: let it select its own rows
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

    def extend(self, groups: list[tuple[list[_Request], torch.Tensor, Any]], *, spliceable: bool) -> None:
        """Add freshly prefilled rows (groups of rows, their attention mask and their cache) after the
        batch's rows, left-padding every row to one width; only the new rows are copied, unless the
        buffers run out of room."""
        if not self.rows and not spliceable and len(groups) == 1:
            self.rows, self.attention, self.cache = list(groups[0][0]), groups[0][1], groups[0][2]
            return
        added = sum(len(rows) for rows, _, _ in groups)
        width = max(attention.shape[1] for _, attention, _ in groups)
        pieces = [[(cache.layers[i].keys, cache.layers[i].values) for _, _, cache in groups] for i in range(len(groups[0][2].layers))]
        if self.rows:
            if not self.cache.layers[0].fits(added, width):
                capacity = _row_room(len(self.rows) + added, self.max_rows)
                for layer in self.cache.layers:
                    layer.rebuild(capacity, max(width, self.attention.shape[1]))
            for layer, layer_pieces in zip(self.cache.layers, pieces, strict=True):
                layer.join(layer_pieces)
        else:
            self.cache = groups[0][2]
            self.cache.layers = [_RoomyLayer.stacked(p, width, _row_room(added, self.max_rows)) for p in pieces]
        joined = ([self.attention] if self.rows else []) + [attention for _, attention, _ in groups]
        total = max(attention.shape[1] for attention in joined)
        self.attention = torch.cat([_pad_left(attention, total) for attention in joined])
        for rows, _, _ in groups:
            self.rows.extend(rows)


# A request whose prompt continues a cached prefix: the request, the prefix, how many tokens they share.
_Hit = tuple[_Request, "_Prefix", int]


def _pad_left(tensor: torch.Tensor, width: int, dim: int = 1) -> torch.Tensor:
    missing = width - tensor.shape[dim]
    if missing <= 0:
        return tensor
    shape = list(tensor.shape)
    shape[dim] = missing
    return torch.cat([tensor.new_zeros(shape), tensor], dim=dim)


@dataclass
class _Prefix:
    """The keys and values of ``tokens`` for every layer, shape [1, heads, len(tokens), head_dim]."""

    tokens: torch.Tensor  # 1-D, int64, on CPU
    layers: list[tuple[torch.Tensor, torch.Tensor]]
    nbytes: int


class _PrefixCache:
    """Least-recently-used KV caches of prompts and finished requests, looked up by longest common prefix."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.entries: collections.OrderedDict[int, _Prefix] = collections.OrderedDict()
        self.nbytes = 0
        self._next_key = 0

    def clear(self) -> None:
        self.entries.clear()
        self.nbytes = 0

    def add(self, tokens: list[int], layers: list[tuple[torch.Tensor, torch.Tensor]]) -> None:
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
        self.entries[self._next_key] = _Prefix(new, layers, nbytes)
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

    def longest(self, prompt: list[int]) -> tuple[_Prefix, int] | None:
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


def sample_token(logits: torch.Tensor, temperature: float, top_p: float, generator: torch.Generator) -> int:
    """One token from 1-D ``logits``: greedy at temperature 0, else softmax(logits / T) within top-p."""
    return sample_tokens(logits[None], [temperature], top_p, [generator])[0]


def sample_tokens(
    logits: torch.Tensor, temperatures: list[float], top_p: float, generators: list[torch.Generator | None]
) -> list[int]:
    """One token per row of ``logits`` ([rows, vocab]), as ``sample_token`` draws it for the row alone
    (the same draw from the row's generator), in one batched pass over the vocabulary."""
    tokens = logits.argmax(dim=-1).tolist()  # temperature 0: greedy
    sampled = [row for row, temperature in enumerate(temperatures) if temperature > 0]
    if not sampled:
        return tokens
    scale = torch.tensor([temperatures[row] for row in sampled], dtype=logits.dtype)[:, None]
    probs = torch.softmax(logits[sampled] / scale, dim=-1)
    if top_p < 1.0:
        sorted_probs, order = torch.sort(probs, dim=-1, descending=True)
        keep = sorted_probs.cumsum(-1) - sorted_probs < top_p
        probs = torch.zeros_like(probs).scatter(1, order, sorted_probs * keep)
    # Inverse-CDF sampling: torch.multinomial's distribution; over a 49k vocabulary one row takes
    # ~0.3 ms here, multinomial alone ~2 ms.
    cdf = probs.cumsum(-1)
    draws = torch.stack([torch.rand((), generator=generators[row]) for row in sampled]) * cdf[:, -1]
    picks = torch.searchsorted(cdf, draws[:, None], right=True)[:, 0].clamp(max=cdf.shape[-1] - 1)
    for row, token in zip(sampled, picks.tolist(), strict=True):
        tokens[row] = token
    return tokens


def _shared(a: list[int], b: list[int]) -> int:
    """How many tokens ``a`` and ``b`` share at their start."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _spliceable(cache: Any) -> bool:
    layers = getattr(cache, "layers", None)
    return bool(layers) and all(type(layer) is DynamicLayer for layer in layers)


class LocalChatClient:
    """Continuously batched generation on a local transformers model (CPU or GPU)."""

    def __init__(
        self,
        loaded: LoadedModel,
        *,
        max_batch_size: int = 8,
        batch_wait_ms: float = 5.0,
        top_p: float = 1.0,
        system_prompt: str | None = None,
        prefix_cache_mb: float = 1024.0,
        pack_weights: bool | None = None,
        fuse_prefills: bool = True,
    ) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size}")
        if prefix_cache_mb < 0:
            raise ValueError(f"prefix_cache_mb must be >= 0 (0 disables prefix caching), got {prefix_cache_mb}")
        self.loaded = loaded
        self.model = loaded.name
        self.max_batch_size = max_batch_size
        self.batch_wait_ms = batch_wait_ms
        self.top_p = top_p
        self.system_prompt = system_prompt
        tokenizer = loaded.tokenizer
        self._tokenizer = tokenizer
        eos = {tokenizer.eos_token_id}
        gen_eos = getattr(loaded.model.generation_config, "eos_token_id", None)
        eos.update(gen_eos if isinstance(gen_eos, list) else [gen_eos])
        im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
        if isinstance(im_end, int) and im_end != tokenizer.unk_token_id:
            eos.add(im_end)
        self._eos_ids = {i for i in eos if i is not None}
        self._max_positions = getattr(loaded.model.config, "max_position_embeddings", 2048)
        # transformers 5.x renamed ``past_key_values`` to ``cache``; support both.
        params = inspect.signature(loaded.model.forward).parameters
        self._cache_arg = "cache" if "cache" in params else "past_key_values"
        # Prefill needs the logits of the last prompt position only (a fifth of a 135M model's compute).
        self._last_logits = {"logits_to_keep": 1} if "logits_to_keep" in params else {}
        self._spliceable: bool | None = None  # learnt from the first cache the model returns
        self._inbox: collections.deque[_Request] = collections.deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._seed_rng = random.Random(0)
        self._prefixes = _PrefixCache(int(prefix_cache_mb * 2**20))
        self._weights_version: int | None = None
        # Passes of 2..PACKED_MAX_ROWS token rows run on prepacked weights (policy.packed); None = auto.
        self._packed = packed_linears(loaded.model, pack_weights)
        # Prefills of prompts continuing a cached prefix ride along decoding steps (policy.ragged).
        self._fuse_prefills = fuse_prefills and ragged_supported(loaded.model)
        # Counters for tests, /metrics and benchmarks.
        self.forward_passes = 0  # prefill passes + decoding steps
        self.batches = 0  # prefill passes (groups of requests admitted together)
        self.admitted: list[int] = []  # requests admitted per prefill pass
        self.batch_sizes: list[int] = []  # active rows in each decoding step
        self.generated_tokens = 0
        self.prompt_tokens = 0  # prompt tokens of admitted requests
        self.prefix_hit_tokens = 0  # of those, served from the prefix cache instead of prefilled
        self.fused_prefills = 0  # prompts prefilled in a ragged pass (along decoding rows or each other)
        self.prefill_seconds = 0.0  # wall time in prefill passes (ragged passes without decoding rows too)
        self.decode_seconds = 0.0  # wall time in decoding steps (ragged passes with decoding rows too)

    # ------------------------------------------------------------------ public API
    @classmethod
    def from_spec(cls, spec: str = "embedded", **kwargs: object) -> LocalChatClient:
        from policy.model import load_model

        return cls(load_model(spec), **kwargs)  # type: ignore[arg-type]

    def render_prompt(self, messages: list[Message]) -> list[int]:
        chat = [{"role": m.role, "content": m.content} for m in messages]
        if self.system_prompt and (not chat or chat[0]["role"] != "system"):
            chat.insert(0, {"role": "system", "content": self.system_prompt})
        ids = self._tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)

    @property
    def queue_depth(self) -> int:
        """Requests waiting for a slot in the running batch."""
        return len(self._inbox)

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        request = self._make_request(messages, max_tokens, temperature, stop, seed, on_text=None)
        self._submit(request)
        return await request.future

    async def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str]:
        """Yield text pieces as they are decoded; the request still shares batches with others."""
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def on_text(piece: str) -> None:
            loop.call_soon_threadsafe(pieces.put_nowait, piece)

        request = self._make_request(messages, max_tokens, temperature, stop, seed, on_text=on_text)
        request.future.add_done_callback(lambda _: pieces.put_nowait(None))
        self._submit(request)
        while (piece := await pieces.get()) is not None:
            if piece:
                yield piece
        request.future.result()  # re-raise a generation error

    async def aclose(self) -> None:
        """Stop the decoding thread; requests still waiting or decoding fail with ``ClientClosedError``."""
        with self._cond:
            self._closed = True
            thread = self._thread
            self._cond.notify_all()
        if thread is not None:
            await asyncio.to_thread(thread.join)
        with self._cond:
            waiting = list(self._inbox)
            self._inbox.clear()
            self._closed = False  # a closed client can be used again; it starts a new thread
        for request in waiting:
            self._fail(request, ClientClosedError("the client was closed before the request ran"))

    # ------------------------------------------------------------------ queueing
    def _make_request(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
        seed: int | None,
        on_text: Callable[[str], None] | None,
    ) -> _Request:
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        if not messages:
            raise ValueError("messages must not be empty")
        prompt_ids = self.render_prompt(messages)
        if len(prompt_ids) + max_tokens > self._max_positions:
            raise ValueError(
                f"prompt of {len(prompt_ids)} tokens plus max_tokens={max_tokens} exceeds the model's "
                f"context of {self._max_positions} tokens"
            )
        loop = asyncio.get_running_loop()
        return _Request(
            prompt_ids=prompt_ids,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=[s for s in (stop or []) if s],
            seed=seed if seed is not None else self._seed_rng.randrange(2**31),
            future=loop.create_future(),
            loop=loop,
            on_text=on_text,
        )

    def _submit(self, request: _Request) -> None:
        with self._cond:
            self._inbox.append(request)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="LocalChatClient-decode", daemon=True)
                self._thread.start()
                _LIVE_CLIENTS.add(self)
            self._cond.notify_all()

    def _take(self, free: int, idle: bool) -> list[_Request] | None:
        """Up to ``free`` waiting requests; None when the thread should exit (closed, or idle too long).

        An idle thread blocks for the first request, then waits ``batch_wait_ms`` for stragglers; a
        busy one takes whatever is waiting without delaying the running rows.
        """
        with self._cond:
            if self._closed:
                self._thread = None
                return None
            if idle:
                while not self._inbox:
                    timed_out = not self._cond.wait(timeout=IDLE_EXIT_S)
                    if self._closed or (timed_out and not self._inbox):
                        self._thread = None
                        return None
                deadline = time.monotonic() + self.batch_wait_ms / 1000
                while len(self._inbox) < free and (left := deadline - time.monotonic()) > 0:
                    self._cond.wait(timeout=left)
            taken = [self._inbox.popleft() for _ in range(min(free, len(self._inbox)))]
        return [r for r in taken if not r.future.cancelled()]

    # ------------------------------------------------------------------ the decoding thread
    def _run(self) -> None:
        batch = _Batch(self.max_batch_size)
        with torch.inference_mode():
            while True:
                can_join = not batch or self._spliceable is not False
                free = self.max_batch_size - len(batch) if can_join else 0
                new = self._take(free, idle=not batch)
                if new is None:
                    for request in batch.rows:
                        self._fail(request, ClientClosedError("the client was closed while decoding"))
                    return
                try:
                    with _model_lock(self.loaded.model):
                        riders: list[_Hit] = []
                        if new:
                            started = time.perf_counter()
                            riders = self._prefill(batch, new)
                            self.prefill_seconds += time.perf_counter() - started
                        if batch or riders:
                            started, decoding = time.perf_counter(), len(batch)
                            if riders:
                                self._ragged_step(batch, riders)
                            else:
                                self._step(batch)
                            elapsed = time.perf_counter() - started
                            if decoding:
                                self.decode_seconds += elapsed
                            else:
                                self.prefill_seconds += elapsed
                except Exception as exc:  # a failed step fails its requests, not the thread
                    logger.exception("generation failed for %d requests", len(batch) + len(new))
                    for request in {id(r): r for r in [*batch.rows, *new]}.values():
                        self._fail(request, exc)
                    batch = _Batch(self.max_batch_size)

    def _prefill(self, batch: _Batch, new: list[_Request]) -> list[_Hit]:
        """Prefill the new requests and admit them into the running batch.

        Requests whose prompt starts like a cached prefix prefill only the rest. When rows are decoding
        (or several such requests arrive together) they are returned instead, to ride along the next
        decoding step in one ragged pass (``policy.ragged``); otherwise they are prefilled here, one by
        one. The others are prefilled together — except that a request sharing its start with another
        fresh one (16 consultations opening with the same system prompt) waits for that one's prompt to
        be cached and then prefills only what differs.
        """
        self._drop_stale_prefixes()
        leaders: list[_Request] = []
        followers: list[_Request] = []
        hits: list[_Hit] = []
        for request in new:
            request.generator = torch.Generator().manual_seed(request.seed)
            self.prompt_tokens += len(request.prompt_ids)
            hit = self._prefixes.longest(request.prompt_ids) if self._spliceable else None
            if hit is not None:
                hits.append((request, *hit))
            elif self._may_cache and any(_shared(request.prompt_ids, r.prompt_ids) >= MIN_PREFIX_TOKENS for r in leaders):
                followers.append(request)
            else:
                leaders.append(request)
        groups: list[tuple[list[_Request], torch.Tensor, Any, torch.Tensor]] = []
        if leaders:
            groups.append(self._prefill_fresh(leaders))
        missed = []
        for request in followers:
            hit = self._prefixes.longest(request.prompt_ids) if self._spliceable else None
            if hit is None:
                missed.append(request)
            else:
                hits.append((request, *hit))
        if missed:
            groups.append(self._prefill_fresh(missed))
        self.batches += 1
        self.admitted.append(len(new))
        ride = self._fuse_prefills and bool(hits) and (len(batch) + sum(len(rows) for rows, *_ in groups) > 0 or len(hits) > 1)
        if not ride:
            groups.extend(self._prefill_from_prefix(*hit) for hit in hits)
        if groups:
            first = len(batch)
            batch.extend([(rows, attention, cache) for rows, attention, cache, _ in groups], spliceable=bool(self._spliceable))
            self._sample_rows(batch, torch.cat([logits for *_, logits in groups]), first=first)
        return hits if ride else []

    @property
    def _caching(self) -> bool:
        return bool(self._spliceable) and self._prefixes.max_bytes > 0

    @property
    def _may_cache(self) -> bool:  # before the first prefill we do not know yet whether the cache splices
        return self._spliceable is not False and self._prefixes.max_bytes > 0

    def _prefill_fresh(self, new: list[_Request]) -> tuple[list[_Request], torch.Tensor, Any, torch.Tensor]:
        model = self.loaded.model
        device = next(model.parameters()).device
        pad_id = self._tokenizer.pad_token_id if self._tokenizer.pad_token_id is not None else 0
        width = max(len(r.prompt_ids) for r in new)
        input_ids = torch.full((len(new), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(new), width), dtype=torch.long)
        for row, request in enumerate(new):
            n = len(request.prompt_ids)
            input_ids[row, width - n :] = torch.tensor(request.prompt_ids)
            attention[row, width - n :] = 1
        input_ids, attention = input_ids.to(device), attention.to(device)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        with self._packed_for(input_ids.numel()):
            out = model(input_ids=input_ids, attention_mask=attention, position_ids=positions, use_cache=True, **self._last_logits)
        self.forward_passes += 1
        cache = self._cache_of(out)
        if self._spliceable is None:
            self._spliceable = _spliceable(cache)
        if self._caching:  # the prompts' keys and values serve later prompts with the same start
            for row, request in enumerate(new):
                self._remember(cache, row, request.prompt_ids, width)
        return new, attention, cache, out.logits[:, -1, :]

    def _prefill_from_prefix(
        self, request: _Request, prefix: _Prefix, shared: int
    ) -> tuple[list[_Request], torch.Tensor, Any, torch.Tensor]:
        """Prefill only the tokens after the ``shared`` ones whose keys and values are cached."""
        model = self.loaded.model
        device = next(model.parameters()).device
        cache = DynamicCache([(k[:, :, :shared, :], v[:, :, :shared, :]) for k, v in prefix.layers])
        n = len(request.prompt_ids)
        input_ids = torch.tensor([request.prompt_ids[shared:]], dtype=torch.long, device=device)
        attention = torch.ones((1, n), dtype=torch.long, device=device)
        positions = torch.arange(shared, n, device=device).unsqueeze(0)
        with self._packed_for(input_ids.numel()):
            out = model(
                input_ids=input_ids, attention_mask=attention, position_ids=positions, use_cache=True,
                **{self._cache_arg: cache}, **self._last_logits,
            )
        self.forward_passes += 1
        self.prefix_hit_tokens += shared
        return [request], attention, self._cache_of(out, default=cache), out.logits[:, -1, :]

    def _cache_of(self, out: Any, default: Any = None) -> Any:
        cache = getattr(out, self._cache_arg, None)
        if cache is None:
            cache = getattr(out, "past_key_values", None)
        return cache if cache is not None else default

    def _drop_stale_prefixes(self) -> None:
        """Cached keys and values are only valid for the weights that computed them."""
        version = sum(p._version for p in self.loaded.model.parameters())
        if version != self._weights_version:
            self._prefixes.clear()
            self._weights_version = version

    def _keep_prefix(self, batch: _Batch, row: int, request: _Request) -> None:
        """Remember the keys and values of a finished row's tokens (prompt + all but the last generated)."""
        if self._caching:
            self._remember(batch.cache, row, request.prompt_ids + request.generated[:-1], batch.attention.shape[1])

    def _remember(self, cache: Any, row: int, tokens: list[int], width: int) -> None:
        """Cache the keys and values of ``tokens``, the last ones of ``row`` in a cache ``width`` wide."""
        if self._prefixes.covers(tokens):  # already held by a longer entry: skip the copy
            return
        n = len(tokens)
        layers = [
            (layer.keys[row : row + 1, :, width - n : width, :].clone(), layer.values[row : row + 1, :, width - n : width, :].clone())
            for layer in cache.layers
        ]
        self._prefixes.add(tokens, layers)

    def _packed_for(self, rows: int) -> contextlib.AbstractContextManager[None]:
        """Prepacked weights for a pass of ``rows`` token rows, where they are faster than MKL: one row
        goes through MKL's matrix-vector path, which does not re-pack; from a few hundred rows on, MKL's
        packing is paid off by the arithmetic (all 211 linears of the embedded model, 64 rows: 261 ms
        plain vs 232 ms packed; 256 rows: 762 vs 747 ms)."""
        if self._packed is None or not 1 < rows <= PACKED_MAX_ROWS:
            return contextlib.nullcontext()
        return self._packed.active()

    def _step(self, batch: _Batch) -> None:
        model = self.loaded.model
        device = batch.attention.device
        step_ids = torch.tensor([[r.generated[-1]] for r in batch.rows], dtype=torch.long, device=device)
        batch.attention = torch.cat([batch.attention, batch.attention.new_ones((len(batch), 1))], dim=1)
        positions = (batch.attention.cumsum(-1) - 1)[:, -1:]
        self.batch_sizes.append(len(batch))
        with self._packed_for(len(batch)):
            out = model(
                input_ids=step_ids,
                attention_mask=batch.attention,
                position_ids=positions,
                use_cache=True,
                **{self._cache_arg: batch.cache},
            )
        self.forward_passes += 1
        batch.cache = self._cache_of(out, default=batch.cache)
        self._sample_rows(batch, out.logits[:, -1, :], first=0)

    def _ragged_step(self, batch: _Batch, riders: list[_Hit]) -> None:
        """One pass that decodes a token for every row of ``batch`` and prefills ``riders`` (each after
        its cached prefix); the riders then join the batch."""
        model = self.loaded.model
        device = next(model.parameters()).device
        rows = len(batch)
        ids: list[int] = []
        positions: list[torch.Tensor] = []
        row_mask = None
        if rows:
            ids = [r.generated[-1] for r in batch.rows]
            batch.attention = torch.cat([batch.attention, batch.attention.new_ones((rows, 1))], dim=1)
            positions.append((batch.attention.cumsum(-1) - 1)[:, -1].cpu())
            row_mask = batch.attention.bool()[:, None, None, :]
            self.batch_sizes.append(rows)
        keep = list(range(rows))
        segments = []
        for request, prefix, shared in riders:
            n = len(request.prompt_ids)
            cache = DynamicCache([(k[:, :, :shared, :], v[:, :, :shared, :]) for k, v in prefix.layers])
            segments.append(RaggedSegment(cache, prefix=shared, length=n - shared))
            ids.extend(request.prompt_ids[shared:])
            positions.append(torch.arange(shared, n))
            keep.append(len(ids) - 1)
            self.prefix_hit_tokens += shared
        plan = RaggedPlan(rows, batch.cache if rows else None, row_mask, segments)
        with self._packed_for(len(ids)), ragged_attention(model):
            out = model(
                input_ids=torch.tensor([ids], dtype=torch.long, device=device),
                position_ids=torch.cat(positions).unsqueeze(0).to(device),
                use_cache=False,
                logits_to_keep=torch.tensor(keep, device=device),
                **{PLAN_KWARG: plan},
            )
        self.forward_passes += 1
        if len(plan.layers_seen) != len(segments[0].cache.layers):
            self._fuse_prefills = False
            if plan.layers_seen:  # some layers' caches took the tokens, others did not: nothing to rescue
                raise RuntimeError(
                    f"{type(model).__name__} sent {len(plan.layers_seen)} of {len(segments[0].cache.layers)} layers "
                    "through the ragged pass; prefills now run on their own"
                )
            # No layer took the ragged path (the model does not dispatch attention through transformers'
            # interface, or passes arguments it does not model), so no cache was touched: take the step
            # back and run it the plain way (prefill passes, then a decoding step).
            logger.warning("%s did not take the ragged pass; prefills now run on their own", type(model).__name__)
            if rows:
                batch.attention = batch.attention[:, :-1]
                self.batch_sizes.pop()
            self.prefix_hit_tokens -= sum(shared for *_, shared in riders)
            groups = [self._prefill_from_prefix(*hit) for hit in riders]
            batch.extend([(joined, attention, cache) for joined, attention, cache, _ in groups], spliceable=True)
            self._sample_rows(batch, torch.cat([logits for *_, logits in groups]), first=rows)
            if batch:
                self._step(batch)
            return
        self.fused_prefills += len(riders)
        ones = [torch.ones((1, len(r.prompt_ids)), dtype=torch.long, device=device) for r, *_ in riders]
        batch.extend(
            [([request], attention, segment.cache) for (request, *_), attention, segment in zip(riders, ones, segments, strict=True)],
            spliceable=True,
        )
        self._sample_rows(batch, out.logits[0], first=0)

    def _sample_rows(self, batch: _Batch, logits: torch.Tensor, *, first: int) -> None:
        """Sample the next token of rows ``first..``; finished or cancelled rows leave the batch."""
        logits = logits.float().cpu()
        logprobs = torch.log_softmax(logits, dim=-1)
        requests = batch.rows[first:]
        tokens = sample_tokens(logits, [r.temperature for r in requests], self.top_p, [r.generator for r in requests])
        chosen = logprobs[torch.arange(len(tokens)), tokens].tolist()
        for request, token, logprob in zip(requests, tokens, chosen, strict=True):
            request.generated.append(token)
            request.logprobs.append(logprob)
            self.generated_tokens += 1
            self._after_token(request, token)
        keep = []
        for row, request in enumerate(batch.rows):
            if request.finish_reason is not None:
                self._keep_prefix(batch, row, request)
                self._finish(request)
            elif not request.future.cancelled():
                keep.append(row)
        batch.keep(keep, spliceable=bool(self._spliceable))

    def _after_token(self, request: _Request, token: int) -> None:
        if token in self._eos_ids:
            request.finish_reason = "stop"
            request.text = self._tokenizer.decode(request.generated[:-1], skip_special_tokens=True)
            self._emit(request, final=True)
            return
        if len(request.generated) >= request.max_tokens:
            request.finish_reason = "length"
        if request.stop or request.on_text is not None or request.finish_reason:
            request.text = self._tokenizer.decode(request.generated, skip_special_tokens=True)
            for stop in request.stop:
                index = request.text.find(stop)
                if index >= 0:
                    request.text = request.text[:index]
                    request.finish_reason = "stop"
                    break
            self._emit(request, final=request.finish_reason is not None)

    def _emit(self, request: _Request, *, final: bool) -> None:
        """Stream new text, holding back a tail that could be the start of a stop string."""
        if not request.text and request.generated and request.finish_reason:
            request.text = self._tokenizer.decode(
                [t for t in request.generated if t not in self._eos_ids], skip_special_tokens=True
            )
        if request.on_text is None:
            return
        safe = len(request.text)
        if not final:
            hold = max((len(s) - 1 for s in request.stop), default=0)
            safe = max(request.emitted, len(request.text) - hold)
            if request.text.endswith("\ufffd"):  # an incomplete multi-byte character
                safe = min(safe, len(request.text) - 1)
        if safe > request.emitted:
            request.on_text(request.text[request.emitted : safe])
            request.emitted = safe

    # ------------------------------------------------------------------ handing results back
    def _finish(self, request: _Request) -> None:
        completion = Completion(
            text=request.text,
            tokens=request.generated,
            finish_reason=request.finish_reason or "length",
            logprobs=request.logprobs,
            usage=Usage(prompt_tokens=len(request.prompt_ids), completion_tokens=len(request.generated)),
        )
        self._settle(request, lambda f: f.set_result(completion))

    def _fail(self, request: _Request, exc: BaseException) -> None:
        self._settle(request, lambda f: f.set_exception(exc))

    @staticmethod
    def _settle(request: _Request, action: Callable[[asyncio.Future[Completion]], None]) -> None:
        def settle() -> None:
            if not request.future.done():
                action(request.future)

        try:
            request.loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the caller's event loop is closed: nobody is waiting any more
            pass


@atexit.register
def _stop_decoding_threads() -> None:
    """Let every decoding thread leave torch before the interpreter exits.

    The thread keeps working after it hands a reply back (it caches the request's prefix in torch);
    a daemon thread still inside torch while the interpreter tears down can abort the process
    ("terminate called without an active exception", exit -6), so a script that exits right after a
    reply without ``aclose()`` used to fail now and then. atexit runs before daemon threads are
    frozen; each thread finishes its current step, sees ``_closed`` and returns.
    """
    threads = []
    for client in list(_LIVE_CLIENTS):
        with client._cond:
            client._closed = True
            if client._thread is not None:
                threads.append(client._thread)
            client._cond.notify_all()
    for thread in threads:
        thread.join(timeout=30)
