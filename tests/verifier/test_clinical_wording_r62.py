"""Round 62 (data/natural/dev/*-r62.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. A second number after the emergency one
before the signs it is for; "Straight to A&E if ..."; a plan's "Now: OR"; "anyone sick"; "gentle with you"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("advice", "now"), [
    # bppv, us_abbrev: over-triage on a routine case
    ("Go to the ED or call 911/111 right away for sudden severe HA, double vision or weakness.", False),
    ("Call 911/111 right away.", True),
    ("Now: OR with gyne.", True),  # ectopic-pregnancy, terse
    ("Now: rest or ibuprofen.", False),
])
def test_the_emergency_for_signs_and_the_operation_now(advice: str, now: bool) -> None:
    assert bool(_recommends_emergency(advice, unconditional=True)) is now


@pytest.mark.parametrize(("advice", "netted"), [
    ("Straight to A&E if the bleeding picks up, you feel faint or you get a headache.", True),  # agentclinic-0049, gp_lay
    ("Straight to the ward after the scan.", False),
])
def test_straight_to_ae_if_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("question", "asked"), [
    ("Anyone sick at the halls?", True),  # bacterial-meningitis, terse
    ("Anyone at the halls?", False),
])
def test_anyone_sick_asks_about_sick_contacts(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["Any close contacts unwell?"])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks: Any close contacts") \
        is asked


@pytest.mark.parametrize(("words", "empathic"), [
    ("You look really unwell, so I'll be quick and gentle with you.", True),  # bacterial-meningitis, gp_lay
    ("Apply the cream gently.", False),
])
def test_gentle_with_you_is_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic
