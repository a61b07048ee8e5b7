"""Questions the template patient left unanswered in round 74 (data/natural/dev/answerable/) and earlier rounds, on a
made-up record beside a lookalike: "flaccid blisters" answer whether they are fragile or tense; "see double" is the
diplopia; a midwife is the antenatal care."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

FLACCID = "Multiple, flaccid blisters on the forearm"


@pytest.mark.parametrize(("question", "told"), [
    ("Second: pruritic vs painful, fragile or tense?", True),  # agentclinic-0098, us_abbrev
    ("Floppy or tense?", True),  # agentclinic-0098, terse (rounds 19 to 53)
    ("Do they break easily?", True),
    ("Are you feeling tense?", False),
])
def test_flaccid_blisters_answer_whether_they_break(question: str, told: bool) -> None:
    case = _case(chief_complaint="Blisters", secondary_symptoms=[FLACCID, "Anxious about work"])
    assert (FLACCID in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "fact", "told"), [
    ("Do you see double, and do eyelids droop?", "Mild diplopia", True),  # agentclinic-0107, checklist
    ("Do you see your GP?", "Mild diplopia", False),
    ("Did you see a midwife at all?", "No prenatal care received", True),  # agentclinic-0008, gp_lay
    ("Did you see a doctor at all?", "No prenatal care received", False),
])
def test_round_74s_lay_questions(question: str, fact: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", secondary_symptoms=[fact])
    assert (fact in _replies(case, question)[0]) is told
