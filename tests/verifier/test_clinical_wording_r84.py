"""Round 84 (data/natural/dev/*-r84.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A duration checked back with "abi?" or "na?" asks the onset, as do
"These petechiae - when noticed?" and "Two days ago, lifting, right?"; "where'd it go?" asks the spread; "during game" is
the sport; a spoken "-in'" is read as "-ing" by every check ("we're takin' you straight round to the scanner" is
emergency care now); "doing right to care" and "Not weakness" are empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Headache and your eyes getting worse, for three weeks, abi?", True),  # agentclinic-0091, gp_lay
    ("Three weeks, abi?", True),  # agentclinic-0091, terse
    ("So cough and fevers x6 mo, na?", True),  # agentclinic-0093, us_abbrev
    ("These petechiae - when noticed?", True),  # agentclinic-0100, us_abbrev
    ("These red spots - when first seen?", True),  # agentclinic-0100, checklist
    ("Two days ago, lifting, right?", True),  # mechanical-low-back-pain, terse
    ("You have diabetes, abi?", False),
    ("These red spots - where?", False),
    ("Did you lift anything heavy, right?", False),
])
def test_a_start_checked_back_asks_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "where"), [
    ("Where - point.", True),  # agentclinic-0102, us_abbrev (the patient)
    ("Where exactly - point for me.", True),  # agentclinic-0102, gp_lay (the patient)
    ("Why - point.", False),
])
def test_where_point_asks_where(question: str, where: bool) -> None:
    assert ("intent:site" in clinical.intents(question)) is where


@pytest.mark.parametrize(("question", "spread"), [
    ("Where'd it start, where'd it go?", True),  # agentclinic-0103, us_abbrev
    ("Where'd you go on holiday?", False),
])
def test_where_did_it_go_asks_the_spread(question: str, spread: bool) -> None:
    assert ("intent:radiation" in clinical.intents(question)) is spread


@pytest.mark.parametrize(("question", "sport"), [
    ("Any hit to groin during game?", True),  # agentclinic-0102, checklist
    ("Any hit to groin during the fall?", False),
])
def test_during_the_game_is_the_sport(question: str, sport: bool) -> None:
    assert ("sport" in clinical.terms(question)) is sport


@pytest.mark.parametrize(("plan", "now"), [
    ("Right, we're takin' you straight round to the scanner. Every minute counts.", True),  # ischaemic-stroke, gp_lay
    ("We're sendin' you to the stroke clinic next week.", False),
    ("If it comes back, they'll be takin' you to the clinic.", False),
])
def test_a_dropped_g_is_read_as_ing(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Ischaemic stroke", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Ischaemic stroke\n{plan}"], "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("plan", "empathic"), [
    ("That is hard, and you are doing right to care.", True),  # agentclinic-0089, checklist
    ("Not weakness, this is illness, treatable, right?", True),  # depression, us_abbrev
    ("You are doing the exercises twice a day.", False),
])
def test_the_empathy_of_round_84(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
