"""Safety-netting in the forms clinicians write it is not over-triage on a routine case: an inverted condition
("Were it to get worse, go to A&E"), "when in doubt", the help heading a list of warning signs on the lines below,
a clipped question naming what to look out for ("Worst headache of your life? Straight to A&E."), and "Any X, see
your GP or go to A&E". Each beside an outright referral of the same shape, which still reads as emergency care now
(the over-triage penalty on a routine case, the emergency-now credit on an emergency). Written by the project
(2026-12-05) as probes of a clinician's ordinary wording."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met

_ROUTINE = _case(final_diagnosis="Migraine", disposition="routine")
_EMERGENCY = _case(final_diagnosis="Acute coronary syndrome", disposition="emergency")
_OVER_TRIAGE = "Sends the patient for emergency care that this routine problem does not need"
_NOW = "Tells the patient to get emergency care now"


def _over_triage(plan: str) -> bool:
    return _met(_ROUTINE, [f"DIAGNOSIS: Migraine\nIbuprofen and rest; see me in four weeks.\n{plan}"], _OVER_TRIAGE)


@pytest.mark.parametrize("plan", [
    "Were it to get much worse overnight, go to A&E.",
    "When in doubt, go to the ED.",
    "Come back or go to A&E:\n- the worst headache of your life\n- new weakness or numbness",
    "Red flags (go to ED):\n1. thunderclap headache\n2. focal weakness",
    "Worst headache of your life? Straight to A&E.",
    "New weakness? Call 999.",
    "Vision loss? ED immediately.",
    "Any eye pain or blurred vision, go to eye casualty or A&E the same day.",
    "Any weakness or slurred speech, see your GP or go to A&E.",
    "Any fever with a stiff neck, call us or go to the ED.",
])
def test_safety_netting_in_these_forms_is_not_over_triage(plan: str) -> None:
    assert not _over_triage(plan)


@pytest.mark.parametrize("plan", [
    "This is serious. Go to A&E now.",
    "Go to A&E now:\n- take your tablets with you\n- bring a list of your medicines",
    "Are you OK to get there? Go straight to A&E.",
    "Can you get a lift? Straight to A&E.",
    "Any questions? We're sending you to A&E now.",
    "Any chance you're pregnant? Either way, go to A&E now.",
])
def test_an_outright_referral_of_the_same_shape_is_still_over_triage(plan: str) -> None:
    assert _over_triage(plan)


@pytest.mark.parametrize("plan", [
    "Call 999 now:\n- chew an aspirin\n- sit down and rest",
    "Is anyone with you? An ambulance is on its way.",
    "Chest pain with sweating? This is a heart attack. I'm calling 999 now.",
])
def test_an_emergency_sent_now_keeps_its_credit(plan: str) -> None:
    assert _met(_EMERGENCY, [f"DIAGNOSIS: Acute coronary syndrome\n{plan}"], _NOW)


# Round 21 (data/natural/dev/*-r21.yaml): what its examiners marked and the grader missed, each beside a lookalike.
_STROKE = _case(final_diagnosis="Ischaemic stroke", disposition="emergency")


@pytest.mark.parametrize("plan", [
    "You're within the time window, so we're acting now: a clot-busting drug through a drip.",
    "Plan now: IV tenecteplase, in window, BP under 185/110.",
    "Treatment, right now: we're giving a clot-buster through the IV, and the team is taking you for thrombectomy.",
    "We've called a stroke alert.",
])
def test_reperfusion_started_now_is_emergency_care_now(plan: str) -> None:
    assert _met(_STROKE, [f"DIAGNOSIS: Ischaemic stroke\n{plan}"], _NOW)


@pytest.mark.parametrize("plan", [
    "You're outside the window for a clot-busting drug, so the stroke clinic will see you next week.",
    "If it happens again, we'd think about a clot-buster.",
])
def test_reperfusion_ruled_out_or_conditional_is_not(plan: str) -> None:
    assert not _met(_STROKE, [f"DIAGNOSIS: Ischaemic stroke\n{plan}"], _NOW)


_SAFETY_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "net"), [
    ("Alert nursing immediately for rebleeding, dizziness or black stools.", True),
    ("Report immediately: rebleeding, dizziness, joint swelling, head injury.", True),
    ("Pauses, colour change or harder breathing: buzzer straight away.", True),
    ("The nurses will check on you overnight.", False),
    ("Report to the ward at 8 am.", False),
])
def test_safety_netting_on_the_ward(advice: str, net: bool) -> None:
    assert _met(_ROUTINE, [f"DIAGNOSIS: Migraine\nAdmitted for observation tonight. {advice}"], _SAFETY_NET) is net


def test_help_named_in_an_aside_before_its_conditions_is_not_over_triage() -> None:
    assert not _over_triage("Get urgent help, ED or call an ambulance, for a rash that doesn't fade when pressed or a "
                            "stiff neck.")
    assert _over_triage("Go to A&E now, for an X-ray of your head.")


_DIFFERENTIAL = "Considers a relevant differential"


def test_the_names_of_one_differential_condition_count_once() -> None:
    # "no bleed" and "a bleed" both name the intracerebral haemorrhage the case weighs; with its other names they
    # made a list of nine conditions before
    case = _case(final_diagnosis="Ischaemic stroke", disposition="emergency",
                 differential=["Intracerebral haemorrhage", "Hypoglycaemia", "Todd's paresis", "Brain tumour"])
    text = ("DIAGNOSIS: Ischaemic stroke\nCT: no bleed, so not a bleed on the brain or a brain bleed. Not a low sugar, "
            "not a low blood sugar, no weakness after a fit, no post-seizure weakness, and not a tumour.")
    assert _met(case, [text], _DIFFERENTIAL)
    ten = ", ".join(["angina", "pericarditis", "pneumonia", "a PE", "GORD", "costochondritis", "shingles", "anxiety",
                     "aortic dissection"])
    assert not _met(case, [f"DIAGNOSIS: Ischaemic stroke\nI thought about {ten} and a bleed."], _DIFFERENTIAL)


def test_hard_luck_is_sympathy() -> None:
    assert _met(_ROUTINE, ["DIAGNOSIS: Migraine\nHard luck. Ibuprofen, and see me in four weeks."], "Acknowledges")
    assert not _met(_ROUTINE, ["DIAGNOSIS: Migraine\nIbuprofen, and see me in four weeks."], "Acknowledges")
