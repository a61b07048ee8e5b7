"""Questions the template patient left unanswered in rounds 82 to 93 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: "what's goin' on?" is the open question "what's going on?", and "When he puts the head backward, it
is better?" asks about neck extension."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

STORY = "A 5-month history of worsening bladder discomfort, which is relieved by voiding"


@pytest.mark.parametrize(("question", "told"), [
    ("Hey there, what's goin' on?", True),  # bppv, us_abbrev (round 84)
    ("Goin' anywhere nice this summer?", False),
])
def test_a_dropped_g_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("When he puts the head backward, it is better?", True),  # agentclinic-0062, checklist (round 82)
    ("When he puts the head down, it is better?", False),
])
def test_the_head_backward_is_neck_extension(question: str, told: bool) -> None:
    case = _case(chief_complaint="Noisy breathing", secondary_symptoms=["Recurrent stridor", "Relief with neck extension"])
    assert any("neck extension" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("How's she goin', my son?", True),  # depression, us_abbrev (round 87: the Newfoundland greeting)
    ("Wha gwaan, mi bredda?", True),  # agentclinic-0055, gp_lay (round 87: the Jamaican "what's going on?")
    ("How's she going to get home?", False),
])
def test_a_greeting_of_round_87_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Ow am ya, bab?", True),  # agentclinic-0067, gp_lay (round 93: the Black Country "how are you?")
    ("Ow, am I pressing too hard?", False),
])
def test_the_black_country_greeting_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told
