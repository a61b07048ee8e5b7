"""Questions the template patient left unanswered in round 80 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: a greeting in dialect ("How you feelin', darlin'?", "how ya keepin'?") is an open question, "startle to
loud sounds" asks a baby's hearing, and "eyes or skin yellow" asks about jaundice."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

STORY = "A 5-month history of worsening bladder discomfort, which is relieved by voiding"


@pytest.mark.parametrize(("question", "told"), [
    ("How you feelin', darlin'?", True),  # agentclinic-0024, checklist
    ("Hello, darlin', how ya keepin'?", True),  # agentclinic-0027, gp_lay
    ("How ya doin'?", True),
    ("How you take your tablets?", False),
])
def test_a_greeting_in_dialect_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Does she startle to loud sounds?", True),  # agentclinic-0008, checklist
    ("Have you noticed her react to noise?", True),  # agentclinic-0008, gp_lay
    ("Does she feed well?", False),
])
def test_a_babys_hearing_is_asked_by_what_she_does(question: str, told: bool) -> None:
    case = _case(chief_complaint="Newborn check", history_of_present_illness="Failure to pass auditory screening tests.")
    assert any("auditory" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Noticed your eyes or skin yellow?", True),  # agentclinic-0026, checklist
    ("Noticed any rash?", False),
])
def test_eyes_or_skin_yellow_asks_about_jaundice(question: str, told: bool) -> None:
    case = _case(chief_complaint="Itching", review_of_systems=["Yellowing of the skin for two weeks"])
    assert any("ellow" in fact for fact in _replies(case, question)[0]) is told
