"""Ragged passes on the real embedded model: a prompt continuing a cached prefix is prefilled in the
same forward as the running batch's decoding step, and nobody's output changes."""

from __future__ import annotations

import asyncio
import contextlib

import torch
from transformers.cache_utils import DynamicCache

from policy import local as local_mod
from policy.local import LocalChatClient, _RoomyLayer
from policy.ragged import PLAN_KWARG, RAGGED, RaggedPlan, RaggedSegment, ragged_attention, ragged_supported
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
        cache.layers = [_RoomyLayer.stacked([(layer.keys, layer.values)], width) for layer in cache.layers]
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
    steps_before = len(client.batch_sizes)
    long_task = asyncio.ensure_future(client.complete(_msgs(OTHER), max_tokens=40))
    while len(client.batch_sizes) < steps_before + 3:  # the long request is decoding
        await asyncio.sleep(0.01)
    follow_up = await client.complete(second_turn, max_tokens=16)
    assert not long_task.done()
    return follow_up.tokens, (await long_task).tokens


async def test_the_next_turn_rides_along_the_running_batch_and_answers_the_same(embedded):
    fused = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    follow_up, long = await _next_turn_while_another_decodes(fused)
    assert fused.fused_prefills == 1
    assert fused.prefix_hit_tokens > 0
    # The same requests with every prefill in its own pass.
    plain = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0, fuse_prefills=False)
    assert await _next_turn_while_another_decodes(plain) == (follow_up, long)
    assert plain.fused_prefills == 0


async def test_a_model_that_ignores_the_ragged_attention_falls_back_without_losing_requests(embedded, monkeypatch):
    # As if the model did not dispatch attention through transformers' interface: the ragged pass sees
    # no layer, so the step is taken back and run as separate passes; later steps do not try again.
    monkeypatch.setattr(local_mod, "ragged_attention", lambda model: contextlib.nullcontext())
    client = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0)
    follow_up, long = await _next_turn_while_another_decodes(client)
    assert client.fused_prefills == 0
    assert not client._fuse_prefills
    monkeypatch.undo()
    plain = LocalChatClient(embedded, max_batch_size=4, batch_wait_ms=0, fuse_prefills=False)
    assert await _next_turn_while_another_decodes(plain) == (follow_up, long)


def test_models_without_sdpa_attention_do_not_use_ragged_passes(embedded, monkeypatch):
    monkeypatch.setattr(embedded.model.config, "_attn_implementation_internal", "eager")
    assert not ragged_supported(embedded.model)
    assert not LocalChatClient(embedded)._fuse_prefills


def test_attention_the_ragged_pass_does_not_model_leaves_every_cache_alone(embedded):
    # A model that passes a sliding window (or soft-capping, or sinks) to its attention: no layer takes
    # the ragged path, so no cache is extended and the client falls back to separate passes.
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
