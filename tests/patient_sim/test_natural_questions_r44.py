"""Questions the template patient left unanswered in round 44 (data/natural/dev/answerable/), each on a made-up record
beside a lookalike: "Booking bloods?" asks about care in pregnancy, the Glaswegian "How's it gaun?" opens the story,
and Scots words for common ones are folded like British spellings ("Keepin' fluids doon?")."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from verifier.diagnosis import words

NO_CARE = "The mother reports having had no prenatal care"


@pytest.mark.parametrize(("question", "told"), [
    ("Booking bloods?", True),  # agentclinic-0008 (r44), terse
    ("Blood group?", False),
])
def test_booking_bloods_asks_about_care_in_pregnancy(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Rash at birth"], family_history=[NO_CARE])
    assert (NO_CARE in _replies(case, question)[0]) is told


def test_how_s_it_gaun_opens_the_story() -> None:
    case = _case(chief_complaint="Shaking hand", history_of_present_illness="Tremor in the left hand for a year.")
    assert _replies(case, "How's it gaun?")[0]  # agentclinic-0090 (r44), gp_lay
    assert _replies(case, "How's the car gaun?") == [[]]


def test_scots_words_fold_to_the_common_ones() -> None:
    assert words("Keepin' fluids doon?") == words("Keeping fluids down?")
    assert words("Are ye goin' mair often, or rushin' tae the toilet?") == \
        words("Are you going more often, or rushing to the toilet?")
