"""Round 86 (data/natural/dev/*-r86.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "sawa?" checks a duration back; "commenced" and "what's happened"
ask the onset; "with what effect" asks the relief; "feels hot" is fever; the Pidgin "da" is read as "the"; "To the ED for
..." is safety-netting; "straight to the cath lab", "you getting admitted" and a plan's "- Admit to hospital: ..." are
emergency care now, after what is already done ("Cardiology already called: ..."); a tear in the main blood vessel
weighs a dissection; "Rough do" is empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "intent", "asked"), [
    ("Wrist, three days, sawa?", "intent:onset", True),  # agentclinic-0030, terse
    ("Kindly tell me when the pain commenced.", "intent:onset", True),  # agentclinic-0037, gp_lay
    ("What's happened to the leg?", "intent:onset", True),  # cellulitis, us_abbrev
    ("Wrist, left or right, sawa?", "intent:onset", False),
    ("Kindly tell me which tablets you take.", "intent:onset", False),
    ("What have you taken for the pain, with what effect?", "intent:relief", True),  # agentclinic-0037, checklist
    ("What have you taken for the pain, and how much?", "intent:relief", False),
])
def test_the_intents_of_round_86(question: str, intent: str, asked: bool) -> None:
    assert (intent in clinical.intents(question)) is asked


@pytest.mark.parametrize(("question", "fever"), [
    ("He feels hot to you, or floppy?", True),  # agentclinic-0039, gp_lay
    ("He feels heavy to you, or floppy?", False),
])
def test_feels_hot_is_fever(question: str, fever: bool) -> None:
    assert ("fever" in clinical.terms(question)) is fever


@pytest.mark.parametrize(("plan", "now"), [
    ("Plan:\n- Cardiology already called: straight to da cath lab for primary angioplasty", True),  # acs-stemi
    ("Plan:\n- Admit to hospital: oxygen low at 91% and pulse 118\n- Start anticoagulation now", True),  # PE, checklist
    ("So you getting admitted, sis, and we start the blood thinner now.", True),  # pulmonary-embolism, us_abbrev
    ("Chest pain: straight to the cath lab.", False),
    ("If worse: admit to hospital.", False),
    ("Plan:\n- Clinic review: straight to the cath lab if pain returns", False),
])
def test_straight_to_the_cath_lab_or_admitted_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Pulmonary embolism\n{plan}"], "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("advice", "netted"), [
    ("To the ED for fever/rigors, RUQ pain, or worsening jaundice.", True),  # agentclinic-0026, us_abbrev
    ("To the ED for your scan, then clinic.", False),
])
def test_to_the_ed_for_a_list_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Primary sclerosing cholangitis")
    assert _met(case, ["Any itch?", f"DIAGNOSIS: Primary sclerosing cholangitis\nMRCP booked. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "considered"), [
    ("I did think about a tear in da main blood vessel or a clot on da lung, but no.", True),  # acs-stemi, gp_lay
    ("I did think about a blockage in da main blood vessel, but no.", False),
])
def test_a_tear_in_the_main_blood_vessel_weighs_a_dissection(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Acute coronary syndrome", differential=["Aortic dissection"])
    assert _met(case, ["Any chest pain?", f"DIAGNOSIS: Acute coronary syndrome\n{plan}"],
                "Considers a relevant differential") is considered


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Rough do, lad, but it's fixable.", True),  # dka, terse
    ("Rough guide: fluids and insulin.", False),
])
def test_rough_do_is_empathy(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
