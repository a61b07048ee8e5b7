"""The ``medical`` verifier backend: HealthBench rubric tasks and case-based consultations.

* Rubric task: the conversation is the task's prompt followed by the trajectory (the response turns);
  the rubric is the task's.
* Consultation: the trajectory is the whole dialogue (doctor = ``assistant``); the rubric is the
  task's, or generated from the case by the injected ``RubricGenerator``.

The reward is the HealthBench example score clipped to [0, 1] (after the optional length adjustment).
When no scored item has positive points the example has no score: the reward is None,
``meta["scored"]`` is False and ``meta["unscored_reason"]`` says why (the judge failed, no judge was
configured for the judge-only items, or the rubric has only negative items).

``options.judge_recheck`` (off by default; hybrid grading with a judge) lets the judge re-decide the
positive items the rule left unmet, each on a narrow view of the doctor's words for it
(``verifier.graders.recheck_views``); ``meta`` then counts what it credited, confirmed and failed on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from verifier.graders import RECHECK_FAILED, RECHECK_SUFFIX, grader_for
from verifier.protocols import Grader, RubricGenerator
from verifier.scoring import length_adjusted, score_example
from verifier.types import (
    Case,
    ConsultationTask,
    CriterionResult,
    MedicalVerifyRequest,
    Message,
    MetaValue,
    RubricItem,
    RubricTask,
    VerifyResult,
)

logger = logging.getLogger(__name__)

DOMAIN = "medical"


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _unscored_reason(results: Sequence[CriterionResult]) -> str:
    """Why no item with positive points was scored."""
    positive = [r for r in results if r.points > 0]
    if not positive:
        return "the rubric has no item with positive points"
    graders = sorted({r.grader for r in positive})
    if graders == ["none"]:
        return f"{len(positive)} positive item(s) need a judge and none is configured"
    return f"{len(positive)} positive item(s) unscored by {', '.join(graders)} (the judge gave no usable verdict)"


async def grade_conversation(
    conversation: list[Message],
    items: list[RubricItem],
    grader: Grader,
    *,
    example_tags: Sequence[str] = (),
    length_penalty: float = 0.0,
    case: Case | None = None,
) -> VerifyResult:
    """Grade ``conversation`` (its assistant turns are judged) against ``items``.

    ``scores`` holds ``overall`` (the unclipped HealthBench example score), every rubric tag with
    positive scored points (``axis:*``, ``level:*``, ...), the example tags, and ``length_adjusted``
    when ``length_penalty`` is set. ``reward`` is the (adjusted) overall score clipped to [0, 1].
    """
    if not items:
        raise ValueError("the rubric has no items")
    if not any(m.role == "assistant" for m in conversation):
        raise ValueError("the conversation has no assistant turn to grade")
    results = await grader.grade(conversation, items, case=case)
    if len(results) != len(items):
        raise RuntimeError(f"grader {grader.name} returned {len(results)} results for {len(items)} items")
    example = score_example(results, example_tags=example_tags)
    scores: dict[str, float] = {}
    meta: dict[str, MetaValue] = {
        "grader": grader.name,
        "items": len(items),
        "scored": example.overall is not None,
    }
    reward: float | None = None
    if example.overall is not None:
        scores["overall"] = example.overall
        scores.update({tag: example.overall for tag in example.example_tags})
        final = example.overall
        if length_penalty:
            chars = sum(len(m.content) for m in conversation if m.role == "assistant")
            final = length_adjusted(example.overall, chars, length_penalty)
            scores["length_adjusted"] = final
            meta["response_chars"] = chars
        reward = _clip(final)
    else:
        meta["unscored_reason"] = _unscored_reason(results)
        logger.warning("could not grade: %s; reward None", meta["unscored_reason"])
    scores.update(example.tag_scores)
    return VerifyResult(
        domain=DOMAIN, reward=reward, scores=scores, criteria=results, unscored=example.unscored, meta=meta
    )


def recheck_meta(results: Sequence[CriterionResult]) -> dict[str, MetaValue]:
    """What the judge's recheck did to a result: items it credited, items it confirmed unmet, items it
    gave no verdict for (the rule's verdict stands)."""
    rechecked = [r for r in results if r.grader.endswith(RECHECK_SUFFIX)]
    return {
        "judge_recheck": True,
        "recheck_credited": sum(1 for r in rechecked if r.met),
        "recheck_kept": sum(1 for r in rechecked if r.met is False),
        "recheck_failed": sum(1 for r in results if RECHECK_FAILED in r.explanation),
    }


def rubric_conversation(task: RubricTask, trajectory: list[Message]) -> list[Message]:
    """The prompt followed by the response turns (a trajectory that repeats the prompt is accepted)."""
    if len(trajectory) >= len(task.prompt) and trajectory[: len(task.prompt)] == task.prompt:
        return list(trajectory)
    return [*task.prompt, *trajectory]


class MedicalBackend:
    domain = DOMAIN

    def __init__(self, rubric_generator: RubricGenerator, grader: Grader) -> None:
        self.rubric_generator = rubric_generator
        self.grader = grader

    async def verify(self, request: MedicalVerifyRequest) -> VerifyResult:  # type: ignore[override]
        if not isinstance(request, MedicalVerifyRequest):
            request = MedicalVerifyRequest.model_validate(request)
        options = request.options
        grader = grader_for(
            self.grader, options.grading, batched=options.batched, recheck=options.judge_recheck
        )
        task = request.task
        meta: dict[str, MetaValue] = {}
        case: Case | None = None
        if isinstance(task, RubricTask):
            conversation = rubric_conversation(task, request.trajectory)
            items = task.rubrics
            example_tags: list[str] = list(task.example_tags)
            meta.update(rubric_generator="given", task="rubric", prompt_id=task.prompt_id)
        elif isinstance(task, ConsultationTask):
            conversation = list(request.trajectory)
            case = task.case
            example_tags = []
            meta.update(task="consultation", case_id=case.id)
            if task.rubrics:
                items = task.rubrics
                meta["rubric_generator"] = "given"
            else:
                rubric = await self.rubric_generator.generate(case=case, conversation=conversation)
                items = rubric.items
                meta["rubric_generator"] = f"{rubric.generator}@{rubric.version}"
                if rubric.fallback_reason:
                    meta["rubric_fallback_reason"] = rubric.fallback_reason
        else:  # pragma: no cover - the discriminated union admits nothing else
            raise TypeError(f"unsupported medical task {type(task).__name__}")
        result = await grade_conversation(
            conversation,
            items,
            grader,
            example_tags=example_tags,
            length_penalty=options.length_penalty,
            case=case,
        )
        result.meta.update(meta)
        result.meta["grading"] = options.grading
        if options.judge_recheck:
            result.meta.update(recheck_meta(result.criteria))
        return result
