"""Rounds nineteen and twenty's questions to the template patient (data/natural/dev/agentclinic-r19.yaml and -r20.yaml;
which ones the record answers was a clinician's call): "no change in bowel habits or urination" answers what the
bowels and the bladder do, and nothing else of the gut."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

NO_CHANGE = "No reported changes in bowel habits or urination"


@pytest.mark.parametrize("question", [
    "Nappies?",  # agentclinic-0073 (r20), terse
    "Is he getting plenty of wet nappies and dirty nappies?",  # gp_lay
    "Any diarrhea or constipation?",  # agentclinic-0060 (r19), us_abbrev
])
def test_no_change_in_bowel_habits_or_urination_answers_them(question: str) -> None:
    case = _case(review_of_systems=[NO_CHANGE])
    assert _replies(case, question) == [[NO_CHANGE]]


@pytest.mark.parametrize("question", ["Any vomiting?", "Feeding well?", "Any fever?"])
def test_it_does_not_answer_the_rest_of_the_gut_or_anything_else(question: str) -> None:
    case = _case(review_of_systems=[NO_CHANGE])
    assert _replies(case, question) == [[]]
