"""Questions the template patient left unanswered in several rounds (data/natural/dev/answerable/, rounds 15 to 72,
read together), on a made-up record beside a lookalike: a spouse answers "Sexual partners?"; a plant's name answers
"Plants?"; "well before this" asks the past history; a blanket negative about the pregnancy's diseases answers
"Pre-eclampsia?"."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from verifier import clinical

WIFE = "Lives with his 4th wife, smokes 2 packs a day"


@pytest.mark.parametrize(("question", "told"), [
    ("Sexual partners?", True),  # agentclinic-0056, ten times in rounds 16 to 72
    ("Are you with one partner at the moment, and have you had any new partners?", True),
    ("Any medical problems?", False),
])
def test_a_spouse_answers_the_sexual_history(question: str, told: bool) -> None:
    case = _case(chief_complaint="Sore on the penis", social_history=[WIFE])
    assert (WIFE in _replies(case, question)[0]) is told


def test_the_grader_does_not_read_a_spouse_as_the_sexual_history() -> None:
    assert "sexual_history" not in clinical.terms("Is your wife with you today?")  # told_as is the patient's only
    assert "sexual_history" in clinical.terms("Sexually active, any new partners?")


IVY = "Has been hiking in the woods but denies contact with poison ivy"


@pytest.mark.parametrize(("question", "told"), [
    ("Plants, bites?", True),  # agentclinic-0098, eight times
    ("Any plant exposure, insect bites, new soaps or detergents?", True),
    ("Any travel abroad?", False),
])
def test_a_plant_s_name_answers_plants(question: str, told: bool) -> None:
    case = _case(chief_complaint="Blisters on the forearm", social_history=[IVY])
    assert any("poison ivy" in fact for fact in _replies(case, question)[0]) is told  # told as "no contact with ..."


@pytest.mark.parametrize(("question", "told"), [
    ("Has she been well in herself before this?", True),  # agentclinic-0068, five times
    ("And is he normally a healthy boy?", True),  # agentclinic-0104
    ("Any allergies?", False),
])
def test_well_before_this_asks_the_past_history(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bruising", past_medical_history=["Unremarkable past medical history"])
    assert any("past medical history" in fact for fact in _replies(case, question)[0]) is told  # "Nothing unusual ..."


def test_nephrolithiasis_is_a_kidney_stone() -> None:
    assert "kidney_stones" in clinical.terms("Hx of nephrolithiasis?")  # agentclinic-0041, us_abbrev
    assert "kidney_stones" not in clinical.terms("Hx of nephritis?")


HEALTHY = "The mother had gestational diabetes but was otherwise healthy with no other pregnancy-related diseases"


@pytest.mark.parametrize(("question", "told"), [
    ("HTN or preeclampsia?", True),  # agentclinic-0097, us_abbrev
    ("Any pre-eclampsia?", True),
    ("Maternal fever or chorio?", True),
    ("Any cough?", False),
])
def test_no_pregnancy_related_diseases_answers_pre_eclampsia(question: str, told: bool) -> None:
    case = _case(chief_complaint="Fast breathing", history_of_present_illness=f"Born by caesarean section. {HEALTHY}.")
    assert (HEALTHY in _replies(case, question)[0]) is told
