"""Ragged passes: one forward for the decoding rows of the running batch and prompts being prefilled.

In a consultation batch, requests keep arriving: every new turn continues a prompt whose start is in
the prefix cache, so it needs a short prefill (the other side's message and the chat template, tens
of tokens). Run as its own pass, that prefill holds every decoding row back for a whole forward of
the model. Here it rides along instead: the decoding rows (one token each) and the new prompts
(several tokens each) are laid out as one sequence of tokens, so the linear layers, norms and MLPs —
nearly all of the work for a small model — run once over all of them. Only attention is done piece
by piece: the decoding rows against the running batch's cache (one ``sdpa`` call for all of them,
padding masked), each prompt against its own cached prefix (causal).

The attention piece is an ``AttentionInterface`` function registered under ``RAGGED``; a model uses
it while ``ragged_attention(model)`` is active, for passes that carry a ``RaggedPlan`` (any other pass
goes to ``sdpa`` as usual). Supported: models that dispatch through transformers' attention
interface with ``sdpa`` attention (Llama, Qwen, SmolLM and most decoder-only models) and pass it no
argument the pass does not model (a sliding window, soft-capping, sinks). Whether a model is served
so is decided once, when the engine is built (``ragged_unsupported``: the interface and the config,
then one tiny probe pass); an engine that found it unsupported never tries.

Measured on the 2-core machine with the embedded model: 8 decoding rows with a 400-token cache plus a
50-token prompt continuing a 400-token prefix took 240 ms fused against 280–310 ms as two passes.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward

RAGGED = "medverifier_ragged"
PLAN_KWARG = "medverifier_ragged_plan"
_CONFIGS: weakref.WeakKeyDictionary[torch.nn.Module, list[Any]] = weakref.WeakKeyDictionary()
# Attention arguments some models pass that the ragged pass does not implement.
_UNSUPPORTED = ("sliding_window", "softcap", "s_aux", "sinks", "position_bias")


@dataclass
class RaggedSegment:
    """A prompt continuing a cached prefix: ``cache`` holds the prefix; ``length`` new tokens follow."""

    cache: Any  # a transformers Cache of batch size 1, extended in place by the pass
    prefix: int
    length: int
    mask: torch.Tensor = field(init=False)  # [1, 1, length, prefix + length], True where attended

    def __post_init__(self) -> None:
        device = self.cache.layers[0].keys.device
        keys = torch.arange(self.prefix + self.length, device=device)
        queries = self.prefix + torch.arange(self.length, device=device)
        self.mask = (keys[None, :] <= queries[:, None])[None, None]


@dataclass
class RaggedPlan:
    """The layout of one ragged pass: ``rows`` decoding tokens first, then each segment's tokens."""

    rows: int
    row_cache: Any  # the running batch's cache ([rows, heads, width, head_dim] per layer), or None
    row_mask: torch.Tensor | None  # [rows, 1, 1, width + 1], True where attended
    segments: list[RaggedSegment]
    layers_seen: set[int] = field(default_factory=set)


def _ragged_attention(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Attention for a pass laid out as one sequence ([1, heads, tokens, head_dim]); see ``RaggedPlan``."""
    plan: RaggedPlan | None = kwargs.pop(PLAN_KWARG, None)
    if plan is None:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs)
    if any(kwargs.get(name) is not None for name in _UNSUPPORTED):
        # Sliding windows, soft-capping or attention sinks: not modelled here. No cache is touched and
        # no layer counts as seen, so the probe at construction finds the model unsupported.
        return sdpa_attention_forward(module, query, key, value, None, dropout=dropout, scaling=scaling)
    layer = module.layer_idx
    plan.layers_seen.add(layer)
    outputs = []
    rows = plan.rows
    if rows:  # one token per row: [1, heads, rows, dim] -> [rows, heads, 1, dim]
        q, k, v = (t[0, :, :rows].transpose(0, 1).unsqueeze(2) for t in (query, key, value))
        k, v = plan.row_cache.layers[layer].update(k, v)
        out, _ = sdpa_attention_forward(module, q, k, v, plan.row_mask, scaling=scaling, is_causal=False)
        outputs.append(out.transpose(0, 1))  # [rows, 1, heads, dim] -> [1, rows, heads, dim]
    start = rows
    for segment in plan.segments:
        end = start + segment.length
        q, k, v = (t[:, :, start:end] for t in (query, key, value))
        k, v = segment.cache.layers[layer].update(k, v)
        out, _ = sdpa_attention_forward(module, q, k, v, segment.mask, scaling=scaling, is_causal=False)
        outputs.append(out)  # [1, length, heads, dim]
        start = end
    return torch.cat(outputs, dim=1), None


AttentionInterface.register(RAGGED, _ragged_attention)


def attention_configs(model: torch.nn.Module) -> list[Any]:
    """The configs the model's attention layers read their implementation from (one for most models);
    looked up once per model, not at every pass."""
    configs = _CONFIGS.get(model)
    if configs is None:
        found = {id(m.config): m.config for m in model.modules() if hasattr(m, "layer_idx") and hasattr(m, "config")}
        configs = _CONFIGS[model] = list(found.values())
    return configs


def ragged_supported(model: torch.nn.Module) -> bool:
    """Whether ``model`` dispatches attention through transformers' interface, using ``sdpa``."""
    configs = attention_configs(model)
    return (
        bool(getattr(model, "_supports_attention_backend", False))
        and bool(configs)
        and all(getattr(c, "_attn_implementation", None) == "sdpa" for c in configs)
    )


def ragged_unsupported(model: torch.nn.Module, cache: Any = None) -> str | None:
    """Why ragged passes cannot serve ``model``, or None when they can.

    The interface and config check first (``ragged_supported``); then one pass of one token after a
    one-token prefix (``cache``: that prefix's cache from the model, made here when not given; it is
    extended in place), made as the engine makes ragged passes, must send every layer through the
    ragged attention: a model that passes its attention an argument the pass does not model, or calls
    attention some other way, fails here rather than at a decoding step. The caller holds the model
    (no other forward of it runs meanwhile).
    """
    if not ragged_supported(model):
        return f"{type(model).__name__} does not dispatch attention through transformers' interface with sdpa"
    device = next(model.parameters()).device
    one = torch.zeros((1, 1), dtype=torch.long, device=device)
    try:
        with torch.inference_mode():
            if cache is None:
                out = model(input_ids=one, use_cache=True)
                cache = getattr(out, "cache", None) or out.past_key_values
            prefix = cache.get_seq_length()
            plan = RaggedPlan(0, None, None, [RaggedSegment(cache, prefix=prefix, length=1)])
            with ragged_attention(model):
                model(
                    input_ids=one, position_ids=torch.full((1, 1), prefix, device=device), use_cache=False,
                    logits_to_keep=torch.zeros(1, dtype=torch.long, device=device), **{PLAN_KWARG: plan},
                )
    except Exception as exc:  # any failure of the probe means: serve this model the plain way
        return f"the probe pass failed: {type(exc).__name__}: {exc}"
    if len(plan.layers_seen) != len(cache.layers):
        return f"{len(plan.layers_seen)} of {len(cache.layers)} attention layers took the ragged pass"
    return None


@contextlib.contextmanager
def ragged_attention(model: torch.nn.Module) -> Iterator[None]:
    """Route the model's attention through ``_ragged_attention`` while the block runs, then restore it.

    Callers hold the model (the local client's model lock): another forward of the same model running
    meanwhile would see the swapped implementation (which, without a plan, is plain ``sdpa``).
    """
    configs = attention_configs(model)
    before = [c._attn_implementation_internal for c in configs]
    for config in configs:
        config._attn_implementation_internal = RAGGED
    try:
        yield
    finally:
        for config, implementation in zip(configs, before, strict=True):
            config._attn_implementation_internal = implementation
