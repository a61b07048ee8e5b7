"""Round 81 (data/natural/dev/*-r81.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A duration checked back with "isn't it?" (or appended with no tag,
or a bare unit) asks the onset, and so does "Since birth?"; "eating less than normal" is a change in diet; stretching
the arm up, overhead, behind the back are its movements; a surgical "hx" is the surgical history and "ambulation"
mobility; tenecteplase is thrombolysis; "Critical care called" and a plan's bullet "- ICU." are emergency care now; a
"Return precautions:" list makes the next sentence's "go to the ED" conditional."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("So the left wrist has been hurting for about three days, isn't it, and today it is worse?", True),  # 0030, gp_lay
    ("Three days, isn't it?", True),  # agentclinic-0030, terse
    ("So fatigue and malaise x several months, isn't it?", True),  # agentclinic-0032, us_abbrev
    ("Tired, unwell \u2014 months, isn't it?", True),  # agentclinic-0032, terse
    ("And you can't keep your mind on things, for about three weeks?", True),  # agentclinic-0040, gp_lay
    ("Since birth?", True),  # agentclinic-0039, terse ("Vomit: how many, what color? Since birth?")
    ("You have sugar diabetes, isn't it?", False),
    ("You smoke a pack a day, isn't it?", False),
    ("You have been taking the tablets, for about three weeks?", False),
    ("Can you stay for about three days, isn't it nice?", False),
    ("Any problems with the birth?", False),
    ("Has he been given any medicines since birth?", False),  # rounds 11 to 76, agentclinic-0039
])
def test_a_duration_checked_back_asks_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "asked"), [
    ("Were you trying to lose it, or eating less than normal?", True),  # agentclinic-0032, gp_lay
    ("Are you eating normally?", False),
])
def test_eating_less_than_normal_is_a_change_in_diet(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Chronic lymphocytic leukemia", key_questions=["Any change in diet or exercise?"])
    assert _met(case, [question, "DIAGNOSIS: Chronic lymphocytic leukemia"], "Before giving a diagnosis, asks") is asked


@pytest.mark.parametrize(("question", "movement"), [
    ("The pain is worse when you stretch the arm right up or round, isn't it?", True),  # agentclinic-0028, gp_lay
    ("Overhead, behind back \u2014 hard?", True),  # agentclinic-0028, terse
    ("Is the pain in your upper arm?", False),
    ("Any pain in your back?", False),
])
def test_stretching_the_arm_up_is_its_movement(question: str, movement: bool) -> None:
    assert ("movement" in clinical.terms(question)) is movement


@pytest.mark.parametrize(("question", "asked"), [
    ("Surgical hx: date of the hip, ambulation since?", True),  # deep-vein-thrombosis, us_abbrev
    ("Any ambulation since?", True),
    ("Any chest pain since?", False),
    ("Ambulatory blood pressure monitoring next week?", False),
])
def test_a_surgical_hx_and_ambulation_ask_surgery_or_immobility(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Deep vein thrombosis", key_questions=["Any recent surgery or immobility?"])
    assert _met(case, [question, "DIAGNOSIS: Deep vein thrombosis"], "Before giving a diagnosis, asks") is asked


@pytest.mark.parametrize(("plan", "addressed"), [
    ("You're about 2 h from LKW, so we're giving IV thrombolytic (tenecteplase) now.", True),  # ischaemic-stroke
    ("You're about 2 h from LKW, so we're giving IV fluids now.", False),
])
def test_a_thrombolytic_by_name_addresses_the_thrombolysis_window(plan: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Ischaemic stroke", red_flags=["Time of onset within the thrombolysis window."])
    assert _met(case, ["Any weakness?", f"DIAGNOSIS: Ischaemic stroke\n{plan}"],
                "Asks about or addresses the red flag: Time of onset") is addressed


@pytest.mark.parametrize(("plan", "now"), [
    ("Ceftriaxone 2 g IV now. Fluid bolus. Critical care called. Isolate.", True),  # bacterial-meningitis, terse
    ("Plan:\n- ICU.\n- IV ceftriaxone continues.", True),  # bacterial-meningitis, terse
    ("If you get worse, critical care will be called.", False),
    ("Plan:\n- Ward.\n- IV ceftriaxone continues.", False),
])
def test_critical_care_called_or_an_icu_bullet_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Bacterial meningitis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Bacterial meningitis\n{plan}"],
                "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("advice", "sends"), [
    ("Return precautions: fever, chills, spreading redness. Come back same day or go to the ED.", False),  # acute-gout
    ("Red flags: a new joint, fever. Go to the ED.", False),
    ("Naproxen twice a day. Go to the ED.", True),
    ("Return precautions: fever, chills, spreading redness. Go home.\nGo to the ED now.", True),
])
def test_a_return_precautions_list_makes_the_next_sentence_conditional(advice: str, sends: bool) -> None:
    case = _case(final_diagnosis="Acute gout", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Acute gout\nNaproxen. {advice}"], "Sends the patient for emergency care") is sends


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Hard to watch. Manageable.", True),  # agentclinic-0036, terse
    ("The monitor is on the wall. Manageable.", False),
])
def test_hard_to_watch_is_empathy(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
