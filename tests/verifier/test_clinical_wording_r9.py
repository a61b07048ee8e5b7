"""Clinical wording found in the round-9 dev set (data/natural/dev/*-r9.yaml, 112 consultations by seven more
writers): each good wording earns its item through the real grader, and a lookalike that does not do the
clinical work earns nothing (or is still penalised)."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_NET = "Gives safety-netting advice"
_EMERGENCY_NOW = "Tells the patient to get emergency care now"
_RIGHT = "States the correct final diagnosis"


@pytest.mark.parametrize(("stated", "right"), [
    ("Progressive multifocal leukoencephalopathy complicating advanced HIV", True),
    ("Progressive multifocal leukoencephalopathy, advanced HIV", True),  # what the patient already has is context
    ("HIV", False),  # the background alone is not the answer
    ("Progressive multifocal leukoencephalopathy, pneumonia", False),  # a condition the record does not hold
])
def test_a_condition_of_the_patient_s_past_history_is_context_beside_the_diagnosis(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Progressive multifocal leukoencephalopathy",
                 past_medical_history=["Known history of HIV, hypertension and type 2 diabetes"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nRestart ART."], _RIGHT) is right


@pytest.mark.parametrize(("plan", "emergency"), [
    ("Plan: admit, O2, monitor. Anticoagulate.", True),
    ("We're keeping you in for now, on oxygen, and watching your heart.", True),
    ("You're staying in with us, and the camera team will treat the vessel.", True),
    ("I'll keep you in mind if a bed comes up next month.", False),
])
def test_admission_in_a_clinician_s_words_is_emergency_care_now(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Pulmonary embolism\n{plan}"], _EMERGENCY_NOW) is emergency


@pytest.mark.parametrize(("advice", "net"), [
    ("If more drowsy or fitting, alert staff now.", True),
    ("Back now if: lip or tongue swelling, breathing trouble, blisters.", True),
    ("Back now to the plan: rest and fluids.", False),
])
def test_safety_netting_in_round_nine_s_words(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET) is net


@pytest.mark.parametrize(("order", "label", "exam", "named"), [
    ("examination of the right big toe joint and both feet", "Joint exam", True, True),  # long, with "and"
    ("X-ray pelvis AP and frog-leg lateral of both hips", "X-ray Left Hip", False, True),  # one study, at length
    ("ABR", "Hearing Test > Findings", False, True),  # a newborn's hearing test is a hearing test
    ("hearing test", "Audiometry > Findings", False, True),
    ("ABR", "Audiometry > Findings", False, False),  # ... but not an audiogram
    ("oxygen level", "Oxygen saturation", True, True),
])
def test_round_nine_orders_name_their_result(order: str, label: str, exam: bool, named: bool) -> None:
    case = _case(final_diagnosis="Acute gout", test_results={label: "x"})
    kind = "EXAM" if exam else "TEST"
    assert _met(case, [f"REQUEST {kind}: {order}", "DIAGNOSIS: Acute gout\nColchicine."],
                "Orders the appropriate test") is named


def test_cp_is_chest_pain_and_an_infection_history_is_no_barrage() -> None:
    assert "chest" in clinical.asked("Any CP, and is it pleuritic?")
    case = _case(final_diagnosis="Community-acquired pneumonia", key_questions=["Any chest pain?", "Any fever?", "Cough?"])
    turn = ("Any CP, and is it pleuritic? Any hemoptysis? Wt loss, night sweats? Any recent hospitalization or abx? "
            "Sick contacts? Are you up to date on flu, pneumococcal and COVID vaccines?")
    assert _met(case, [turn, "DIAGNOSIS: Community-acquired pneumonia\nDoxycycline."],
                "Before giving a diagnosis, asks: Any chest pain?")
    assert not _met(case, [turn, "DIAGNOSIS: Community-acquired pneumonia\nDoxycycline."], "Fires a barrage")


@pytest.mark.parametrize(("considered", "differential", "weighed"), [
    ("I did wonder about swollen veins in the gullet from the drink.", "Oesophageal varices", True),
    ("A tear from being sick is unlikely.", "Mallory-Weiss tear", True),
    ("A bleed is excluded by the scan.", "Intracerebral haemorrhage", True),
    ("A low sugar is excluded by your glucose.", "Hypoglycaemia", True),
    ("Your glucose is normal.", "Hypoglycaemia", False),
])
def test_a_differential_weighed_in_round_nine_s_words(considered: str, differential: str, weighed: bool) -> None:
    case = _case(final_diagnosis="Peptic ulcer disease", differential=[differential, "Gout"])
    assert _met(case, [f"DIAGNOSIS: Peptic ulcer disease\nOmeprazole. {considered}"],
                "Considers a relevant differential") is weighed


def test_blood_coughed_up_is_haemoptysis() -> None:
    case = _case(final_diagnosis="Pulmonary embolism", red_flags=["Haemoptysis"], disposition="emergency")
    item = "Asks about or addresses the red flag: Haemoptysis"
    assert _met(case, ["Where is the pain?", "DIAGNOSIS: Pulmonary embolism\nApixaban. That explains the bit of "
                       "blood you coughed up."], item)
    assert not _met(case, ["Where is the pain?", "DIAGNOSIS: Pulmonary embolism\nApixaban."], item)


def test_poor_you_is_empathy() -> None:
    case = _case(final_diagnosis="Streptococcal tonsillitis")
    item = "Acknowledges the patient's concerns"
    assert _met(case, ["DIAGNOSIS: Streptococcal tonsillitis\nPenicillin V. Poor you."], item)
    assert not _met(case, ["DIAGNOSIS: Streptococcal tonsillitis\nPenicillin V. Poor appetite is common."], item)
