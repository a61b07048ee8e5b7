"""Questions the template patient left unanswered in round 72 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: hearing them "when no one's there" asks about hallucinations; "LKW, what time?" asks when the
patient was last known well."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("You hear them when no one's there, right?", True),  # agentclinic-0064, gp_lay
    ("Any hearing voices?", True),
    ("Any trouble sleeping?", False),
])
def test_hearing_them_when_no_ones_there(question: str, told: bool) -> None:
    case = _case(chief_complaint="Persistent sadness", secondary_symptoms=["Auditory hallucinations", "Decreased sleep"],
                 past_medical_history=["No significant past medical history"])
    assert ("Auditory hallucinations" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("LKW, what time?", True),  # ischaemic-stroke, us_abbrev
    ("When did it start?", True),
    ("LFTs done?", False),
])
def test_lkw_asks_when_it_started(question: str, told: bool) -> None:
    story = "At 8.30 am the right arm and the right side of the face went weak"
    case = _case(chief_complaint="Weak arm", history_of_present_illness=f"{story}. Speech is slurred.",
                 past_medical_history=["Atrial fibrillation"])
    assert (story in _replies(case, question)[0]) is told
