"""Rubric validation: the five dimensions, one axis tag per item, sane points, no duplicates."""

from __future__ import annotations

import re

from verifier.types import Rubric, RubricItem

ACCURACY = "axis:accuracy"
LOGIC = "axis:consultation_logic"
PLAN = "axis:plan_rationality"
COMMUNICATION = "axis:communication"
SAFETY = "axis:safety"
DIMENSIONS: tuple[str, ...] = (ACCURACY, LOGIC, PLAN, COMMUNICATION, SAFETY)

MAX_POINTS = 10

_AXIS_HINTS: tuple[tuple[str, str], ...] = (
    ("safe", SAFETY), ("harm", SAFETY), ("ethic", SAFETY), ("emergen", SAFETY), ("risk", SAFETY),
    ("red flag", SAFETY),
    ("communic", COMMUNICATION), ("empath", COMMUNICATION), ("clar", COMMUNICATION), ("tone", COMMUNICATION),
    ("plan", PLAN), ("test", PLAN), ("treat", PLAN), ("manage", PLAN), ("investig", PLAN),
    ("logic", LOGIC), ("question", LOGIC), ("history", LOGIC), ("consult", LOGIC), ("context", LOGIC),
    ("accura", ACCURACY), ("diagnos", ACCURACY), ("correct", ACCURACY), ("complete", ACCURACY),
)


class RubricValidationError(ValueError):
    pass


def normalize_axis(value: str) -> str | None:
    """Map a free-form axis name (``"Safety & ethics"``, ``"axis:plan"``) to one of the five dimensions."""
    lower = value.strip().lower()
    if lower in DIMENSIONS:
        return lower
    for hint, axis in _AXIS_HINTS:
        if hint in lower:
            return axis
    return None


def criterion_key(text: str) -> str:
    """Normalised criterion text for de-duplication."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def axes_of(item: RubricItem) -> list[str]:
    return [t for t in item.tags if t.startswith("axis:")]


def rubric_problems(rubric: Rubric, *, require_dimensions: bool = True) -> list[str]:
    """Everything wrong with ``rubric``; empty when it is valid."""
    problems: list[str] = []
    if not rubric.items:
        return ["the rubric has no items"]
    seen: dict[str, int] = {}
    for index, item in enumerate(rubric.items):
        label = f"item {index} ({item.criterion[:40]!r})"
        axes = axes_of(item)
        if len(axes) != 1:
            problems.append(f"{label}: needs exactly one axis: tag, has {axes}")
        elif require_dimensions and axes[0] not in DIMENSIONS:
            problems.append(f"{label}: unknown axis {axes[0]!r}")
        if item.points == 0 or abs(item.points) > MAX_POINTS:
            problems.append(f"{label}: points must be non-zero and within ±{MAX_POINTS}, got {item.points}")
        key = criterion_key(item.criterion)
        if key in seen:
            problems.append(f"{label}: duplicates item {seen[key]}")
        seen[key] = index
    if require_dimensions:
        for axis in missing_dimensions(rubric):
            problems.append(f"no positive item on {axis}")
    return problems


def missing_dimensions(rubric: Rubric) -> list[str]:
    """Dimensions without a positive item (HealthBench would skip them)."""
    covered = {axis for item in rubric.items if item.points > 0 for axis in axes_of(item)}
    return [axis for axis in DIMENSIONS if axis not in covered]


def validate_rubric(rubric: Rubric, *, require_dimensions: bool = True) -> Rubric:
    problems = rubric_problems(rubric, require_dimensions=require_dimensions)
    if problems:
        raise RubricValidationError(f"invalid rubric from {rubric.generator}: " + "; ".join(problems))
    return rubric
