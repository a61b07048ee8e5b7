"""HealthBench scoring math, pure (no I/O), exactly as openai/simple-evals ``healthbench_eval.py``.

* Example score = Σ points of met items / Σ points of positive items; not clipped per example.
* The same formula per rubric tag (``axis:*``, ``level:*``, ``cluster:*``), skipped when the tag has no
  positive points; example tags (``theme:*``, ``physician_agreed_category:*``) receive the overall score.
* Aggregate = the mean clipped to [0, 1]; ``bootstrap_std`` = std of 1,000 resampled clipped means.

One deliberate difference: an *unscored* item (``met is None``, the grader could not decide) is
excluded from both sums instead of counting as "not met".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from verifier.types import CriterionResult

OVERALL = "overall_score"


class ExampleScore(BaseModel):
    """The scores of one graded example (one response to one prompt)."""

    prompt_id: str = ""
    overall: float | None  # None when no scored item has positive points
    tag_scores: dict[str, float] = Field(default_factory=dict)  # rubric tags: axis:*, level:*, cluster:*
    example_tags: list[str] = Field(default_factory=list)  # theme:*, physician_agreed_category:*
    unscored: int = 0

    def metrics(self) -> dict[str, float]:
        """simple-evals' per-example metrics: overall_score, each example tag, each rubric tag."""
        if self.overall is None:
            return dict(self.tag_scores)
        out: dict[str, float] = {OVERALL: self.overall}
        out.update({tag: self.overall for tag in self.example_tags})
        out.update(self.tag_scores)
        return out


class MetricStats(BaseModel):
    mean: float  # clipped to [0, 1]
    n_samples: int
    bootstrap_std: float


class AggregateScore(BaseModel):
    """The aggregate over examples; ``metrics`` holds every tag and ``overall_score``."""

    score: float | None  # clipped mean of the example scores
    n_examples: int
    n_scored_examples: int
    bootstrap_std: float | None
    unscored_items: int = 0
    metrics: dict[str, MetricStats] = Field(default_factory=dict)

    def flat(self) -> dict[str, float]:
        """simple-evals' flat keys: ``name``, ``name:n_samples``, ``name:bootstrap_std``."""
        out: dict[str, float] = {}
        for name, stats in self.metrics.items():
            out[name] = stats.mean
            out[f"{name}:n_samples"] = stats.n_samples
            out[f"{name}:bootstrap_std"] = stats.bootstrap_std
        return out


def _score(results: Iterable[CriterionResult]) -> float | None:
    scored = [r for r in results if r.met is not None]
    possible = sum(r.points for r in scored if r.points > 0)
    if possible == 0:
        return None
    achieved = sum(r.points for r in scored if r.met)
    return achieved / possible


def example_score(results: list[CriterionResult]) -> float | None:
    """Σ points of met items / Σ points of positive items; unscored items are left out of both."""
    return _score(results)


def tag_scores(results: list[CriterionResult]) -> dict[str, float]:
    """The example-score formula per rubric tag; a tag without positive (scored) points is skipped."""
    by_tag: dict[str, list[CriterionResult]] = defaultdict(list)
    for result in results:
        for tag in dict.fromkeys(result.tags):  # a tag repeated on one item counts once
            by_tag[tag].append(result)
    out: dict[str, float] = {}
    for tag, tagged in by_tag.items():
        score = _score(tagged)
        if score is not None:
            out[tag] = score
    return out


def score_example(
    results: list[CriterionResult], *, example_tags: Sequence[str] = (), prompt_id: str = ""
) -> ExampleScore:
    return ExampleScore(
        prompt_id=prompt_id,
        overall=example_score(results),
        tag_scores=tag_scores(results),
        example_tags=list(dict.fromkeys(example_tags)),
        unscored=sum(1 for r in results if r.met is None),
    )


def clipped_mean(values: Sequence[float]) -> float:
    if len(values) == 0:
        raise ValueError("clipped_mean of no values")
    return float(np.clip(np.mean(np.asarray(values, dtype=float)), 0.0, 1.0))


def bootstrap_std(values: Sequence[float], n: int = 1000, seed: int | None = 0) -> float:
    """Std of ``n`` clipped means of samples drawn with replacement (same size as ``values``)."""
    if len(values) == 0:
        raise ValueError("bootstrap_std of no values")
    arr = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    samples = rng.choice(arr, size=(n, len(arr)), replace=True)
    means = np.clip(samples.mean(axis=1), 0.0, 1.0)
    return float(np.std(means))


def length_adjusted(score: float, chars: int, p: float) -> float:
    """HealthBench's length-adjusted score: ``score − p·(chars − 2000)/500``."""
    return score - p * (chars - 2000) / 500


def aggregate(examples: list[ExampleScore], *, n_bootstrap: int = 1000, seed: int | None = 0) -> AggregateScore:
    """Clipped mean, sample count and bootstrap std per metric, as simple-evals aggregates them."""
    name2values: dict[str, list[float]] = defaultdict(list)
    scores: list[float] = []
    for example in examples:
        for name, value in example.metrics().items():
            name2values[name].append(value)
        if example.overall is not None:
            scores.append(example.overall)
    metrics = {
        name: MetricStats(
            mean=clipped_mean(values),
            n_samples=len(values),
            bootstrap_std=bootstrap_std(values, n=n_bootstrap, seed=seed),
        )
        for name, values in sorted(name2values.items())
    }
    return AggregateScore(
        score=clipped_mean(scores) if scores else None,
        n_examples=len(examples),
        n_scored_examples=len(scores),
        bootstrap_std=bootstrap_std(scores, n=n_bootstrap, seed=seed) if scores else None,
        unscored_items=sum(e.unscored for e in examples),
        metrics=metrics,
    )
