"""Questions the template patient left unanswered in round 69 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: the cough's kind asked as a choice ("Productive or dry?"); "every" names nothing of its own, as
"each" does not ("Every BM?" follows up the bleeding)."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from tests.verifier.test_clinical_wording import _case as grader_case
from tests.verifier.test_clinical_wording import _met


@pytest.mark.parametrize(("question", "told"), [
    ("Productive or dry?", True),  # community-pneumonia, us_abbrev
    ("Is it productive or dry?", True),
    ("Is the rash wet or dry?", False),
])
def test_productive_or_dry_asks_what_the_cough_brings_up(question: str, told: bool) -> None:
    case = _case(chief_complaint="Cough", secondary_symptoms=["Cough with green phlegm"],
                 history_of_present_illness="Cough for four days.")
    replies = _replies(case, "Tell me about the cough.", question)[1]
    assert ("Cough with green phlegm" in replies) is told


def test_productive_or_dry_asks_about_sputum_for_the_grader_too() -> None:
    case = grader_case(final_diagnosis="Community-acquired pneumonia", key_questions=["Any phlegm?"])
    assert _met(case, ["Cough - productive or dry?", "DIAGNOSIS: Community-acquired pneumonia"],
                "Before giving a diagnosis, asks: Any phlegm")
    assert not _met(case, ["Cough - how long?", "DIAGNOSIS: Community-acquired pneumonia"],
                    "Before giving a diagnosis, asks: Any phlegm")


@pytest.mark.parametrize(("question", "told"), [
    ("Every BM?", True),  # agentclinic-0011, us_abbrev and terse
    ("Each BM?", True),
    ("Every night, any fever?", False),
])
def test_every_names_nothing_of_its_own(question: str, told: bool) -> None:
    fact = "A 2-week history of rectal bleeding occurring daily with bowel movements"
    case = _case(chief_complaint="Rectal bleeding", history_of_present_illness=f"{fact}.")
    assert (fact in _replies(case, "Bleeding - how long?", question)[1]) is told
