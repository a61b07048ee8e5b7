"""HealthBench scoring math against numbers worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from verifier.scoring import (
    aggregate,
    bootstrap_std,
    clipped_mean,
    example_score,
    length_adjusted,
    score_example,
    tag_scores,
)
from verifier.types import CriterionResult


def r(points: int, met: bool | None, *tags: str) -> CriterionResult:
    return CriterionResult(criterion=f"c{points}{met}", points=points, tags=list(tags), met=met)


MIXED = [
    r(5, True, "axis:accuracy"),
    r(3, False, "axis:accuracy", "level:example"),
    r(-2, True, "axis:safety"),  # the only item of axis:safety is negative -> tag skipped
    r(2, None, "axis:communication"),  # unscored -> out of both sums, tag has no scored points
]


def test_example_score_with_negative_and_unscored_items() -> None:
    # (5 - 2) / (5 + 3); the unscored +2 item is in neither sum
    assert example_score(MIXED) == pytest.approx(3 / 8)


def test_unscored_item_is_not_a_fail() -> None:
    as_fail = [*MIXED[:3], r(2, False, "axis:communication")]
    assert example_score(as_fail) == pytest.approx(3 / 10)
    assert example_score(MIXED) != example_score(as_fail)


def test_tag_scores_skip_tags_without_positive_points() -> None:
    scores = tag_scores(MIXED)
    assert scores == {"axis:accuracy": pytest.approx(5 / 8), "level:example": pytest.approx(0.0)}
    assert "axis:safety" not in scores and "axis:communication" not in scores


def test_no_positive_points_gives_none() -> None:
    assert example_score([r(-3, True), r(4, None)]) is None
    assert example_score([]) is None


def test_example_score_is_not_clipped_but_aggregate_is() -> None:
    bad = score_example([r(2, False), r(-5, True)], example_tags=["theme:emergency_referrals"])
    assert bad.overall == pytest.approx(-2.5)
    good = score_example([r(4, True)], example_tags=["theme:emergency_referrals"])
    agg = aggregate([bad, good])
    # mean(-2.5, 1.0) = -0.75 -> clipped to 0 only here
    assert agg.score == 0.0
    assert agg.metrics["theme:emergency_referrals"].mean == 0.0
    assert agg.metrics["overall_score"].n_samples == 2


def test_aggregate_tags_and_flat_keys() -> None:
    a = score_example(MIXED, example_tags=["theme:hedging"], prompt_id="a")
    b = score_example([r(4, True, "axis:accuracy"), r(4, False, "axis:safety")], prompt_id="b")
    agg = aggregate([a, b])
    assert agg.score == pytest.approx((0.375 + 0.5) / 2)
    assert agg.metrics["axis:accuracy"].mean == pytest.approx((0.625 + 1.0) / 2)
    assert agg.metrics["axis:safety"].n_samples == 1  # only b has a positive axis:safety item
    assert agg.metrics["axis:safety"].mean == 0.0
    assert agg.metrics["theme:hedging"].mean == pytest.approx(0.375)
    assert agg.unscored_items == 1
    flat = agg.flat()
    assert flat["axis:accuracy:n_samples"] == 2
    assert "overall_score:bootstrap_std" in flat


def test_examples_without_score_are_left_out() -> None:
    empty = score_example([r(3, None)])
    full = score_example([r(3, True)])
    agg = aggregate([empty, full])
    assert agg.n_examples == 2 and agg.n_scored_examples == 1 and agg.score == 1.0


def test_clipped_mean() -> None:
    assert clipped_mean([0.2, 0.4]) == pytest.approx(0.3)
    assert clipped_mean([1.5, 1.0]) == 1.0
    with pytest.raises(ValueError):
        clipped_mean([])


def test_bootstrap_std_is_seedable_and_matches_hand_computation() -> None:
    values = [0.0, 0.5, 1.0, -1.0]
    assert bootstrap_std(values, seed=3) == bootstrap_std(values, seed=3)
    assert bootstrap_std(values, seed=3) != bootstrap_std(values, seed=4)
    assert bootstrap_std([0.7] * 5) == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(7)
    samples = rng.choice(np.array(values), size=(1000, 4))
    expected = np.std(np.clip(samples.mean(axis=1), 0, 1))
    assert bootstrap_std(values, n=1000, seed=7) == pytest.approx(expected)


def test_length_adjusted() -> None:
    assert length_adjusted(0.6, 3000, 0.1) == pytest.approx(0.4)
    assert length_adjusted(0.6, 1500, 0.1) == pytest.approx(0.7)
    assert length_adjusted(0.6, 9999, 0.0) == 0.6
