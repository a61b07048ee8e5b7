"""Questions the template patient left unanswered in round 46 (data/natural/dev/answerable/), each on a made-up record
beside a lookalike: when she was last at her baseline, a checklist's numbering ("One: ..."), the way a baby holds his
head, "fussy" for a baby's discomfort, and a blanket "no neurological deficits" for ataxia and weakness."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

STARTED = "The patient came to the emergency department with confusion that started this morning"


@pytest.mark.parametrize(("question", "told"), [
    ("When was she last at baseline?", True),  # agentclinic-0070 (r46), us_abbrev
    ("When was she last completely her normal self?", True),  # gp_lay
    ("One: when was she last normal?", True),  # checklist
    ("When was she last at the clinic?", False),
])
def test_when_she_was_last_herself(question: str, told: bool) -> None:
    case = _case(chief_complaint="Confusion", history_of_present_illness=f"{STARTED}.",
                 past_medical_history=["Sleeve gastrectomy one month ago"])
    assert (STARTED in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Does the way he holds his head make any difference?", True),  # agentclinic-0062 (r46), gp_lay
    ("Does the way he feeds make any difference?", False),
])
def test_the_way_he_holds_his_head_is_his_neck(question: str, told: bool) -> None:
    case = _case(chief_complaint="Noisy breathing", secondary_symptoms=["Relief with neck extension"])
    assert ("Relief with neck extension" in _replies(case, question)[0]) is told


COMFORTABLE = "The patient appears comfortable, with no signs of distress or discomfort by the parents"


@pytest.mark.parametrize(("question", "told"), [
    ("Is he fussy or rubbing?", True),  # agentclinic-0071 (r46), us_abbrev
    ("Itchy, fussy?", True),  # terse
    # the annotators of rounds 17 to 72 marked "Itchy?" and "Pruritic?" answerable by it seventeen times: a parent
    # whose baby shows no discomfort says he is not bothered (told_as irritability: itch)
    ("Pruritic?", True),
    ("Any fever?", False),
])
def test_fussy_is_a_baby_s_discomfort(question: str, told: bool) -> None:
    case = _case(chief_complaint="Rash on scalp", review_of_systems=[COMFORTABLE])
    assert (COMFORTABLE in _replies(case, question)[0]) is told


NO_DEFICITS = "No headaches, hearing loss, tinnitus, loss of consciousness or neurological deficits"


@pytest.mark.parametrize(("question", "told"), [
    ("Ataxia?", True),  # agentclinic-0079 (r46), terse
    ("Any weakness?", True),
    ("Any chest pain?", False),
])
def test_no_neurological_deficits_answers_ataxia_and_weakness(question: str, told: bool) -> None:
    case = _case(chief_complaint="Room spinning", review_of_systems=[NO_DEFICITS])
    assert (NO_DEFICITS in _replies(case, question)[0]) is told
