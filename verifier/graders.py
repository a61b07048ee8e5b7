"""The graders behind the ``Grader`` protocol: rule, LLM judge, and the hybrid of both.

* ``RuleGrader`` (verifier/rule_grader.py) decides items that carry a machine ``check``.
* ``JudgeGrader`` (verifier/judge.py) asks an LLM judge with HealthBench's rules, through a named
  prompt (verifier/grader_prompts.py): ``medverifier`` (hardened; /v1/verify and training) or
  ``healthbench`` (HealthBench's own template; comparable numbers).
* ``HybridGrader`` uses the rule where a check exists and the judge otherwise; with no judge the
  unchecked items are unscored (counted, never "not met").
"""

from __future__ import annotations

import logging
from typing import Literal

from verifier.grader_prompts import GRADER_PROMPT_NAMES, GraderPrompt, grader_prompt
from verifier.judge import (
    GRADER_PROMPT_VERSION,
    JudgeGrader,
    JudgeStats,
    Verdict,
    parse_verdict,
    parse_verdicts,
)
from verifier.judge_cache import JudgeCache
from verifier.protocols import Grader
from verifier.rule_grader import RuleGrader
from verifier.types import Case, CriterionResult, Message, RubricItem

logger = logging.getLogger(__name__)

__all__ = [
    "GRADER_PROMPT_NAMES",
    "GRADER_PROMPT_VERSION",
    "GraderPrompt",
    "HybridGrader",
    "JudgeCache",
    "JudgeGrader",
    "JudgeStats",
    "RuleGrader",
    "Verdict",
    "grader_for",
    "grader_prompt",
    "parse_verdict",
    "parse_verdicts",
]

GradingMode = Literal["rule", "judge", "hybrid"]


class HybridGrader:
    """Rule where a ``check`` exists, the judge for the rest (unscored when there is no judge)."""

    def __init__(self, judge: Grader | None = None) -> None:
        self.rule = RuleGrader()
        self.judge = judge

    @property
    def name(self) -> str:
        return f"hybrid(rule+{self.judge.name})" if self.judge is not None else "hybrid(rule)"

    async def grade(
        self, conversation: list[Message], items: list[RubricItem], *, case: Case | None = None
    ) -> list[CriterionResult]:
        results: list[CriterionResult | None] = [None] * len(items)
        checked = [i for i, item in enumerate(items) if item.check is not None]
        unchecked = [i for i, item in enumerate(items) if item.check is None]
        for index, result in zip(
            checked, self.rule.grade_sync(conversation, [items[i] for i in checked]), strict=True
        ):
            results[index] = result
        if unchecked:
            if self.judge is not None:
                judged = await self.judge.grade(conversation, [items[i] for i in unchecked], case=case)
                if len(judged) != len(unchecked):
                    raise RuntimeError(
                        f"{self.judge.name} returned {len(judged)} results for {len(unchecked)} items"
                    )
            else:
                judged = [
                    CriterionResult(
                        criterion=items[i].criterion,
                        points=items[i].points,
                        tags=list(items[i].tags),
                        met=None,
                        explanation="no machine check and no judge configured",
                        grader="none",
                    )
                    for i in unchecked
                ]
            for index, result in zip(unchecked, judged, strict=True):
                results[index] = result
        final = [r for r in results if r is not None]
        unscored = sum(1 for r in final if r.met is None)
        if unscored:
            logger.info("%s: %d of %d items unscored", self.name, unscored, len(final))
        return final


def grader_for(grader: Grader, mode: GradingMode = "hybrid", *, batched: bool | None = None) -> Grader:
    """A grader for a request's ``grading`` option, derived from the injected one.

    ``rule`` → rule checks only; ``judge`` → the judge on every item (checks ignored); ``hybrid`` →
    the injected grader. ``batched`` switches a ``JudgeGrader`` (also inside a hybrid) to that mode.
    """
    judge: Grader | None = grader.judge if isinstance(grader, HybridGrader) else grader
    if isinstance(judge, RuleGrader):
        judge = None
    if batched is not None and isinstance(judge, JudgeGrader):
        judge = judge.with_batched(batched)
    if mode == "rule":
        return HybridGrader(None) if not isinstance(grader, RuleGrader) else grader
    if mode == "judge":
        return judge if judge is not None else HybridGrader(None)
    if isinstance(grader, HybridGrader):
        return HybridGrader(judge) if judge is not grader.judge else grader
    return grader
