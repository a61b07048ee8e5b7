"""Questions the template patient left unanswered in round 75 (data/natural/dev/answerable/) and earlier rounds, on a
made-up record beside a lookalike: a past uveitis answers "Eyes, joints?"."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

UVEITIS = "Treated for anterior uveitis 8 months ago"


@pytest.mark.parametrize(("question", "told"), [
    ("Eyes, joints?", True),  # agentclinic-0018, terse (rounds 23, 70 and 75)
    ("Any eye or joint problems?", True),
    ("Any chest problems?", False),
])
def test_a_past_uveitis_answers_eye_questions(question: str, told: bool) -> None:
    case = _case(chief_complaint="Leg ulcer", past_medical_history=[UVEITIS])
    assert (UVEITIS in _replies(case, question)[0]) is told
