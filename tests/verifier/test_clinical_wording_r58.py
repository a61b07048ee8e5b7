"""Round 58 (data/natural/dev/*-r58.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. The surgeons already called or spoken to, now; a list of what to
look out for ending in two helps; a chart's terse plan; "imms"; eating as well as usual; which lessons a child
avoids; infection behind a stone."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("plan", "now"), [
    ("The general surgery team has been called and will see you shortly.", True),  # acute-appendicitis, checklist
    ("I've spoken to the surgeons. They're coming to see you now.", True),  # acute-appendicitis, gp_lay
    ("I've spoken to the urology team. They will see you in clinic in two weeks.", False),
    ("I've spoken to the orthopaedic team; fracture clinic on Monday.", False),
])
def test_the_surgeons_called_or_spoken_to_is_care_now(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("advice", "netted"), [
    # agentclinic-0106, us_abbrev
    ("Don't wait it out: temp >=100.4F, poor feeding, lethargy, blisters, or spreading redness, come straight to the "
     "ED / call 911.", True),
    ("Baby looks great, feeding well, no blisters, no redness.", False),
])
def test_a_list_ending_in_two_helps_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "planned"), [
    ("No tx. Resolves 1-2 wks. Peds f/u 2-3d.", True),  # agentclinic-0106, terse
    ("Uro stat for exploration. NPO, IV analgesia.", True),  # agentclinic-0102, terse
    ("Baby looks good.", False),
])
def test_a_charts_terse_plan_is_a_plan(plan: str, planned: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Gives a clear management plan") is planned


@pytest.mark.parametrize(("question", "asked"), [
    ("Imms UTD?", True),  # acute-otitis-media, us_abbrev
    ("Immobile?", False),
])
def test_imms_are_the_vaccinations(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["Is he up to date with vaccinations?"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Is he up to date") is asked


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Good appetite", "Are you still eating as well as usual?", True),  # agentclinic-0088, gp_lay
    ("Good appetite", "Are you still sleeping as well as usual?", False),
    # agentclinic-0057: each register's way of asking which lessons he avoids
    ("Reluctance to participate in certain school activities", "Is it every lesson, or particular ones?", True),
    ("Reluctance to participate in certain school activities", "All settings or specific classes?", True),
    ("Reluctance to participate in certain school activities", "Which lessons?", True),
    ("Reluctance to participate in certain school activities", "Which teacher?", False),
])
def test_lay_and_school_words(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("reasoning", "addressed"), [
    ("Infection behind the stone: no fever, no nitrites or white cells in the urine.", True),  # renal-colic, checklist
    ("No fever today.", False),
])
def test_infection_behind_a_stone_is_an_obstructed_kidney(reasoning: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Fever with an obstructed kidney"])
    assert _met(case, [f"DIAGNOSIS: Renal colic\n{reasoning}\nPlan as discussed."],
                "Asks about or addresses the red flag: Fever with an obstructed kidney") is addressed
