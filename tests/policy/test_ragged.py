"""Ragged passes on the real embedded model: a prompt continuing a cached prefix is prefilled in the
same forward as the running batch's decoding step, and nobody's output changes."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import weakref

import pytest
import torch
from transformers.cache_utils import DynamicCache

from policy.engine import passes as passes_mod
from policy.engine import ragged as ragged_mod
from policy.engine.client import LocalChatClient
from policy.engine.kv import KV, RoomyLayer
from policy.engine.ragged import (
    PLAN_KWARG,
    RAGGED,
    RaggedPlan,
    RaggedSegment,
    ragged_attention,
    ragged_supported,
    ragged_unsupported,
)
from verifier.types import Message

QUESTION = "What are the warning signs of a stroke?"
OTHER = "How should I treat a mild fever at home?"


def _msgs(text: str) -> list[Message]:
    return [Message(role="user", content=text)]


def test_one_ragged_pass_computes_what_separate_passes_do(embedded):
    # Three decoding rows (one of them left-padded) and two prompts continuing cached prefixes of
    # different lengths: one pass gives the logits and caches that a decoding step plus two prefill
    # passes give.
    model = embedded.model
    assert ragged_supported(model)
    torch.manual_seed(0)
    rows, width = torch.randint(100, 30000, (3, 12)), 12
    attention = torch.ones(3, width, dtype=torch.long)
    attention[1, :4] = 0
    prefixes = [torch.randint(100, 30000, (1, n)) for n in (20, 7)]
    news = [torch.randint(100, 30000, (1, n)) for n in (5, 9)]
    step = torch.randint(100, 30000, (3, 1))

    def batch_cache() -> DynamicCache:
        out = model(input_ids=rows, attention_mask=attention, position_ids=(attention.cumsum(-1) - 1).clamp(min=0), use_cache=True)
        cache = out.past_key_values
        cache.layers = [RoomyLayer.stacked([KV(layer.keys, layer.values)], width) for layer in cache.layers]
        return cache

    def prefix_cache(ids: torch.Tensor) -> DynamicCache:
        return model(input_ids=ids, use_cache=True).past_key_values

    with torch.inference_mode():
        stepped = torch.cat([attention, torch.ones(3, 1, dtype=torch.long)], dim=1)
        positions = (stepped.cumsum(-1) - 1)[:, -1:]
        plain_batch = batch_cache()
        plain = [model(input_ids=step, attention_mask=stepped, position_ids=positions, cache=plain_batch, use_cache=True).logits[:, -1]]
        plain_prefixes = []
        for prefix, new in zip(prefixes, news, strict=True):
            cache = prefix_cache(prefix)
            n, m = prefix.shape[1], new.shape[1]
            out = model(input_ids=new, position_ids=torch.arange(n, n + m)[None], cache=cache, use_cache=True)
            plain.append(out.logits[:, -1])
            plain_prefixes.append(out.past_key_values)

        ragged_batch = batch_cache()
        segments = [RaggedSegment(prefix_cache(p), prefix=p.shape[1], length=n.shape[1]) for p, n in zip(prefixes, news, strict=True)]
        plan = RaggedPlan(3, ragged_batch, stepped.bool()[:, None, None, :], segments)
        ids = torch.cat([step[:, 0], news[0][0], news[1][0]])[None]
        pos = torch.cat([positions[:, 0], torch.arange(20, 25), torch.arange(7, 16)])[None]
        keep = torch.tensor([0, 1, 2, 3 + 5 - 1, 3 + 5 + 9 - 1])
        before = model.config._attn_implementation
        with ragged_attention(model):
            assert model.config._attn_implementation == RAGGED
            out = model(input_ids=ids, position_ids=pos, use_cache=False, logits_to_keep=keep, **{PLAN_KWARG: plan})
        assert model.config._attn_implementation == before == "sdpa"

    assert plan.layers_seen == set(range(len(ragged_batch.layers)))
    torch.testing.assert_close(out.logits[0], torch.cat(plain), rtol=1e-4, atol=1e-4)
    for fused, separate in zip([ragged_batch, *[s.cache for s in segments]], [plain_batch, *plain_prefixes], strict=True):
        for a, b in zip(fused.layers, separate.layers, strict=True):
            torch.testing.assert_close(a.keys, b.keys, rtol=1e-4, atol=1e-4)
            torch.testing.assert_close(a.values, b.values, rtol=1e-4, atol=1e-4)


async def _next_turn_while_another_decodes(client: LocalChatClient) -> tuple[list[int], list[int]]:
    """Cache a first turn, then ask its follow-up while a long request decodes; both outputs' tokens."""
    first = await client.complete(_msgs(QUESTION), max_tokens=16)
    second_turn = [*_msgs(QUESTION), Message(role="assistant", content=first.text), *_msgs("And what should I do?")]
    steps_before = client.stats.decode_steps
    long_task = asyncio.ensure_future(client.complete(_msgs(OTHER), max_tokens=40))
    while client.stats.decode_steps < steps_before + 3:  # the long request is decoding
        await asyncio.sleep(0.01)
    follow_up = await client.complete(second_turn, max_tokens=16)
    assert not long_task.done()
    return follow_up.tokens, (await long_task).tokens


async def test_the_next_turn_rides_along_the_running_batch_and_answers_the_same(embedded):
    fused = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    follow_up, long = await _next_turn_while_another_decodes(fused)
    assert fused.fuses_prefills
    assert fused.stats.fused_prefills == 1
    assert fused.stats.prefix_hit_tokens > 0
    # The same requests with every prefill in its own pass.
    plain = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0, fuse_prefills=False)
    assert await _next_turn_while_another_decodes(plain) == (follow_up, long)
    assert not plain.fuses_prefills and plain.stats.fused_prefills == 0


@pytest.fixture
def unlearnt(monkeypatch):
    """Clients built in the test probe their model afresh (what was learnt is kept per model)."""
    monkeypatch.setattr(passes_mod, "_LEARNT", weakref.WeakKeyDictionary())


async def test_a_model_that_ignores_the_ragged_attention_is_served_without_it_from_the_start(embedded, monkeypatch, unlearnt):
    # As if the model did not dispatch attention through transformers' interface: the probe pass at
    # construction sees no layer take it, so this client never tries a ragged pass.
    monkeypatch.setattr(ragged_mod, "ragged_attention", lambda model: contextlib.nullcontext())
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    assert not client.fuses_prefills
    assert "0 of" in client.traits.ragged_off_because
    monkeypatch.undo()
    follow_up, long = await _next_turn_while_another_decodes(client)
    assert client.stats.fused_prefills == 0
    plain = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0, fuse_prefills=False)
    assert await _next_turn_while_another_decodes(plain) == (follow_up, long)


def test_a_model_passing_attention_arguments_the_pass_does_not_model_is_found_at_construction(embedded, monkeypatch, unlearnt):
    # A model whose layers pass a sliding window to their attention (Mistral-style): found by the probe.
    model = embedded.model
    monkeypatch.setattr(model, "forward", functools.partial(model.forward, sliding_window=4))
    assert ragged_supported(model)  # the interface and config look right ...
    assert "0 of" in ragged_unsupported(model)  # ... but no layer takes the pass
    assert not LocalChatClient(embedded).fuses_prefills


async def test_a_ragged_pass_no_layer_takes_any_more_fails_its_requests_loudly(embedded, monkeypatch, unlearnt):
    # Decided at construction, never taken back mid-step: a model changed since then fails the turn.
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    assert client.fuses_prefills
    first = await client.complete(_msgs(QUESTION), max_tokens=16)
    second_turn = [*_msgs(QUESTION), Message(role="assistant", content=first.text), *_msgs("And what should I do?")]
    monkeypatch.setattr(passes_mod, "ragged_attention", lambda model: contextlib.nullcontext())
    steps_before = client.stats.decode_steps
    long_task = asyncio.ensure_future(client.complete(_msgs(OTHER), max_tokens=40))
    while client.stats.decode_steps < steps_before + 3:  # the long request is decoding
        await asyncio.sleep(0.01)
    with pytest.raises(RuntimeError, match="took it when the client was built"):
        await client.complete(second_turn, max_tokens=16)  # it rides along the long request's step ...
    with pytest.raises(RuntimeError, match="took it when the client was built"):
        await long_task  # ... which fails with it: no silent fallback
    monkeypatch.undo()
    assert (await client.complete(_msgs(QUESTION), max_tokens=4)).finish_reason == "length"  # the engine goes on


def test_models_without_sdpa_attention_do_not_use_ragged_passes(embedded, monkeypatch):
    monkeypatch.setattr(embedded.model.config, "_attn_implementation_internal", "eager")
    assert not ragged_supported(embedded.model)
    assert "sdpa" in ragged_unsupported(embedded.model)
    assert not LocalChatClient(embedded).fuses_prefills


def test_attention_the_ragged_pass_does_not_model_leaves_every_cache_alone(embedded):
    # A model that passes a sliding window (or soft-capping, or sinks) to its attention: no layer takes
    # the ragged path, so no cache is extended (the probe at construction relies on this).
    model = embedded.model
    prefix = torch.randint(100, 30000, (1, 10))
    with torch.inference_mode():
        cache = model(input_ids=prefix, use_cache=True).past_key_values
        segment = RaggedSegment(cache, prefix=10, length=3)
        plan = RaggedPlan(0, None, None, [segment])
        with ragged_attention(model):
            model(input_ids=torch.randint(100, 30000, (1, 3)), position_ids=torch.arange(10, 13)[None], use_cache=False,
                  sliding_window=4, **{PLAN_KWARG: plan})
    assert plan.layers_seen == set()
    assert all(layer.keys.shape[2] == 10 for layer in cache.layers)
