"""Questions the template patient left unanswered in round 45 (data/natural/dev/answerable/), each on a made-up record
beside a lookalike: how a lesion began ("What did it look like at first?"), "the spot" for a lesion, "leakage" for
incontinence, and kidney disease and sickle cell asked where the record's past history is a blanket negative."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

BEGAN = "The lesion began as a small red spot and has increased in size"
NOTICED = "Noticing a skin lesion on his chest 2 months ago"
DRY, DRY_TOLD = "She denies any involuntary loss of urine", "No involuntary loss of urine"
HEALTHY, HEALTHY_TOLD = "No significant past medical history", "No past medical problems"


@pytest.mark.parametrize(("question", "told"), [
    ("What did it look like at first?", True),  # agentclinic-0018 (r45), checklist
    ("Started as a red spot?", True),
    ("What does it look like now?", False),
])
def test_how_a_lesion_began(question: str, told: bool) -> None:
    case = _case(chief_complaint="Ulcer on the right leg", history_of_present_illness=f"Present for a month. {BEGAN}.",
                 secondary_symptoms=["Purplish irregular borders"])
    assert (BEGAN in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("When did you first notice the spot?", True),  # agentclinic-0023 (r45), checklist
    ("When did you first notice the cough?", False),
])
def test_the_spot_is_the_lesion(question: str, told: bool) -> None:
    case = _case(chief_complaint="Skin lesion on the chest", history_of_present_illness=f"{NOTICED}.")
    assert (NOTICED in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Urgency, leakage?", True),  # agentclinic-0027 (r45), terse
    ("Any leakage?", True),
    ("Any burning?", False),
])
def test_leakage_is_incontinence(question: str, told: bool) -> None:
    case = _case(chief_complaint="Passing a lot of urine", review_of_systems=[DRY])
    assert (DRY_TOLD in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Kidney problems, UTIs?", True),  # agentclinic-0034 (r45), terse
    ("Sickle cell?", True),  # agentclinic-0035 (r45), terse
    ("Any kidney pain?", False),
])
def test_a_named_illness_is_answered_by_the_blanket_negative(question: str, told: bool) -> None:
    case = _case(chief_complaint="High blood pressure at a check-up", past_medical_history=[HEALTHY])
    assert (HEALTHY_TOLD in _replies(case, question)[0]) is told
