"""Questions the template patient left unanswered in round 68 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: "latch OK?" asks how a baby feeds; a record's soft speech answers "Voice?" (``told_as``, the
patient's relation only)."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from tests.verifier.test_clinical_wording import _case as grader_case
from tests.verifier.test_clinical_wording import _met


@pytest.mark.parametrize(("question", "told"), [
    ("How often, latch OK, any supplementation?", True),  # agentclinic-0083, us_abbrev
    ("Latching on well?", True),
    ("Any jaundice in the family?", False),
])
def test_the_latch_asks_about_feeding(question: str, told: bool) -> None:
    case = _case(chief_complaint="Yellow skin", social_history=["The patient is exclusively breastfed"])
    assert ("The patient is exclusively breastfed" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Voice?", True),  # agentclinic-0090, terse
    ("Any hoarseness?", True),
    ("Any trouble swallowing?", False),
])
def test_soft_speech_answers_the_voice(question: str, told: bool) -> None:
    case = _case(chief_complaint="Tremor", secondary_symptoms=["Soft speech"])
    assert ("Soft speech" in _replies(case, question)[0]) is told


def test_the_grader_does_not_read_speech_as_voice() -> None:
    """Asking about the voice is not asking about speech: the relation is the patient's only."""
    case = grader_case(source="agentclinic", secondary_symptoms=["Soft speech"])
    assert not _met(case, ["Any hoarseness?", "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks about soft")
    assert _met(case, ["Has your speech gone quiet?", "DIAGNOSIS: Something specific"],
                "Before giving a diagnosis, asks about soft")
