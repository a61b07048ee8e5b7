"""Questions the template patient left unanswered in round 52 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: the foods that carry listeria asked as a list, "a bit yellow"."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("fact", "question", "told"), [
    ("The consumption of ice cream 3 days prior", "Foods: soft cheese, deli meat, soft-serve?", True),  # agentclinic-0080
    ("The consumption of ice cream 3 days prior", "Any travel abroad?", False),
    ("Jaundice", "Has anyone said you look a bit yellow, or have you noticed it in your eyes?", True),  # agentclinic-0058
    ("Jaundice", "Has anyone said you look a bit tired?", False),
])
def test_everyday_words_for_what_the_record_names(fact: str, question: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", secondary_symptoms=[fact])
    assert (fact in _replies(case, question)[0]) is told
