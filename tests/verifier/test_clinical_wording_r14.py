"""Round fourteen (data/natural/dev/*-r14.yaml, four new writers, marked by six clinician examiners before any fix):
each good wording earns its item through the real grader, and a lookalike that does not do the clinical work earns
nothing."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_CORRECT = "States the correct final diagnosis"
_WRONG = "States a final diagnosis that is wrong"
_EMERGENCY_NOW = "Tells the patient to get emergency care now"
_OVER_TRIAGE = "Sends the patient for emergency care"
_NET = "Gives safety-netting advice"
_ORDERS = "Orders the appropriate test"


@pytest.mark.parametrize(("stated", "right"), [
    # agentclinic-0060, gp_lay: the name, then what it is in lay words
    ("Pelvic inflammatory disease (PID), an infection of the womb and tubes, most likely caught through sex", True),
    ("Pelvic inflammatory disease - an inflammation of the lining of the pelvis", True),
    ("Pelvic inflammatory disease, a tubo-ovarian abscess", False),  # a second condition with an article
    ("Pelvic inflammatory disease, an infection of the appendix (appendicitis)", False),  # the gloss names a rival
    ("Appendicitis, an infection of the womb and tubes", False),  # a rival glossed is still the rival
])
def test_a_lay_gloss_after_the_name_is_not_a_second_diagnosis(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Pelvic inflammatory disease", diagnosis_synonyms=["PID"], source="agentclinic")
    turns = [f"DIAGNOSIS: {stated}\nCeftriaxone, doxycycline and metronidazole."]
    assert _met(case, turns, _CORRECT) is right
    assert _met(case, turns, _WRONG) is not right


@pytest.mark.parametrize(("plan", "now"), [
    ("I know this is a shock, but it's very treatable. We're keeping you in hospital.", True),  # pulmonary-embolism
    ("Plan:\n- Admit to hospital now for monitoring\n- Oxygen", True),  # pulmonary-embolism, checklist
    ("Plan, starting now:\n- Emergency gynaecology review - I've called them; surgery today", True),  # ectopic
    ("We'll keep you in hospital if the pain gets worse.", False),
    ("If it bursts you may need emergency surgery.", False),
    ("There's no need for emergency surgery.", False),
])
def test_kept_in_admitted_now_or_the_emergency_team_called_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Pulmonary embolism\nBlood thinners. {plan}"], _EMERGENCY_NOW) is now


@pytest.mark.parametrize(("plan", "sends"), [
    ("You won't need to stay in hospital; come back if the pain spreads.", False),
    ("Emergency surgery is only needed if it bursts.", False),
    ("We're keeping you in hospital tonight.", True),
])
def test_a_routine_case_is_over_triaged_only_by_an_outright_admission(plan: str, sends: bool) -> None:
    case = _case(final_diagnosis="Biliary colic", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Biliary colic\nPainkillers and a scan. {plan}"], _OVER_TRIAGE) is sends


@pytest.mark.parametrize(("advice", "net"), [
    ("Tell nurses at once: bleeding, breathing fast, drowsy, new fever, less wee.", True),  # agentclinic-0068, terse
    ("Tell nurse at once: drowsier, confused, headache, palpitations.", True),  # dka, terse
    ("Tell the nurses at once.", False),  # no condition to look out for
])
def test_the_ward_s_clipped_safety_net(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Diabetic ketoacidosis\nFluids and insulin now. {advice}"], _NET) is net


@pytest.mark.parametrize(("order", "ordered"), [
    ("X-ray pelvis AP and frog-leg lateral views", True),  # agentclinic-0104: the frog-leg lateral is the hip view
    ("Hip X-ray", True),
    ("X-ray of the left knee", False),
    ("Ultrasound of the hip", False),  # another method
])
def test_a_frog_leg_lateral_is_an_x_ray_of_the_hip(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Legg-Calve-Perthes disease", source="agentclinic",
                 test_results={"X-ray Left Hip > Findings": "flattening of the left femoral head"})
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Legg-Calve-Perthes disease\nOrthopaedic referral."],
                _ORDERS) is ordered


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Bit tongue?", "injury", True),  # agentclinic-0007, terse: a bite is an injury
    ("Any tongue biting or wetting yourself?", "seizure", True),
    ("Bite marks anywhere?", "seizure", False),
    ("Any fall?", "injury", True),  # agentclinic-0081, terse: a fall is the commonest injury
    ("Does he fall asleep in class?", "sleep", True),
    ("Pain - where, what kind?", "intent:character", True),  # agentclinic-0017, terse
    ("Kind to others?", "intent:character", False),
    ("Fever, rash, wt loss, decreased appetite?", "systemic", True),  # agentclinic-0104, us_abbrev
    ("Wt?", "systemic", False),
])
def test_round_fourteen_s_questions(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks


def test_a_fall_asks_about_recent_trauma_and_a_bruise_from_knocks_already_did() -> None:
    case = _case(final_diagnosis="Septic arthritis", secondary_symptoms=["No recent trauma"], source="agentclinic")
    item = "Before giving a diagnosis, asks about recent trauma"
    diagnosis = "DIAGNOSIS: Septic arthritis\nAdmit, IV antibiotics now."
    assert _met(case, ["Any fall?", diagnosis], item)
    assert not _met(case, ["Any fever?", diagnosis], item)


@pytest.mark.parametrize(("order", "parts"), [
    ("X-ray of the left hip (front and frog-leg views)", ["X-ray of the left hip (front", "x ray frog-leg views)"]),
    ("CT head and chest", ["CT head", "ct chest"]),  # the chest is a CT too
    ("CBC and CMP", ["CBC", "CMP"]),  # tests keep their own names
    ("Chest X-ray and ECG", ["Chest X-ray", "ECG"]),
])
def test_a_split_order_carries_its_method_to_the_parts_that_name_none(order: str, parts: list[str]) -> None:
    from verifier.rule_grader import _AND_RE

    assert clinical.carry_method(_AND_RE.split(order)) == parts

