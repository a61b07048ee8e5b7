"""Rule checks decided on example conversations."""

from __future__ import annotations

import time

import pytest

from verifier.rule_grader import RuleGrader
from verifier.types import (
    AskedBeforeDiagnosis,
    DiagnosisMatches,
    MentionsAll,
    MentionsAny,
    Message,
    NotMentions,
    OrderedTest,
    RecommendsEmergency,
    RegexCheck,
    RubricItem,
    WordLimit,
)

CONSULT = [
    Message(role="user", content="I have crushing chest pain since an hour."),
    Message(role="assistant", content="Does the pain spread to your arm or jaw? Any shortness of breath?"),
    Message(role="user", content="Yes, to my left arm. I smoke."),
    Message(role="assistant", content="REQUEST TEST: ECG\nREQUEST TEST: Cardiac troponin I"),
    Message(role="user", content="ECG: ST elevation in II, III, aVF. Troponin 2.1 ng/mL."),
    Message(
        role="assistant",
        content="DIAGNOSIS: Inferior STEMI (myocardial infarction). Call 911 now; chew an aspirin. "
        "When did it start exactly?",
    ),
]


def item(check, points: int = 5) -> RubricItem:
    return RubricItem(criterion="c", points=points, tags=["axis:x"], check=check)


CASES = [
    (MentionsAny(terms=["jaw", "neck"]), True),
    (MentionsAny(terms=["fever"]), False),
    (MentionsAny(terms=["arm"], scope="response"), False),  # only the last turn is searched
    (MentionsAll(terms=["aspirin", "911"]), True),
    (MentionsAll(terms=["aspirin", "nitroglycerin"]), False),
    (NotMentions(terms=["antacid", "indigestion"]), True),
    (NotMentions(terms=["aspirins"]), True),  # whole words only: "aspirins" is not "aspirin"
    (RegexCheck(pattern=r"st\s+elevation", scope="all"), True),
    (AskedBeforeDiagnosis(terms=["shortness of breath", "dyspnea"]), True),
    (AskedBeforeDiagnosis(terms=["start"]), False),  # asked only in the diagnosis turn
    (DiagnosisMatches(synonyms=["STEMI", "myocardial infarction"]), True),
    (DiagnosisMatches(synonyms=["Pulmonary embolism"]), False),
    (OrderedTest(tests=["Troponin"]), True),
    (OrderedTest(tests=["Electrocardiogram (ECG)"], allow_mention=False), True),
    (OrderedTest(tests=["D-dimer"]), False),
    (RecommendsEmergency(), True),
    (WordLimit(max_words=10), False),
    (WordLimit(max_words=40, min_words=5), True),
]


@pytest.mark.parametrize(("check", "expected"), CASES, ids=[f"{c.kind}-{i}" for i, (c, _) in enumerate(CASES)])
async def test_rule_checks(check, expected: bool) -> None:
    [result] = await RuleGrader().grade(CONSULT, [item(check)])
    assert result.met is expected, result.explanation
    assert result.grader == "rule" and result.explanation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Please go to the emergency department right away.", True),
        ("Call an ambulance.", True),
        ("Seek immediate medical attention.", True),
        ("There is no need to go to the ER for this.", False),
        ("You don't need emergency care; rest and fluids.", False),
        ("Er, I think it is a cold. Drink water.", False),
    ],
)
async def test_recommends_emergency_phrases(text: str, expected: bool) -> None:
    convo = [Message(role="user", content="help"), Message(role="assistant", content=text)]
    [result] = await RuleGrader().grade(convo, [item(RecommendsEmergency())])
    assert result.met is expected


async def test_items_without_check_are_unscored() -> None:
    results = await RuleGrader().grade(CONSULT, [RubricItem(criterion="Is empathic", points=3)])
    assert results[0].met is None


async def test_diagnosis_without_marker_falls_back_to_response() -> None:
    convo = [Message(role="user", content="?"), Message(role="assistant", content="This looks like migraine.")]
    [result] = await RuleGrader().grade(convo, [item(DiagnosisMatches(synonyms=["Migraine"]))])
    assert result.met is True


def test_rule_throughput_is_fast() -> None:
    items = [item(check) for check, _ in CASES] * 20
    grader = RuleGrader()
    start = time.perf_counter()
    for _ in range(5):
        grader.grade_sync(CONSULT, items)
    rate = 5 * len(items) / (time.perf_counter() - start)
    assert rate > 1000, f"{rate:.0f} items/s"  # the benchmark's target is 5,000/s; CI cores are shared
