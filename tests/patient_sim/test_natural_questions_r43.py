"""Questions the template patient left unanswered in round 43 (data/natural/dev/answerable/), each on a made-up record
beside a lookalike: "wet himself" is incontinence, "Bullied?" finds the record's "no history of bullying", dropping
things and buttons are a weak grip, and "No PNC?" asks about care in pregnancy."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

CONTINENT = "No urinary incontinence"
NO_BULLYING = "No history of bullying or feeling unsafe at school or home"
GRIP = "Decreased hand grip with fasciculations"
NO_CARE = "The mother had no prenatal care"


@pytest.mark.parametrize(("question", "told"), [
    ("Had he wet himself?", True),  # agentclinic-0007 (r43), gp_lay
    ("Had he hurt himself?", False),
])
def test_wet_himself_is_incontinence(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Fainted after passing urine"], secondary_symptoms=[CONTINENT])
    assert any("incontinence" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Bullied?", True),  # agentclinic-0057 (r43), terse
    ("Sleeping?", False),
])
def test_bullied_finds_no_history_of_bullying(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Restless in class"], social_history=[NO_BULLYING])
    assert (NO_BULLYING in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Are you dropping things, or struggling with buttons or jars?", True),  # agentclinic-0077 (r43), gp_lay
    ("Are you losing weight?", False),
])
def test_dropping_things_is_a_weak_grip(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Neck pain after a car crash"], secondary_symptoms=[GRIP])
    assert (GRIP in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("No PNC, right?", True),  # agentclinic-0106 (r43), us_abbrev
    ("No fever, right?", False),
])
def test_no_pnc_asks_about_care_in_pregnancy(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Rash since birth"], family_history=[NO_CARE])
    assert any("prenatal care" in fact for fact in _replies(case, question)[0]) is told
