"""Questions the template patient left unanswered in round 48 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: a terse "Past illness?" asks for the past history."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

NONE_BEFORE = "No previous major illnesses or surgeries"


@pytest.mark.parametrize(("question", "told"), [
    ("Past illness?", True),  # agentclinic-0004 (r48), terse
    ("Present illness, the pain?", False),
])
def test_past_illness_asks_the_past_history(question: str, told: bool) -> None:
    case = _case(chief_complaint="Fever and night sweats", past_medical_history=[NONE_BEFORE])
    assert (NONE_BEFORE in _replies(case, question)[0]) is told
