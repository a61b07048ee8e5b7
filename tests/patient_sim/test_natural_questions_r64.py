"""Questions the template patient left unanswered in round 64 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: a baby's hearing asked by whether she startles to loud noises, and "worse at the end of the day" as
what makes it worse."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("Does she startle to loud noises?", True),  # agentclinic-0008, gp_lay
    ("Does she react to loud sounds?", True),  # checklist
    ("Do loud noises bother you?", False),  # a headache's phonophobia, not hearing
])
def test_startling_to_loud_noises_is_hearing(question: str, told: bool) -> None:
    case = _case(chief_complaint="Heart murmur", secondary_symptoms=["Failure to pass auditory screening tests"])
    assert ("Failure to pass auditory screening tests" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Worse end of day?", True),  # agentclinic-0001, terse
    ("Is it worse at the end of the day?", True),  # gp_lay
    ("How was the end of the holiday?", False),
])
def test_worse_at_the_end_of_the_day_asks_what_makes_it_worse(question: str, told: bool) -> None:
    case = _case(chief_complaint="Double vision",
                 history_of_present_illness="A 1-month history of double vision. These symptoms tend to worsen after "
                                            "physical activity but improve significantly after a few hours of rest.")
    assert any("worsen after physical activity" in f for f in _replies(case, question)[0]) is told
