"""Questions the template patient left unanswered in round 65 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: respiratory distress is a breathing difficulty, and petechiae are spots."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("Tired, pale, or out of breath?", True),  # agentclinic-0035, gp_lay
    ("Fatigue, pallor, SOB?", True),  # us_abbrev
    ("Any joint swelling?", False),
])
def test_no_respiratory_distress_answers_breathlessness(question: str, told: bool) -> None:
    case = _case(chief_complaint="Rash", review_of_systems=["No respiratory distress"])
    assert ("No respiratory distress" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Where are the spots?", True),  # agentclinic-0036, checklist
    ("Any spots?", True),
    ("Any nosebleeds?", False),
])
def test_petechiae_are_spots(question: str, told: bool) -> None:
    case = _case(chief_complaint="Nosebleeds", secondary_symptoms=["Diffuse petechiae on distal extremities"])
    assert ("Diffuse petechiae on distal extremities" in _replies(case, question)[0]) is told
