"""Round 94 (data/natural/dev/*-r94.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. The Geordie "Hoo lang's it been going on?" asks the start, "How
lang each?" how long each attack lasts; "your motions" are the bowels ("Have your motions been black?"); "you poor divil" is
empathy; "More faint or more pain, press the buzzer", "Back at once: fever, ..." and "Any worsening ...: we need to know"
are safety-netting."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Hoo lang's it been going on?", True),  # agentclinic-0082, gp_lay
    ("Hoo lang have you heard the voices?", True),  # agentclinic-0082, checklist
    ("Have you heard the voices?", False),
    ("Is it a lang walk to the shops?", False),
    ("How lang each?", False),  # agentclinic-0061, terse (round 87): how long each attack lasts
])
def test_hoo_lang_asks_the_start(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "asked"), [
    ("Have your motions been black or sticky?", True),  # upper-gi-bleed, checklist
    ("Have your motions been loose?", False),
])
def test_motions_are_the_bowels(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Upper gastrointestinal bleed", key_questions=["Are your stools black?"])
    turns = [question, "DIAGNOSIS: Upper gastrointestinal bleed\nEndoscopy."]
    assert _met(case, turns, "Before giving a diagnosis, asks: Are your stools black?") is asked


@pytest.mark.parametrize(("advice", "netted"), [
    ("More faint or more pain, press the buzzer, straight away.", True),  # ectopic-pregnancy, terse
    ("Back at once: fever, shivers, pain not controlled.", True),  # renal-colic, terse
    ("Any worsening SOB, hemoptysis, severe HA, confusion: we need to know.", True),  # agentclinic-0093, us_abbrev
    ("More fluids, more rest, call us in a week for the results.", False),
    ("Any new medicines or allergies: we need to know before the scan.", False),
    ("Back at once: your results are in.", False),
])
def test_the_safety_netting_of_round_94(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Ah you poor divil, you can't keep still with it.", True),  # renal-colic, gp_lay
    ("Poor appetite? Come back in a week.", False),
])
def test_the_empathy_of_round_94(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
