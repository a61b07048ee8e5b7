"""Round 60 (data/natural/dev/*-r60.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. "That's a medevac" pointing back to the signs
just listed; a carer told to bring the child back for signs; a list ending in two helps joined by "or"; a clipped
"Sooner for ..."; "Quantify the hematemesis"; "their eating"; "nothing you missed"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("advice", "now"), [
    # mechanical-low-back-pain, us_abbrev and terse: over-triage on a routine case
    ("Return stat, day or night, for saddle numbness, urinary retention or fever; that's an urgent medevac for MRI.", False),
    ("Come in immediately for saddle numbness, bladder or bowel trouble, leg weakness; that's a medevac for MRI.", False),
    ("This is a heart attack; that's an emergency, and we are calling 999 now.", True),
    ("You have sepsis; that means admission now.", True),
])
def test_thats_an_emergency_points_back_to_the_condition_just_named(advice: str, now: bool) -> None:
    assert bool(_recommends_emergency(advice, unconditional=True)) is now


@pytest.mark.parametrize(("advice", "netted"), [
    # agentclinic-0035, checklist
    ("Bring her back for swollen painful joints, looking very pale, fever over 102, or trouble breathing.", True),
    # agentclinic-0050, us_abbrev
    ("Until you're transferred: worsening blistering, eye pain, trouble swallowing or breathing, tell the staff right "
     "away or call 911.", True),
    ("Follow-up in 1 week. Sooner for fever, rapid spread, red streaks.", True),  # agentclinic-0018, terse
    ("Bring her back for her jabs next month.", False),
    ("We discussed the scan, the bloods and the plan, told the staff or called 911.", False),
    ("Follow-up in 1 week. Sooner for the results and the scan report.", False),
])
def test_a_carers_return_two_helps_and_a_clipped_sooner(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("turn", "asked"), [
    ("Quantify the hematemesis: volume, bright red vs coffee-ground?", True),  # upper-gi-bleed, us_abbrev
    ("Any hematemesis? Bright red or coffee-ground?", False),
])
def test_quantify_asks_how_much(turn: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["How much blood did you vomit?"])
    assert _met(case, [turn, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks: How much blood") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("How's their eating?", True),  # agentclinic-0052, checklist
    ("How's their sleeping?", False),
])
def test_their_eating_is_the_appetite(question: str, asked: bool) -> None:
    assert _asked(_imported("Diminished appetite"), question, "Before giving a diagnosis, asks about diminished appetite") \
        is asked


@pytest.mark.parametrize(("words", "empathic"), [
    ("This isn't anything you missed; he's been well.", True),  # agentclinic-0034, gp_lay
    ("Nothing missed on the scan.", False),
])
def test_nothing_you_missed_is_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic
