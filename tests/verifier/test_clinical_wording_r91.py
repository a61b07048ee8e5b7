"""Round 91 (data/natural/dev/*-r91.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Have you taken anything for it?" and "Meds tried?" ask what
relieves it; "Pain eased by going?" asks whether opening the bowels relieves it; "CLL/SLL" is one disease; "Crushing
chest pain or pain on exertion, ring 999." is a condition, as "..., call 999." is; "Nowt you've done wrong" and "Nowt
to be ashamed of" are empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Have you taken anything for it?", "intent:relief", True),  # agentclinic-0037, gp_lay
    ("Meds tried?", "intent:relief", True),  # agentclinic-0037, terse
    ("Any meds?", "intent:relief", False),
    ("Pain eased by going?", "relief_by_defecation", True),  # agentclinic-0024, terse
    ("Pain when going?", "relief_by_defecation", False),
])
def test_the_questions_of_round_91(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks


@pytest.mark.parametrize(("stated", "right"), [
    ("Chronic lymphocytic leukemia / small lymphocytic lymphoma (CLL/SLL)", True),  # agentclinic-0032, us_abbrev
    ("Chronic lymphocytic leukemia / mantle cell lymphoma", False),
])
def test_cll_and_sll_are_one_disease(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Chronic lymphocytic leukemia", differential=["Mantle cell lymphoma"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nHaematology referral."], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "over"), [
    ("Crushing chest pain or pain on exertion, ring 999.", False),  # gerd, gp_lay
    ("This is your heart, ring 999.", True),
])
def test_a_clipped_condition_before_ring_999_is_a_condition(advice: str, over: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", disposition="routine")
    assert _met(case, ["Any heartburn?", f"DIAGNOSIS: Gastro-oesophageal reflux disease\nOmeprazole. {advice}"],
                "Sends the patient for emergency care") is over


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Nowt you've done wrong, lad.", True),  # acute-appendicitis, terse
    ("Nowt to be ashamed of; we'll get you right.", True),  # upper-gi-bleed, terse
    ("Nowt sinister.", False),
])
def test_the_empathy_of_round_91(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
