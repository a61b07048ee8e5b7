"""The model's forward passes: prefills, decoding steps and ragged passes, and how to call the model.

How this model is called is learnt once, when the engine is built (``ModelTraits``): the name of its
cache argument, whether it can compute the logits of the last position only, whether its cache can
have rows spliced in and out (one tiny forward), and whether ragged passes serve it (the interface
and config, then one tiny probe pass, see ``policy.engine.ragged``). Nothing is decided again later.

Decoding steps of more than one row, and prefill passes of up to ``PACKED_MAX_ROWS`` tokens, run the
linear layers on weights prepacked for oneDNN (CPU float32 models, ``policy.engine.packed``): MKL
re-packs every weight matrix on every such call. A one-row step stays on MKL's matrix-vector path,
which is faster than oneDNN's.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import logging
import weakref
from dataclasses import dataclass
from typing import Any

import torch

from policy.engine.device import on_own_thread
from policy.engine.kv import Prefilled, RunningBatch, spliceable
from policy.engine.packed import PackedLinears
from policy.engine.prefix import Hit
from policy.engine.ragged import (
    PLAN_KWARG,
    RaggedPlan,
    RaggedSegment,
    attention_configs,
    ragged_attention,
    ragged_unsupported,
)
from policy.engine.request import Request
from policy.engine.stats import EngineStats

logger = logging.getLogger(__name__)

# Passes of up to this many token rows run on prepacked weights (see ``ForwardPasses.packed_for``).
PACKED_MAX_ROWS = 256
# What was learnt about each model, by what it depends on (see ``ModelTraits.learn``).
_LEARNT: weakref.WeakKeyDictionary[torch.nn.Module, dict[tuple[object, ...], ModelTraits]] = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class ModelTraits:
    """How the engine calls this model, learnt once at construction."""

    cache_arg: str  # transformers 5.x renamed ``past_key_values`` to ``cache``
    last_logits: bool  # the forward takes ``logits_to_keep``
    spliceable: bool  # its cache is plain ``DynamicLayer`` s: rows can join a running batch
    ragged: bool  # prompts continuing a cached prefix can ride along decoding steps
    ragged_off_because: str | None = None

    @classmethod
    def learn(cls, model: torch.nn.Module, *, want_ragged: bool) -> ModelTraits:
        """What ``model`` supports, probed with one or two one-token passes the first time (the caller
        holds the model: no other forward of it runs meanwhile), then remembered for the model as long
        as its device, dtype and attention implementation stay (clients are built per training step)."""
        weight = next(model.parameters())
        implementations = tuple(getattr(c, "_attn_implementation", None) for c in attention_configs(model))
        key = (str(weight.device), weight.dtype, want_ragged, implementations)
        learnt = _LEARNT.setdefault(model, {})
        if key not in learnt:  # on a thread that ends (see ``policy.engine.device.on_own_thread``)
            learnt[key] = on_own_thread(functools.partial(cls._probe, model, want_ragged=want_ragged))
        return learnt[key]

    @classmethod
    def _probe(cls, model: torch.nn.Module, *, want_ragged: bool) -> ModelTraits:
        params = inspect.signature(model.forward).parameters
        cache_arg = "cache" if "cache" in params else "past_key_values"
        device = next(model.parameters()).device
        with torch.inference_mode():  # the cache a prefill makes: one token's
            cache = _cache_of(model(input_ids=torch.zeros((1, 1), dtype=torch.long, device=device), use_cache=True), cache_arg)
        splices = spliceable(cache)
        if not want_ragged:
            reason = "turned off (fuse_prefills=False)"
        elif not splices:
            reason = "its cache cannot have rows spliced in"
        else:
            reason = ragged_unsupported(model, cache)
            if reason:
                logger.warning("%s: prefills run on their own: %s", type(model).__name__, reason)
        return cls(
            cache_arg=cache_arg,
            last_logits="logits_to_keep" in params,
            spliceable=splices,
            ragged=reason is None,
            ragged_off_because=reason,
        )


def _cache_of(out: Any, cache_arg: str, default: Any = None) -> Any:
    cache = getattr(out, cache_arg, None)
    if cache is None:
        cache = getattr(out, "past_key_values", None)
    return cache if cache is not None else default


class ForwardPasses:
    """Runs each kind of pass on the model and counts it in ``stats``; the caller holds the model."""

    def __init__(
        self, model: torch.nn.Module, traits: ModelTraits, packed: PackedLinears | None, pad_id: int, stats: EngineStats
    ) -> None:
        self.model = model
        self.traits = traits
        self.packed = packed
        self.pad_id = pad_id
        self.stats = stats
        self.device = next(model.parameters()).device
        # Prefill needs the logits of the last prompt position only (a fifth of a 135M model's compute).
        self._last_logits = {"logits_to_keep": 1} if traits.last_logits else {}

    def packed_for(self, rows: int) -> contextlib.AbstractContextManager[None]:
        """Prepacked weights for a pass of ``rows`` token rows, where they are faster than MKL: one row
        goes through MKL's matrix-vector path, which does not re-pack; from a few hundred rows on, MKL's
        packing is paid off by the arithmetic (all 211 linears of the embedded model, 64 rows: 261 ms
        plain vs 232 ms packed; 256 rows: 762 vs 747 ms)."""
        if self.packed is None or not 1 < rows <= PACKED_MAX_ROWS:
            return contextlib.nullcontext()
        return self.packed.active()

    def fresh(self, new: list[Request]) -> Prefilled:
        """Prefill ``new`` from scratch in one pass, left-padded to the longest prompt."""
        width = max(len(r.prompt_ids) for r in new)
        input_ids = torch.full((len(new), width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((len(new), width), dtype=torch.long)
        for row, request in enumerate(new):
            n = len(request.prompt_ids)
            input_ids[row, width - n :] = torch.tensor(request.prompt_ids)
            attention[row, width - n :] = 1
        input_ids, attention = input_ids.to(self.device), attention.to(self.device)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)
        with self.packed_for(input_ids.numel()):
            out = self.model(input_ids=input_ids, attention_mask=attention, position_ids=positions, use_cache=True, **self._last_logits)
        self.stats.forward_passes += 1
        return Prefilled(new, attention, _cache_of(out, self.traits.cache_arg), out.logits[:, -1, :])

    def from_prefix(self, hit: Hit) -> Prefilled:
        """Prefill only the tokens after the ``shared`` ones whose keys and values are cached."""
        request, shared = hit.request, hit.shared
        cache = hit.cache()
        n = len(request.prompt_ids)
        input_ids = torch.tensor([request.prompt_ids[shared:]], dtype=torch.long, device=self.device)
        attention = torch.ones((1, n), dtype=torch.long, device=self.device)
        positions = torch.arange(shared, n, device=self.device).unsqueeze(0)
        with self.packed_for(input_ids.numel()):
            out = self.model(
                input_ids=input_ids, attention_mask=attention, position_ids=positions, use_cache=True,
                **{self.traits.cache_arg: cache}, **self._last_logits,
            )
        self.stats.forward_passes += 1
        self.stats.prefix_hit_tokens += shared
        return Prefilled([request], attention, _cache_of(out, self.traits.cache_arg, default=cache), out.logits[:, -1, :])

    def decode(self, batch: RunningBatch) -> torch.Tensor:
        """One token for every row of ``batch``; the next-token logits, [rows, vocab]."""
        step_ids = torch.tensor([[r.generated[-1]] for r in batch.rows], dtype=torch.long, device=batch.attention.device)
        batch.attention = torch.cat([batch.attention, batch.attention.new_ones((len(batch), 1))], dim=1)
        positions = (batch.attention.cumsum(-1) - 1)[:, -1:]
        self.stats.batch_sizes.append(len(batch))
        with self.packed_for(len(batch)):
            out = self.model(
                input_ids=step_ids,
                attention_mask=batch.attention,
                position_ids=positions,
                use_cache=True,
                **{self.traits.cache_arg: batch.cache},
            )
        self.stats.forward_passes += 1
        batch.cache = _cache_of(out, self.traits.cache_arg, default=batch.cache)
        return out.logits[:, -1, :]

    def ragged(self, batch: RunningBatch, riders: list[Hit]) -> tuple[torch.Tensor, list[Prefilled]]:
        """One pass that decodes a token for every row of ``batch`` and prefills ``riders`` (each after
        its cached prefix). The logits ([rows + riders, vocab]: the rows', then each rider's last
        position) and the riders, prefilled, to join the batch."""
        rows = len(batch)
        ids: list[int] = []
        positions: list[torch.Tensor] = []
        row_mask = None
        if rows:
            ids = [r.generated[-1] for r in batch.rows]
            batch.attention = torch.cat([batch.attention, batch.attention.new_ones((rows, 1))], dim=1)
            positions.append((batch.attention.cumsum(-1) - 1)[:, -1].cpu())
            row_mask = batch.attention.bool()[:, None, None, :]
            self.stats.batch_sizes.append(rows)
        keep = list(range(rows))
        segments = []
        for hit in riders:
            n = len(hit.request.prompt_ids)
            segments.append(RaggedSegment(hit.cache(), prefix=hit.shared, length=n - hit.shared))
            ids.extend(hit.request.prompt_ids[hit.shared :])
            positions.append(torch.arange(hit.shared, n))
            keep.append(len(ids) - 1)
            self.stats.prefix_hit_tokens += hit.shared
        plan = RaggedPlan(rows, batch.cache if rows else None, row_mask, segments)
        with self.packed_for(len(ids)), ragged_attention(self.model):
            out = self.model(
                input_ids=torch.tensor([ids], dtype=torch.long, device=self.device),
                position_ids=torch.cat(positions).unsqueeze(0).to(self.device),
                use_cache=False,
                logits_to_keep=torch.tensor(keep, device=self.device),
                **{PLAN_KWARG: plan},
            )
        self.stats.forward_passes += 1
        layers = len(segments[0].cache.layers)
        if len(plan.layers_seen) != layers:  # the construction probe passed: the model changed since
            raise RuntimeError(
                f"{type(self.model).__name__} sent {len(plan.layers_seen)} of {layers} layers through the ragged "
                "pass, though it took it when the client was built; the step's requests fail"
            )
        self.stats.fused_prefills += len(riders)
        joined = [
            Prefilled([hit.request], torch.ones((1, len(hit.request.prompt_ids)), dtype=torch.long, device=self.device), segment.cache)
            for hit, segment in zip(riders, segments, strict=True)
        ]
        return out.logits[0], joined
