"""The scheduler's plans, worked out by hand: who is prefilled fresh, who follows, who rides along."""

from __future__ import annotations

import torch

from policy.engine.kv import KV
from policy.engine.prefix import PrefixCache
from policy.engine.request import Request, Sampling
from policy.engine.scheduler import StepKind, free_slots, plan_admission, plan_step

SYSTEM = list(range(100, 140))  # a 40-token system prompt


def _request(tokens: list[int]) -> Request:
    return Request(tokens, Sampling(max_tokens=4, temperature=0.0, stop=(), seed=0), future=None, loop=None)  # type: ignore[arg-type]


def _cache_with(tokens: list[int]) -> PrefixCache:
    cache = PrefixCache(max_bytes=10**6)
    cache.add(tokens, [KV(torch.zeros(1, 1, len(tokens), 2), torch.zeros(1, 1, len(tokens), 2))])
    return cache


def test_requests_sharing_a_start_follow_the_first_and_cached_prompts_are_hits():
    cached_turn = [*SYSTEM, 1, 2, 3]
    prefixes = _cache_with(cached_turn)
    next_turn, a, b, other = _request([*cached_turn, 4, 5]), _request([7] * 30 + [1]), _request([7] * 30 + [2]), _request([9] * 20)
    plan = plan_admission([next_turn, a, b, other], prefixes=prefixes, caching=True, ragged=True, decoding_rows=0)
    assert plan.fresh == [a, other] and plan.followers == [b]
    assert [(h.request, h.shared) for h in plan.hits] == [(next_turn, len(cached_turn))]
    assert plan.ride  # rows join now (the fresh ones): the hit rides along their first step
    assert set(map(id, plan.joining)) == {id(r) for r in (next_turn, a, b, other)}


def test_a_lone_hit_rides_only_when_there_is_a_pass_to_ride_on():
    prefixes = _cache_with(SYSTEM)
    hit = _request([*SYSTEM, 1, 2])
    assert not plan_admission([hit], prefixes=prefixes, caching=True, ragged=True, decoding_rows=0).ride
    assert plan_admission([hit], prefixes=prefixes, caching=True, ragged=True, decoding_rows=3).ride
    two = [hit, _request([*SYSTEM, 5, 6])]
    assert plan_admission(two, prefixes=prefixes, caching=True, ragged=True, decoding_rows=0).ride  # each other
    assert not plan_admission(two, prefixes=prefixes, caching=True, ragged=False, decoding_rows=3).ride


def test_without_a_prefix_cache_everything_is_prefilled_fresh():
    prefixes = _cache_with(SYSTEM)
    new = [_request([*SYSTEM, 1]), _request([*SYSTEM, 2])]
    plan = plan_admission(new, prefixes=prefixes, caching=False, ragged=True, decoding_rows=2)
    assert plan.fresh == new and not plan.followers and not plan.hits


def test_the_step_is_a_decode_a_ragged_pass_or_nothing():
    prefixes = _cache_with(SYSTEM)
    riders = plan_admission([_request([*SYSTEM, 1])], prefixes=prefixes, caching=True, ragged=True, decoding_rows=2).hits
    assert plan_step(2, []).kind is StepKind.DECODE
    step = plan_step(2, riders)
    assert step.kind is StepKind.RAGGED and step.rows == 2 and step.riders == riders
    assert plan_step(0, riders).rows == 0  # riders alone: a ragged pass of prefills only
    assert plan_step(0, []) is None
    assert free_slots(3, 8, spliceable=True) == 5
    assert free_slots(3, 8, spliceable=False) == 0 and free_slots(0, 8, spliceable=False) == 8
