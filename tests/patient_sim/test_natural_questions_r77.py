"""Questions the template patient left unanswered in round 77 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: a clipped "Born term?" asks the birth history, "Past liver trouble?" the past history, and a baby's
"Feeding?" the appetite."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

BIRTH = "Birth history unremarkable"
PAST = "No significant past medical history"
APPETITE = "The child's appetite has diminished over the past few days"


@pytest.mark.parametrize(("question", "told"), [
    ("Born term?", True),  # agentclinic-0052, terse
    ("Any allergies?", False),
])
def test_a_clipped_born_term_asks_the_birth_history(question: str, told: bool) -> None:
    case = _case(chief_complaint="Fast breathing", past_medical_history=[BIRTH])
    assert any("Birth history" in fact for fact in _replies(case, question)[0]) is told  # told in lay words


@pytest.mark.parametrize(("question", "told"), [
    ("Past liver or pancreas trouble?", True),  # agentclinic-0058, terse
    ("Any past surgery?", True),
    ("Any fever?", False),
])
def test_past_as_a_word_asks_the_past_history(question: str, told: bool) -> None:
    case = _case(chief_complaint="Tiredness", past_medical_history=[PAST])
    assert any("past medical" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Feeding?", True),  # agentclinic-0052, terse
    ("Any cough?", False),
])
def test_a_babys_feeding_is_asked_as_the_appetite(question: str, told: bool) -> None:
    case = _case(chief_complaint="Fast breathing", history_of_present_illness=f"Breathing fast. {APPETITE}.")
    assert (APPETITE in _replies(case, question)[0]) is told
