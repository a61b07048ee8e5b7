"""Questions the template patient left unanswered in round 73 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: a maternal infection is the chorioamnionitis; the Doric "Fit like?" opens the story; saying words
clearly is the articulation; "pals" are the friends."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

CHORIO = "The antenatal period was complicated by chorioamnionitis"


@pytest.mark.parametrize(("question", "told"), [
    ("Maternal infection, then?", True),  # agentclinic-0076, terse
    ("Any maternal infections?", True),
    ("Any maternal diabetes?", False),
])
def test_a_maternal_infection_is_the_chorioamnionitis(question: str, told: bool) -> None:
    case = _case(chief_complaint="Seizure", history_of_present_illness=f"Born at 31 weeks. {CHORIO}.")
    assert (CHORIO in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Fit like?", True),  # agentclinic-0088, gp_lay (Doric: how are you?)
    ("Fit like the day?", True),
    ("Any fits?", False),
])
def test_fit_like_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Tiredness", history_of_present_illness="Tired for six months.")
    assert ("Tiredness" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "finding", "told"), [
    ("Is it harder to say words clearly?", "Poor articulation", True),  # agentclinic-0082, gp_lay
    ("Is it harder to see clearly?", "Poor articulation", False),
    ("Who are your pals now?", "Expresses unhappiness with current social situation", True),  # agentclinic-0089
    ("Who are your parents?", "Expresses unhappiness with current social situation", False),
])
def test_lay_words_reach_the_finding(question: str, finding: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", secondary_symptoms=[finding])
    assert (finding in _replies(case, question)[0]) is told
