"""Round 89 (data/natural/dev/*-r89.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "hein?" checks a duration back and "since exactly when?" asks the
start; a terse "Irregular?" asks whether the beat is regular or irregular; "I'm calling the heart team now: you're going straight to the
cath lab", "The plan: you're staying in." and a terse "Admitting." are emergency care now, while a list of danger signs
before "emergency department now" is a condition; "..., you tell the nurse right away", "...: say so straight away",
"...: shout" and "Any new ..., straight to the ED" are safety-netting; "Ag shame" and "you were right to come" are
empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Six months, hein?", True),  # agentclinic-0093, terse
    ("The fever, since exactly when?", True),  # agentclinic-0084, checklist
    ("A fever, hein?", False),
    ("Exactly which fever?", False),
])
def test_hein_and_since_exactly_when_ask_the_start(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "asks"), [
    ("Irregular?", True),  # atrial-fibrillation, terse
    ("Is it regular?", True),
    ("Fast?", False),
    ("Irregular periods?", False),
])
def test_a_terse_irregular_asks_regular_or_irregular(question: str, asks: bool) -> None:
    case = _case(final_diagnosis="Atrial fibrillation", key_questions=["Is the heartbeat regular or irregular?"])
    turns = [question, "DIAGNOSIS: Atrial fibrillation"]
    assert _met(case, turns, "Before giving a diagnosis, asks: Is the heartbeat regular or irregular?") is asks


@pytest.mark.parametrize(("plan", "now"), [
    ("I'm calling the heart team now: you're going straight to the cath lab.", True),  # acs-stemi, gp_lay
    ("The plan: you're staying in. Oxygen to get your levels up.", True),  # pulmonary-embolism, gp_lay
    ("Admitting. Oxygen. Anticoagulant now.", True),  # pulmonary-embolism, terse
    ("If the pain comes back: you're going straight to the cath lab.", False),
    ("You're staying in bed for a day or two.", False),
])
def test_the_emergency_plans_of_round_89(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Pulmonary embolism\n{plan}"], "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("advice", "over"), [
    ("Can't swallow fluids, drooling, one-sided swelling, breathing trouble: emergency department now.", False),  # strep
    ("You need the emergency department now.", True),
])
def test_a_list_of_danger_signs_before_the_emergency_department_is_a_condition(advice: str, over: bool) -> None:
    case = _case(final_diagnosis="Streptococcal tonsillitis", disposition="routine")
    assert _met(case, ["Any fever?", f"DIAGNOSIS: Streptococcal tonsillitis\nPenicillin V. {advice}"],
                "Sends the patient for emergency care") is over


@pytest.mark.parametrize(("advice", "netted"), [
    ("Meanwhile, worsening confusion, SOB, chest pain, dark or scant urine, you tell the nurse right away.", True),
    ("Worse pain, dizziness, feeling faint, or more breathless: say so straight away.", True),  # acs-stemi, checklist
    ("Pain worse, faint, breathless: shout. Straight away.", True),  # acs-stemi, terse
    ("Any new sudden scrotal pain on either side down the road, straight to the ED, no waiting.", True),  # 0102
    ("Fluids, rest, paracetamol, you tell the nurse your pain score.", False),
    ("Your pain, dizziness and breathing: we'll say so in the letter.", False),
])
def test_the_safety_netting_of_round_89(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Ag shame, that sounds miserable.", True),  # dka, us_abbrev
    ("You were right to come.", True),  # atrial-fibrillation, gp_lay
    ("Ag, come back in a week.", False),
    ("You were booked to come back in a week.", False),
])
def test_the_empathy_of_round_89(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
