"""Questions the template patient left unanswered in round 56 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: the patient's own idea of what is wrong, "tonight", social supports, a crusting rash."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("What do you think is behind it?", True),  # agentclinic-0055, gp_lay
    ("What do you guys think is going on?", True),  # agentclinic-0059, us_abbrev
    ("What do you think about smoking?", False),
])
def test_the_patients_idea_of_it_is_asked_by_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Aggressive behaviour", history_of_present_illness="Under stress from exams for a month.")
    assert any("stress" in f for f in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("fact", "question", "told"), [
    ("Earlier this evening, he broke his computer", "When did this start tonight?", True),  # agentclinic-0059
    ("Earlier this evening, he broke his computer", "Any travel tonight?", False),
    ("Lives alone, works at a health food store", "Social supports, close friends?", True),  # agentclinic-0055
    ("Lives alone, works at a health food store", "Who do you spend your time with?", True),
    ("Lives alone, works at a health food store", "Any pets?", False),
    ("Greasy yellow scales", "Oozing, crusting?", True),  # agentclinic-0071
    ("Greasy yellow scales", "Any fever?", False),
])
def test_everyday_words_for_what_the_record_names(fact: str, question: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", secondary_symptoms=[fact])
    assert (fact in _replies(case, question)[0]) is told
