"""Round 35 (data/natural/dev/*-r35.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. Remote care that flies the patient out ("medevac", "RFDS"),
what the place lacks heading where the patient goes ("No OR here: medevac launched"), safety-netting as a same-day
review for a list of signs, a week's drinking in a usual week, feeds kept down, a fit, end-range pain, pain in bed at
night, the first episode's time, and brief empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("text", "outright"), [
    ("Medevac to an ICU in Anchorage; the flight team is inbound.", True),
    ("No OR here: medevac launched, OB/GYN in Anchorage accepted for emergency laparoscopy.", True),
    ("Needs surgery. No theatre here: medevac to Anchorage, crew inbound.", True),
    ("Plan:\n- No OR here: medevac launched, OB/GYN accepted.", True),  # as a bullet of the plan
    ("MICU is coming down to admit you.", True),
    ("If you get worse, we will arrange a medevac.", False),
    ("Medevac was not needed last year.", False),
    ("No better by morning: 999.", False),
])
def test_remote_care_flies_the_patient_out(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Same-day eval for a hot, swollen joint, fever, or withdrawal sx.", True),
    ("Same day for a hot swollen joint, fever, or withdrawal shakes.", True),
    ("Same-day review for your results, ECG and bloods.", False),
    ("Same day for bloods, ECG and CXR.", False),
])
def test_safety_netting_as_a_same_day_review_for_signs(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("finding", "question", "asked"), [
    ("Vomiting", "Walk me through the emesis: first episode when?", True),
    ("Vomiting", "Walk me through the emesis: how often?", False),
    ("Feeding intolerance", "Kept any down?", True),
    ("Feeding intolerance", "Any diarrhoea?", False),
    ("History of a generalized tonic-clonic seizure", "Tell me about the fit... whole body shaking or just one side?",
     True),
    ("History of a generalized tonic-clonic seizure", "Are you fit and well otherwise?", False),
    ("Pain at extremes of motion", "Pain at end range or through the whole arc?", True),
    ("Painful awakenings during night", "Is it there when you're resting or in bed at night?", True),
    ("Painful awakenings during night", "Is it there when you're resting?", False),
])
def test_findings_asked_in_the_writers_words(finding: str, question: str, asked: bool) -> None:
    case = _imported(finding)
    criterion = ("Before giving a diagnosis, asks about when the symptoms started" if question.endswith("when?")
                 or question.endswith("often?") else f"Before giving a diagnosis, asks about {finding[0].lower()}{finding[1:]}")
    assert _asked(case, question, criterion) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("How much are you drinking in a usual week?", True),
    ("How much are you drinking a day, water-wise?", False),
])
def test_a_usual_week_s_drinking_is_alcohol(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Depression", key_questions=["How much alcohol do you drink"])
    assert _met(case, [question, "DIAGNOSIS: Depression"], "Before giving a diagnosis, asks: How much alcohol") is asked


@pytest.mark.parametrize(("words", "kind"), [
    ("Thank you, that's a lot to carry.", True),
    ("There's poorly she's been, but she'll be right as rain.", True),
    ("You did right calling. This gets better.", True),
    ("Hang in there.", True),
    ("Carry on with the tablets.", False),
    ("Ring me if it is not right.", False),
])
def test_brief_empathy(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind
