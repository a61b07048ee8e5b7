"""Questions the template patient left unanswered in round 51 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: the head tipped back is the neck extended, and "make her scratch" asks about itch."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

EASED = "Relief with neck extension"
RASH = "Generalized nonpruritic rash"


@pytest.mark.parametrize(("question", "told"), [
    ("Does anything ease it, like when he tips his head back?", True),  # agentclinic-0062 (r51), gp_lay
    ("Better if his head goes back?", True),  # checklist
    ("Any head injury?", False),
])
def test_the_head_tipped_back_is_the_neck_extended(question: str, told: bool) -> None:
    case = _case(chief_complaint="Noisy breathing", secondary_symptoms=[EASED])
    assert (EASED in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Does it seem to bother her or make her scratch?", True),  # agentclinic-0046 (r51), gp_lay
    ("Does it make her cry?", False),
])
def test_scratching_asks_about_itch(question: str, told: bool) -> None:
    case = _case(chief_complaint="A rash", secondary_symptoms=[RASH])
    assert (RASH in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Family history of eczema, psoriasis or allergies?", True),  # agentclinic-0071 (r51), checklist
    ("Any allergies?", False),  # the patient's own: the record is silent
])
def test_the_familys_allergies_are_its_history(question: str, told: bool) -> None:
    # an imported record files it in the past history, where no family topic gates it
    case = _case(chief_complaint="A rash", past_medical_history=["Family history of psoriasis"])
    assert ("Family history of psoriasis" in _replies(case, question)[0]) is told
