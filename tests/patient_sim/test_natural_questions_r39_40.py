"""Questions the template patient left unanswered in rounds 39 and 40 (data/natural/dev/answerable/: which ones the
record answers was a clinician's call), each on a made-up record beside a lookalike: a student answers what they do for
work or study, "no change in diet" answers "Eating normally?", a medication list is asked as a "med list", and the
Shetland "Whit like?" opens the story."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

STUDENT = "Student and active in sports, particularly football"
DIET = "No change in diet or exercise"
MEDS = "Takes efavirenz and tenofovir"


@pytest.mark.parametrize(("question", "told"), [
    ("What do you do for work or study?", True),  # agentclinic-0015 (r39), gp_lay
    ("Job or school?", True),
    ("Do you smoke?", False),
])
def test_a_student_answers_what_they_do(question: str, told: bool) -> None:
    case = _case(social_history=[STUDENT, "Non-smoker"])
    assert (STUDENT in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Are you still eating normally?", True),  # agentclinic-0032 (r39), gp_lay
    ("Appetite?", True),  # terse
    ("Any night sweats?", False),
])
def test_no_change_in_diet_answers_eating_normally(question: str, told: bool) -> None:
    case = _case(secondary_symptoms=["Significant unintentional weight loss", DIET])
    assert (DIET in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Full med list, and any drug allergies?", True),  # agentclinic-0021 (r40), checklist
    ("Any family history?", False),
])
def test_a_med_list_asks_the_medicines(question: str, told: bool) -> None:
    case = _case(medications=[MEDS], family_history=["Father had a stroke"])
    assert (MEDS in _replies(case, question)[0]) is told


def test_whit_like_opens_the_story() -> None:
    case = _case(chief_complaint="Rash on the cheeks", history_of_present_illness="Bright red rash on both cheeks.")
    assert _replies(case, "Whit like, lass?")[0]  # agentclinic-0035 (r40), gp_lay
    assert _replies(case, "Whit colour is your car?") == [[]]
