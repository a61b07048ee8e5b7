"""The conditional length penalty (Baichuan-M2) as a group-aware TRL reward wrapper.

Within each group of completions for one prompt, and only when the group's ``quantile``-th
percentile score is above ``threshold``, the completions scoring at or above that percentile lose
``weight * shape(rel_length)``, where ``rel_length`` says how much longer a completion is than the
shortest of those good completions, relative to the longest completion in the group (so it lies in
[0, 1]). Weak groups are never pushed shorter: a model that cannot yet answer well is not taught
to answer briefly instead.

The math (``percentile``, ``group_length_penalties``) is pure and separate from the wrapper
(``with_length_penalty``), which groups TRL's flat reward list into consecutive runs of
``num_generations`` (the order TRL's ``RepeatSampler`` produces).
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

logger = logging.getLogger(__name__)

Shape = Literal["linear", "quadratic", "sqrt"]
_SHAPES: dict[str, Callable[[float], float]] = {
    "linear": lambda x: x,
    "quadratic": lambda x: x * x,
    "sqrt": math.sqrt,
}


class LengthPenaltyConfig(BaseModel):
    """Settings of the conditional length penalty (the ``length_penalty:`` block of a stage YAML)."""

    enabled: bool = True
    quantile: float = Field(80.0, ge=0.0, le=100.0, description="group percentile of the score, in %")
    threshold: float = Field(0.5, description="penalise only groups whose percentile score is above this")
    weight: float = Field(0.1, ge=0.0, description="penalty of the longest completion (shape(1) = 1)")
    shape: Shape = "linear"
    unit: Literal["tokens", "chars"] = "tokens"


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile with linear interpolation (numpy's default method)."""
    if not values:
        raise ValueError("percentile of an empty sequence")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def group_length_penalties(
    scores: Sequence[float | None], lengths: Sequence[int], config: LengthPenaltyConfig
) -> list[float]:
    """The penalty (>= 0, to subtract) for each completion of ONE group; 0 for unscored ones."""
    if len(scores) != len(lengths):
        raise ValueError(f"{len(scores)} scores but {len(lengths)} lengths")
    penalties = [0.0] * len(scores)
    scored = [(i, s) for i, s in enumerate(scores) if s is not None and not math.isnan(s)]
    if not config.enabled or config.weight == 0 or len(scored) < 2:
        return penalties
    cut = percentile([s for _, s in scored], config.quantile)
    if cut <= config.threshold:
        return penalties
    good = [i for i, s in scored if s >= cut]
    shortest_good = min(lengths[i] for i in good)
    longest = max(lengths[i] for i, _ in scored)
    if longest <= shortest_good:
        return penalties
    shape = _SHAPES[config.shape]
    for i in good:
        rel = (lengths[i] - shortest_good) / longest
        penalties[i] = config.weight * shape(min(max(rel, 0.0), 1.0))
    return penalties


def apply_length_penalty(
    scores: Sequence[float | None],
    lengths: Sequence[int],
    num_generations: int,
    config: LengthPenaltyConfig,
) -> list[float | None]:
    """Penalise a flat list made of consecutive groups of ``num_generations`` completions."""
    if num_generations < 1 or len(scores) % num_generations:
        raise ValueError(f"{len(scores)} scores do not split into groups of {num_generations}")
    out: list[float | None] = []
    for start in range(0, len(scores), num_generations):
        group = list(scores[start : start + num_generations])
        penalties = group_length_penalties(group, lengths[start : start + num_generations], config)
        out.extend(None if s is None else s - p for s, p in zip(group, penalties, strict=True))
    return out


def completion_lengths(
    completions: Sequence[Any],
    completion_ids: Sequence[Sequence[int]] | None,
    policy_tokens: Sequence[int] | None,
    unit: str,
) -> list[int]:
    """Lengths of the policy's own output: tokens or chars.

    ``policy_tokens`` (a multi-turn rollout's count of env_mask=1 tokens; TRL does not forward
    ``env_mask`` itself to reward functions) takes precedence, so patient text never counts.
    """
    if unit == "tokens" and policy_tokens is not None:
        return [int(n) for n in policy_tokens]
    if unit == "tokens" and completion_ids is not None:
        return [len(ids) for ids in completion_ids]
    return [len(_text(c)) for c in completions]


def _text(completion: Any) -> str:
    if isinstance(completion, str):
        return completion
    return "".join(m["content"] for m in completion if m.get("role") == "assistant")


def with_length_penalty(
    reward_fn: Callable[..., Any], num_generations: int, config: LengthPenaltyConfig
) -> Callable[..., Any]:
    """Wrap a TRL reward function (sync or async) so its scores get the conditional length penalty.

    The wrapper keeps the wrapped function's ``__name__`` (TRL logs rewards under it) and logs how
    many completions were penalised through TRL's ``log_metric`` when available.
    """

    def _penalise(scores: list[float | None], kwargs: dict[str, Any]) -> list[float | None]:
        lengths = completion_lengths(
            kwargs["completions"], kwargs.get("completion_ids"), kwargs.get("policy_tokens"), config.unit
        )
        penalised = apply_length_penalty(scores, lengths, num_generations, config)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            hit = sum(1 for a, b in zip(scores, penalised, strict=True) if a is not None and b != a)
            log_metric("length_penalty/frac_penalised", hit / max(len(scores), 1))
        return penalised

    if inspect.iscoroutinefunction(reward_fn) or inspect.iscoroutinefunction(type(reward_fn).__call__):

        @functools.wraps(reward_fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> list[float | None]:
            return _penalise(list(await reward_fn(*args, **kwargs)), kwargs)

        return async_wrapper

    @functools.wraps(reward_fn)
    def wrapper(*args: Any, **kwargs: Any) -> list[float | None]:
        return _penalise(list(reward_fn(*args, **kwargs)), kwargs)

    return wrapper
