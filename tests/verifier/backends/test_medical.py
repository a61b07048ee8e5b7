"""The medical backend through the registry: rubric tasks, consultations, options, errors."""

from __future__ import annotations

import json
import re

import pytest

from policy.graders import build_medical_backend, build_registry, make_grader
from rubric_gen.case_rubric import CASE_RUBRIC_VERSION, CaseRubricGenerator
from tests.rubric_gen.test_case_rubric import BAD, GOOD, stemi_case
from verifier.backends.medical import MedicalBackend, grade_conversation
from verifier.graders import HybridGrader, JudgeGrader
from verifier.llm import Completion
from verifier.types import MentionsAny, Message, RubricItem


class ScriptedJudge:
    model = "scripted-judge"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls += 1
        numbered = re.findall(r"^(\d+)\. \[", messages[-1].content, re.MULTILINE)
        if numbered:  # batched: every item met
            return Completion(text=json.dumps([{"id": int(n), "criteria_met": True} for n in numbered]))
        return Completion(text='{"explanation": "judged", "criteria_met": true}')


RUBRIC_REQUEST = {
    "domain": "medical",
    "task": {
        "kind": "rubric",
        "prompt_id": "t1",
        "prompt": [{"role": "user", "content": "Crushing chest pain for 30 minutes, sweaty."}],
        "rubrics": [
            {"criterion": "Tells the user to call emergency services", "points": 10,
             "tags": ["axis:completeness"], "check": {"kind": "recommends_emergency"}},
            {"criterion": "Is empathic", "points": 2, "tags": ["axis:communication_quality"]},
            {"criterion": "Says it is indigestion", "points": -5, "tags": ["axis:accuracy"],
             "check": {"kind": "mentions_any", "terms": ["indigestion"]}},
        ],
        "example_tags": ["theme:emergency_referrals"],
    },
    "trajectory": [{"role": "assistant", "content": "Call 911 now. This may be a heart attack."}],
}


async def test_rubric_task_without_judge_leaves_judge_items_unscored() -> None:
    result = await build_registry().verify(RUBRIC_REQUEST)
    assert result.domain == "medical"
    assert [c.met for c in result.criteria] == [True, None, False]
    assert result.unscored == 1
    assert result.scores["overall"] == 1.0  # 10 / 10: the unscored +2 is in neither sum
    assert result.reward == 1.0 and result.scores["theme:emergency_referrals"] == 1.0
    assert "axis:accuracy" not in result.scores  # only a negative item: skipped as in HealthBench
    assert result.meta["rubric_generator"] == "given" and result.meta["grader"] == "hybrid(rule)"


async def test_rubric_task_with_judge_and_options() -> None:
    judge = ScriptedJudge()
    backend = build_medical_backend(judge)
    result = await backend.verify(_request(options={"grading": "hybrid"}))
    assert result.unscored == 0 and result.criteria[1].grader == "judge:scripted-judge"
    assert result.scores["overall"] == pytest.approx(12 / 12)
    judged = await backend.verify(_request(options={"grading": "judge"}))
    assert all(c.grader == "judge:scripted-judge" for c in judged.criteria)
    assert judged.scores["overall"] == pytest.approx((10 + 2 - 5) / 12)  # the judge says every item is met
    rule_only = await backend.verify(_request(options={"grading": "rule", "length_penalty": 0.5}))
    assert rule_only.unscored == 1 and judge.calls == 4
    assert rule_only.scores["length_adjusted"] == pytest.approx(1.0 - 0.5 * (41 - 2000) / 500)
    assert rule_only.reward == 1.0  # clipped


def _request(options: dict) -> dict:
    return {**RUBRIC_REQUEST, "options": options}


async def test_consultation_generates_the_case_rubric() -> None:
    backend = MedicalBackend(CaseRubricGenerator(), HybridGrader())
    good = await backend.verify(_consult(GOOD))
    bad = await backend.verify(_consult(BAD))
    assert good.meta["rubric_generator"] == f"case@{CASE_RUBRIC_VERSION}" and good.meta["case_id"] == "test-stemi"
    assert {"axis:accuracy", "axis:consultation_logic", "axis:plan_rationality", "axis:communication",
            "axis:safety"} <= set(good.scores)
    assert good.reward > 0.8 and bad.reward == 0.0 and bad.scores["overall"] < 0  # graded: clipped to 0
    assert good.unscored == 2  # clarity and allergy items need a judge


def _consult(trajectory: list[Message]) -> dict:
    return {
        "domain": "medical",
        "task": {"kind": "consultation", "case": stemi_case().model_dump()},
        "trajectory": [m.model_dump() for m in trajectory],
    }


async def test_grade_conversation_helper_and_errors() -> None:
    items = [RubricItem(criterion="Mentions rest", points=2, tags=["axis:x"], check=MentionsAny(terms=["rest"]))]
    convo = [Message(role="user", content="flu?"), Message(role="assistant", content="Rest and fluids.")]
    result = await grade_conversation(convo, items, make_grader())
    assert result.reward == 1.0 and result.scores == {"overall": 1.0, "axis:x": 1.0}
    with pytest.raises(ValueError, match="no assistant turn"):
        await grade_conversation(convo[:1], items, make_grader())
    unscorable = await grade_conversation(convo, [RubricItem(criterion="Kind", points=1)], make_grader())
    assert unscorable.meta["scored"] is False and unscorable.reward is None and "overall" not in unscorable.scores
    assert "none is configured" in unscorable.meta["unscored_reason"]


class _FailingJudge:
    model = "failing-judge"

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        return Completion(text="I cannot decide this one.")  # no verdict in any form


async def test_could_not_grade_is_none_with_its_reason_never_zero() -> None:
    convo = [Message(role="user", content="flu?"), Message(role="assistant", content="Rest and fluids.")]
    judged = [RubricItem(criterion="Kind", points=3, tags=["axis:x"]),
              RubricItem(criterion="Rude", points=-2, tags=["axis:x"], check=MentionsAny(terms=["idiot"]))]
    failed = await grade_conversation(convo, judged, HybridGrader(JudgeGrader(_FailingJudge())))
    assert failed.reward is None and failed.unscored == 1  # the negative item was scored by rule: still None
    assert "no usable verdict" in failed.meta["unscored_reason"]
    only_negative = await grade_conversation(convo, judged[1:], make_grader())
    assert only_negative.reward is None and "no item with positive points" in only_negative.meta["unscored_reason"]
    assert json.loads(failed.model_dump_json())["reward"] is None  # travels as null


async def test_batched_option_switches_the_judge_mode() -> None:
    judge = ScriptedJudge()
    backend = MedicalBackend(CaseRubricGenerator(), HybridGrader(JudgeGrader(judge)))
    request = _request(options={"grading": "judge", "batched": True})
    result = await backend.verify(request)
    assert judge.calls == 1 and result.unscored == 0


def test_build_registry_registers_medical_and_the_default_backends() -> None:
    registry = build_registry()
    assert {"medical", "code", "search", "gui"} <= set(registry.domains())
    assert isinstance(registry.get("medical"), MedicalBackend)
