"""The conditional length penalty on hand-made groups, numbers worked out by hand."""

from __future__ import annotations

import asyncio

import pytest

from policy.length_penalty import (
    LengthPenaltyConfig,
    apply_length_penalty,
    group_length_penalties,
    percentile,
    with_length_penalty,
)

CONFIG = LengthPenaltyConfig(quantile=80, threshold=0.5, weight=0.2, shape="linear")


def test_percentile_matches_linear_interpolation() -> None:
    # positions: (5-1)*0.8 = 3.2 -> 0.8 + 0.2*(1.0-0.8) = 0.84
    assert percentile([0.2, 1.0, 0.4, 0.8, 0.6], 80) == pytest.approx(0.84)
    assert percentile([3.0], 80) == 3.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_strong_group_long_good_answers_lose_reward() -> None:
    scores = [1.0, 1.0, 0.9, 0.2]
    lengths = [10, 50, 100, 5]
    # p80 of [0.2, 0.9, 1.0, 1.0]: position 2.4 -> 1.0; good = the two 1.0 answers (lengths 10, 50)
    # rel = (L - 10) / 100 -> 0, 0.4; penalty 0.2 * rel
    penalties = group_length_penalties(scores, lengths, CONFIG)
    assert penalties == pytest.approx([0.0, 0.08, 0.0, 0.0])


def test_weak_group_is_untouched() -> None:
    scores = [0.3, 0.1, 0.4, 0.0]
    lengths = [10, 500, 1000, 5]
    assert group_length_penalties(scores, lengths, CONFIG) == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize(("shape", "expected"), [("quadratic", 0.2 * 0.25), ("sqrt", 0.2 * 0.5**0.5)])
def test_shapes(shape: str, expected: float) -> None:
    config = CONFIG.model_copy(update={"shape": shape})
    penalties = group_length_penalties([1.0, 1.0], [20, 40], config)  # rel = (40-20)/40 = 0.5
    assert penalties == pytest.approx([0.0, expected])


def test_unscored_completions_are_kept_none_and_ignored() -> None:
    scores = [1.0, None, 1.0, 0.0]
    lengths = [10, 1000, 30, 5]
    penalties = group_length_penalties(scores, lengths, CONFIG)
    # scored [1, 1, 0] p80 = 1.0; longest scored = 30; rel of the 30-length one = 20/30
    assert penalties == pytest.approx([0.0, 0.0, 0.2 * 20 / 30, 0.0])


def test_flat_list_is_split_into_groups() -> None:
    scores = [1.0, 1.0, 0.1, 0.0]  # group 1 strong, group 2 weak
    out = apply_length_penalty(scores, [10, 20, 10, 20], 2, CONFIG)
    assert out == pytest.approx([1.0, 1.0 - 0.2 * 0.5, 0.1, 0.0])
    with pytest.raises(ValueError, match="groups of 3"):
        apply_length_penalty(scores, [1, 2, 3, 4], 3, CONFIG)


def test_disabled_or_zero_weight_changes_nothing() -> None:
    for config in (CONFIG.model_copy(update={"enabled": False}), CONFIG.model_copy(update={"weight": 0.0})):
        assert group_length_penalties([1.0, 1.0], [1, 100], config) == [0.0, 0.0]


def test_wrapper_keeps_name_and_uses_token_counts() -> None:
    def accuracy(prompts, completions, **kwargs):
        return [1.0 for _ in completions]

    wrapped = with_length_penalty(accuracy, 2, CONFIG)
    assert wrapped.__name__ == "accuracy"
    logged: dict[str, float] = {}
    out = wrapped(
        prompts=["p", "p"],
        completions=["short", "a much longer answer"],
        completion_ids=[[1] * 4, [1] * 8],
        log_metric=logged.__setitem__,
    )
    assert out == pytest.approx([1.0, 1.0 - 0.2 * 4 / 8])
    assert logged["length_penalty/frac_penalised"] == 0.5
    # a multi-turn rollout's policy_tokens win over the full completion ids (patient text is not counted)
    out = wrapped(prompts=["p", "p"], completions=["a", "b"], completion_ids=[[1] * 50, [1] * 8], policy_tokens=[8, 8])
    assert out == [1.0, 1.0]


def test_wrapper_on_async_reward() -> None:
    async def judged(prompts, completions, **kwargs):
        return [0.9, 0.95]

    wrapped = with_length_penalty(judged, 2, CONFIG.model_copy(update={"unit": "chars"}))
    out = asyncio.run(wrapped(prompts=["p", "p"], completions=["x" * 10, "x" * 20]))
    # p80 of [0.9, 0.95] = 0.94; only the 0.95 one (20 chars) is good and it is the shortest good one
    assert out == pytest.approx([0.9, 0.95])


def test_wrapper_on_async_callable_object() -> None:
    class Judged:
        __name__ = "judged_reward"

        async def __call__(self, prompts, completions, **kwargs):
            return [1.0, 1.0]

    wrapped = with_length_penalty(Judged(), 2, CONFIG)
    assert wrapped.__name__ == "judged_reward"
    out = asyncio.run(wrapped(prompts=["p", "p"], completions=["a", "b"], completion_ids=[[1] * 5, [1] * 10]))
    assert out == pytest.approx([1.0, 1.0 - 0.2 * 5 / 10])
