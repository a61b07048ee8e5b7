"""Round 75 (data/natural/dev/*-r75.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Seek same-day help in A&E if ..." is safety-netting; "Stroke alert
is activated" and "you're admitted under the GI bleed team" are emergency care now; "Is it sore when you're with your
husband?" asks about painful intercourse; plain empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("plan", "netted"), [
    ("Seek same-day help in A&E if you get fever with rigors.", True),  # agentclinic-0026, checklist
    ("Seek urgent help if the pain spreads.", True),
    ("Seek advice from the pharmacist about the dose.", False),
])
def test_seeking_same_day_help_is_safety_netting(plan: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nTriptan as needed. {plan}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "now"), [
    ("Stroke alert is activated. IV tenecteplase now.", True),  # ischaemic-stroke, us_abbrev
    ("Plan, starting now: you're admitted under the GI bleed team.", True),  # upper-gi-bleed, checklist
    ("If you're admitted, the team will see you.", False),
    ("You were admitted last year with the same thing.", False),
])
def test_a_stroke_alert_or_an_admission_now_is_emergency_care(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Upper gastrointestinal bleed", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Upper gastrointestinal bleed\n{plan}"],
                "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("question", "named"), [
    ("Is it sore when you're with your husband?", True),  # agentclinic-0027, gp_lay
    ("Is your husband sore anywhere?", False),
])
def test_sore_when_with_your_husband_is_painful_intercourse(question: str, named: bool) -> None:
    assert ("dyspareunia" in clinical.terms(question)) is named


@pytest.mark.parametrize(("plan", "empathic"), [
    ("It's real, and it's not in your head, God love you.", True),  # agentclinic-0027, gp_lay
    ("Living alone with this isn't easy.", True),  # community-pneumonia, gp_lay
    ("This knocks people flat at any age; you'll get through it.", True),  # community-pneumonia, us_abbrev
    ("The cyst is in your head, not your neck.", False),
    ("Getting through the course matters: take all the tablets.", False),
])
def test_plain_words_of_empathy_round_75(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Acknowledges the patient's concerns") is empathic
