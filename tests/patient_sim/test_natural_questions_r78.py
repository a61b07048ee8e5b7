"""Questions the template patient left unanswered in round 78 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: a terse "Worse lately?" asks the course, and "Other illness?" the past history."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

COURSE = "Over the past 3 months, he has experienced increasing weakness in both hands"


@pytest.mark.parametrize(("question", "told"), [
    ("Worse lately?", True),  # agentclinic-0077, terse
    ("Any allergies?", False),
])
def test_worse_lately_asks_the_course(question: str, told: bool) -> None:
    case = _case(chief_complaint="Weak hands", history_of_present_illness=f"{COURSE}.", allergies=["Penicillin"])
    assert any("weakness in both hands" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Other illness?", True),  # mechanical-low-back-pain, terse
    ("Other pets?", False),
])
def test_other_illness_asks_the_past_history(question: str, told: bool) -> None:
    case = _case(chief_complaint="Back pain", past_medical_history=["Asthma since childhood"])
    assert any("Asthma" in fact for fact in _replies(case, question)[0]) is told
