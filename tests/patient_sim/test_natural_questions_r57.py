"""Questions the template patient left unanswered in rounds 57 to 62 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: a hedge names nothing ("even a touch"), weight lost counted in pounds, fullness as early satiety,
"keeping well" as how the patient is in themselves, and yellow in the whites of the eyes as jaundice."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("Did anything help even a touch?", True),  # agentclinic-0056, gp_lay
    ("Did anything help?", True),
    ("Does it hurt to touch?", False),
])
def test_a_hedge_names_nothing(question: str, told: bool) -> None:
    case = _case(chief_complaint="A crusty lesion", secondary_symptoms=["History of unsuccessful treatment for eczema"])
    assert any("unsuccessful" in f for f in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("How many lbs lost, over what time frame?", True),  # agentclinic-0058, us_abbrev
    ("Pounds lost?", True),
    ("How many lbs do you lift at work?", False),
])
def test_weight_lost_in_pounds_is_weight_loss(question: str, told: bool) -> None:
    case = _case(chief_complaint="Fatigue", history_of_present_illness="He reports losing weight without trying over the last month.")
    assert any("losing weight" in f.lower() for f in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("fact", "question", "told"), [
    ("Feeling an unusual fullness in the belly area", "Early satiety?", True),  # agentclinic-0004, us_abbrev (round 59)
    ("Feeling an unusual fullness in the belly area", "Any heartburn?", False),
    ("No fever, weight loss or night sweats", "Are you keeping well otherwise?", True),  # agentclinic-0107, gp_lay
    ("No fever, weight loss or night sweats", "Are you keeping the diary?", False),
])
def test_fullness_and_keeping_well(fact: str, question: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", secondary_symptoms=[fact])
    assert (fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Is there yellow in the whites of his eyes too?", True),  # agentclinic-0073, gp_lay (round 62)
    ("When did you first see the yellow?", True),  # checklist
    ("Is there redness in the whites of his eyes?", False),
])
def test_yellow_in_the_whites_of_the_eyes_is_jaundice(question: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell baby", secondary_symptoms=["Scleral icterus noted"])
    assert any("icterus" in f.lower() for f in _replies(case, question)[0]) is told
