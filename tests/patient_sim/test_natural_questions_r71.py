"""Questions the template patient left unanswered in round 71 (data/natural/dev/), on a made-up record beside a
lookalike: "tinea pedis" is the record's athlete's foot; roommates are flatmates; a record's diminished appetite answers
a terse "Eating?" (``told_as``, the patient's relation only)."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from tests.verifier.test_clinical_wording import _case as grader_case
from tests.verifier.test_clinical_wording import _met


@pytest.mark.parametrize(("question", "told"), [
    ("Any PVD, neuropathy, prior cellulitis, tinea pedis?", True),  # cellulitis, us_abbrev
    ("Any fungal foot infection?", True),
    ("Any chest pain?", False),
])
def test_tinea_pedis_is_athletes_foot(question: str, told: bool) -> None:
    case = _case(chief_complaint="Red leg", past_medical_history=["Athlete's foot"])
    assert ("Athlete's foot" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("OK if I ask you and your roommates a few questions?", True),  # bacterial-meningitis, us_abbrev
    ("Did your housemates notice anything?", True),
    ("Any rash?", False),
])
def test_roommates_are_flatmates(question: str, told: bool) -> None:
    case = _case(chief_complaint="Headache", history_of_present_illness="Headache since last night. High fever. "
                 "Flatmates noticed he is getting confused.", social_history=["Lives in student halls"],
                 past_medical_history=["No previous illnesses"])
    assert ("Flatmates noticed he is getting confused" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Eating?", True),  # agentclinic-0052, terse
    ("Appetite?", True),
    ("Drinking?", False),
])
def test_a_diminished_appetite_answers_eating(question: str, told: bool) -> None:
    case = _case(chief_complaint="Fast breathing", secondary_symptoms=["Diminished appetite"])
    assert ("Diminished appetite" in _replies(case, question)[0]) is told


def test_the_grader_does_not_read_eating_as_appetite() -> None:
    """Asking about eating is not asking about the appetite: the relation is the patient's only."""
    case = grader_case(source="agentclinic", secondary_symptoms=["Diminished appetite"])
    assert not _met(case, ["Pain after eating?", "DIAGNOSIS: Something specific"],
                    "Before giving a diagnosis, asks about diminished")
    assert _met(case, ["How's her appetite?", "DIAGNOSIS: Something specific"],
                "Before giving a diagnosis, asks about diminished")
