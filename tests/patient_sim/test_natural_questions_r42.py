"""Questions the template patient left unanswered in round 42 (data/natural/dev/answerable/), each on a made-up record
beside a lookalike: "when you were born" asks about the birth, "sleeping a lot more" about drowsiness, and a blanket
negative history still answers "Psych history?" now that "psych" names the psychiatric history."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

AT_BIRTH = "Partial labial fusion and clitoromegaly at birth"
SOMNOLENT = "The patient is somnolent and slightly confused"


@pytest.mark.parametrize(("question", "told"), [
    ("Do you know if anything was noticed about you when you were born?", True),  # agentclinic-0051 (r42), gp_lay
    ("Do you know if anything was noticed at school?", False),
])
def test_when_you_were_born_asks_about_the_birth(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["No periods yet"], past_medical_history=[AT_BIRTH])
    assert (AT_BIRTH in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Is he sleeping a lot more?", True),  # agentclinic-0099 (r42), gp_lay
    ("Is he eating a lot more?", False),
])
def test_sleeping_a_lot_more_asks_about_drowsiness(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Forgetfulness"], secondary_symptoms=[SOMNOLENT])
    assert (SOMNOLENT in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Psych history?", True),  # agentclinic-0059 (r26), terse: "psych" now names the psychiatric history
    ("Medical or psych history?", True),  # agentclinic-0059 (r16), terse
    ("Any rash?", False),
])
def test_a_blanket_negative_history_answers_the_psychiatric_history(question: str, told: bool) -> None:
    case = _case(past_medical_history=["No significant past medical history reported by the roommates."])
    assert bool(_replies(case, question)[0]) is told
