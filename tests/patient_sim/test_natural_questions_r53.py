"""Questions the template patient left unanswered in round 53 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: a hedge ("even a bit"), "Have you been low?", "point with one finger", and a turn of several symptoms
of which the record's blanket negative answers one."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("fact", "question", "told"), [
    ("Previous treatments for eczema have been unsuccessful", "Did anything help, even a bit?", True),  # agentclinic-0056
    ("Previous treatments for eczema have been unsuccessful", "Did anything help even slightly?", True),
    ("Previous treatments for eczema have been unsuccessful", "Any travel abroad?", False),
    ("Intermittently depressed over the last 3 months", "Have you been low, not enjoying things?", True),  # agentclinic-0101
    ("Intermittently depressed over the last 3 months", "Has your blood sugar been low?", False),
])
def test_hedges_and_everyday_words_for_what_the_record_names(fact: str, question: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", secondary_symptoms=[fact])
    assert (fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("So, tell me exactly where the pain is; can you point with one finger?", True),  # agentclinic-0102
    ("Any pain in one finger?", False),
])
def test_pointing_with_a_finger_asks_where(question: str, told: bool) -> None:
    case = _case(chief_complaint="Sudden-onset abdominal pain", secondary_symptoms=["Sudden-onset abdominal pain"])
    assert bool(_replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Any trouble chewing, swallowing, talking or breathing?", True),  # agentclinic-0107
    ("Home-canned foods, N/V/D?", True),
    ("Any trouble chewing or swallowing?", False),
])
def test_a_blanket_negative_answers_the_part_of_a_question_it_covers(question: str, told: bool) -> None:
    negative = "Denies fever, weight loss, headache, or any respiratory, gastrointestinal, or urinary symptoms"
    case = _case(chief_complaint="Weakness", review_of_systems=[negative])
    assert any("respiratory" in f for f in _replies(case, question)[0]) is told
