"""Rule checks decided on example conversations."""

from __future__ import annotations

import time

import pytest

from verifier.rule_grader import RuleGrader
from verifier.types import (
    AskedBeforeDiagnosis,
    AsksAbout,
    DiagnosisMatches,
    DiagnosisMisses,
    Differential,
    ManyDiagnoses,
    MentionsAll,
    MentionsAny,
    Message,
    NotMentions,
    OrderedTest,
    QuestionBarrage,
    RecommendsEmergency,
    RegexCheck,
    RubricItem,
    UnindicatedTests,
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


# --------------------------------------------------------------------------- consultation conduct
def _consult(*doctor_turns: str) -> list[Message]:
    messages = [Message(role="user", content="I have chest pain.")]
    for turn in doctor_turns:
        messages += [Message(role="assistant", content=turn), Message(role="user", content="I see.")]
    return messages[:-1]


def _met(check, convo: list[Message]) -> bool | None:
    [result] = RuleGrader().grade_sync(convo, [item(check)])
    return result.met


SMOKE = AsksAbout(groups=[["smoke", "smoking", "cigarettes"]])
FAMILY_HEART = AsksAbout(groups=[["family"], ["heart"], ["disease"]], min_groups=2)


def test_a_key_question_counts_only_as_a_question_in_a_focused_turn() -> None:
    assert _met(SMOKE, _consult("Do you smoke?", "DIAGNOSIS: STEMI"))
    assert not _met(SMOKE, _consult("Smoking is bad for the heart.", "DIAGNOSIS: STEMI"))  # not a question
    # several focused questions a turn are history-taking (issue 28); a barrage turn is not
    assert _met(SMOKE, _consult("Any fever? Any cough? Any rash? Do you smoke?", "DIAGNOSIS: STEMI"))  # 4 questions
    assert not _met(SMOKE, _consult("Any fever? Any cough? Any rash? Any wheeze? Any weight loss? Any travel? "
                                    "Do you smoke?", "DIAGNOSIS: STEMI"))  # 7 questions
    assert not _met(SMOKE, _consult("Do you smoke? " + "filler " * 150, "DIAGNOSIS: STEMI"))  # 150+ words
    assert not _met(SMOKE, _consult("DIAGNOSIS: STEMI", "Do you smoke?"))  # asked after the diagnosis
    assert _met(SMOKE, _consult("Tell me whether you smoke cigarettes", "DIAGNOSIS: STEMI"))  # question form, no "?"


def test_a_key_question_needs_its_distinguishing_words() -> None:
    assert _met(FAMILY_HEART, _consult("Any family history of heart problems?"))
    assert not _met(FAMILY_HEART, _consult("Any family history of anything?"))  # one group of three


def test_question_barrage_per_turn_and_in_total() -> None:
    barrage = QuestionBarrage(max_per_turn=4, max_total=6)
    assert not _met(barrage, _consult("Any fever? Any cough?", "Any rash? Any pain?"))
    assert _met(barrage, _consult("Any fever? Any cough? Any rash? Any pain? Any travel?"))
    assert _met(barrage, _consult(*["Any fever? Any cough?"] * 4))


@pytest.mark.parametrize(
    ("final", "misses", "many"),
    [
        ("DIAGNOSIS: STEMI", False, False),
        ("DIAGNOSIS: Pulmonary embolism", True, False),
        ("DIAGNOSIS: STEMI or pulmonary embolism", True, True),
        ("DIAGNOSIS: Infection", True, False),
        ("DIAGNOSIS: STEMI\nDIAGNOSIS: Pericarditis", True, True),
        ("No idea yet.", False, False),  # nothing stated: not a wrong diagnosis
    ],
)
def test_wrong_listed_and_vague_diagnoses_are_negative_items(final: str, misses: bool, many: bool) -> None:
    convo = _consult("When did it start?", final)
    assert _met(DiagnosisMisses(synonyms=["STEMI", "myocardial infarction"]), convo) is misses
    assert _met(ManyDiagnoses(synonyms=["STEMI"]), convo) is many
    # the case rubric's form: ending without any diagnosis costs as much as a wrong one
    unstated = DiagnosisMisses(synonyms=["STEMI", "myocardial infarction"], unstated=True)
    assert _met(unstated, convo) is (misses or final == "No idea yet.")


def test_naming_many_conditions_is_a_shotgun_even_with_one_diagnosis_line() -> None:
    listing = "It might be pneumonia, asthma, gout, migraine, stroke, sepsis, croup, anaemia or shingles."
    convo = _consult(listing, "DIAGNOSIS: STEMI")
    assert _met(ManyDiagnoses(synonyms=["STEMI"], max_conditions=8), convo)
    assert not _met(Differential(terms=["pneumonia"], synonyms=["STEMI"]), convo)  # a list, not a differential
    assert _met(Differential(terms=["aortic dissection"], synonyms=["STEMI"]),
                _consult("DIAGNOSIS: STEMI. Aortic dissection is less likely."))
    assert not _met(Differential(terms=["aortic dissection"]), _consult("Aortic dissection is possible."))  # no diagnosis


def test_tests_are_credited_only_when_ordered_by_their_full_name() -> None:
    aortogram = OrderedTest(tests=["CT aortogram"], allow_mention=False)
    assert _met(aortogram, _consult("REQUEST TEST: CT aortogram"))
    assert not _met(aortogram, _consult("REQUEST TEST: CT"))  # less specific than the test
    assert not _met(aortogram, _consult("We should get a CT aortogram."))  # mentioned, not ordered
    assert not _met(aortogram, _consult("REQUEST TEST: " + " and ".join(["CT aortogram", "FBC", "CRP", "MRI", "ECG"])))


def test_unindicated_tests_beyond_the_tolerance() -> None:
    check = UnindicatedTests(indicated=["ECG", "Troponin", "Imaging > Chest X-ray"], tolerance=2)
    assert not _met(check, _consult("REQUEST TEST: ECG\nREQUEST TEST: troponin\nREQUEST TEST: FBC\nREQUEST TEST: CRP"))
    assert _met(check, _consult("REQUEST TEST: ECG, FBC, CRP, MRI brain"))
    assert _met(check, _consult("REQUEST TEST: FBC and CRP and MRI brain"))  # an "and" chain is several orders
    assert not _met(check, _consult("REQUEST EXAM: cardiovascular\nREQUEST EXAM: abdomen\nREQUEST EXAM: neuro"))
    assert not _met(check, _consult("REQUEST TEST: urea and electrolytes, ECG", "REQUEST TEST: Chest X-ray"))


@pytest.mark.parametrize(
    ("text", "unconditional"),
    [
        ("Call 999 now.", True),
        ("You need to go to the emergency department now; if it gets worse before then, call us.", True),
        ("If the pain comes back, go to the emergency department.", False),
        ("Go to the emergency department if you feel faint.", False),
        ("Did you come by ambulance?", False),
        ("You may need to go to hospital for an X-ray next week.", False),
        ("Go to hospital right away.", True),
        ("Chest pain with sweating or breathlessness means call 999.", False),
        ("For chest pain with sweating or shortness of breath, call 911.", False),
        ("This means calling an ambulance now.", True),
        ("For now, call 999.", True),
        ("Low oxygen, fast pulse: emergency, admitted now.", True),
        ("Saddle numbness, bladder or bowel change, or leg weakness: A&E immediately.", False),
        ("This is a medical emergency and treatment is starting right now.", True),
    ],
)
def test_only_an_unconditional_emergency_referral_counts_as_one(text: str, unconditional: bool) -> None:
    assert _met(RecommendsEmergency(unconditional=True), _consult(text)) is unconditional


def test_requires_diagnosis_gates_an_item_on_one_specific_diagnosis() -> None:
    plan = MentionsAny(terms=["follow-up"], requires_diagnosis=True)
    assert _met(plan, _consult("DIAGNOSIS: Migraine. Follow-up in two weeks."))
    assert not _met(plan, _consult("Follow-up in two weeks."))
    assert not _met(plan, _consult("DIAGNOSIS: Migraine or stroke. Follow-up in two weeks."))
    assert not _met(plan, _consult("DIAGNOSIS: Infection. Follow-up in two weeks."))


def test_a_work_up_with_a_few_extra_tests_is_not_a_test_shotgun() -> None:
    """With ``max_share``, three tests the record does not hold beside four it does are a work-up; three with one
    indicated test, or twenty common tests, are a shotgun. The parts of one panel ordered one by one (ESR, CRP and
    plasma viscosity: the inflammatory markers) are one test."""
    check = UnindicatedTests(indicated=["FBC", "Serum protein electrophoresis", "Blood film", "Calcium"],
                             tolerance=2, max_share=0.5)
    workup = "REQUEST TEST: FBC, blood film, calcium, serum protein electrophoresis, ESR, TSH, D-dimer"
    assert not _met(check, _consult(workup))
    assert _met(check, _consult("REQUEST TEST: FBC, ESR, TSH, D-dimer"))
    assert not _met(check, _consult("REQUEST TEST: FBC, ESR, CRP, plasma viscosity"))
    assert _met(check, _consult("REQUEST TEST: " + ", ".join(["ECG", "troponin", "CXR", "LFTs", "lipase", "TSH",
                                                              "D-dimer", "urinalysis", "FBC"])))
    # padding the shotgun with other names of one indicated test does not dilute it
    padded = "REQUEST TEST: FBC, CBC, full blood count, blood count, haemogram, ECG, troponin, CXR, TSH"
    assert _met(check, _consult(padded))
