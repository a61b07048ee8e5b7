"""Questions the template patient left unanswered in round 41 (data/natural/dev/answerable/: which ones the record
answers was a clinician's call), each on a made-up record beside a lookalike: a named mental illness answers "Psych
hx?", "N/V/D?" asks about diarrhoea too, "asleep" is sleep, a head tipped back is the neck extended and "... help?"
asks what relieves it, and "How're you doin'?" opens the story."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

BDD = "Diagnosed with body dysmorphic disorder three years ago"
NO_DIARRHOEA = "Denies diarrhea"
ASLEEP = "Occasionally stops breathing while sleeping"
EXTENSION = "Relief with neck extension"


@pytest.mark.parametrize(("question", "told"), [
    ("Psych hx, current mood?", True),  # agentclinic-0042 (r41), us_abbrev
    ("Any medical or mental health conditions, and how is your mood?", True),  # checklist
    ("Any allergies?", False),
])
def test_a_named_mental_illness_answers_the_psychiatric_history(question: str, told: bool) -> None:
    case = _case(past_medical_history=[BDD], allergies=["No known allergies"])
    assert (BDD in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("N/V/D?", True),  # agentclinic-0080 (r41), terse
    ("D&V?", True),
    ("N/V?", False),
])
def test_n_v_d_asks_about_diarrhoea(question: str, told: bool) -> None:
    case = _case(review_of_systems=[NO_DIARRHOEA])
    assert any("diarrhea" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Do they happen only asleep, or with feeds too?", True),  # agentclinic-0067 (r41), checklist
    ("Any rash?", False),
])
def test_asleep_is_sleep(question: str, told: bool) -> None:
    case = _case(primary_symptoms=[ASLEEP])
    assert (ASLEEP in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Does tippin' his head back help?", True),  # agentclinic-0062 (r41), checklist
    ("Does anything make it better, like when his head's tipped back?", True),  # gp_lay
    ("Does he hold his breath?", False),
])
def test_a_head_tipped_back_is_the_neck_extended(question: str, told: bool) -> None:
    case = _case(primary_symptoms=["Noisy breathing"], secondary_symptoms=[EXTENSION])
    assert (EXTENSION in _replies(case, question)[0]) is told


def test_how_re_you_doin_opens_the_story() -> None:
    case = _case(chief_complaint="Jaw pain when eating", history_of_present_illness="Shooting pain when eating.")
    assert _replies(case, "Hey, how're you doin'?")[0]  # agentclinic-0061 (r41), us_abbrev
    assert _replies(case, "Hey, who're you with today?") == [[]]
