"""Round 102 (data/natural/dev/*-r102.yaml): what its examiners marked met and the grader missed or penalised, in
general form, each beside a lookalike that must come out the other way. "That's the diagnosis: ..." after the marker
explains it, not a second diagnosis; "Rash since last night?" asks the start; an emergency after "If ..., don't wait
for me." is safety-netting, not over-triage; "Come back with any new fracture, ..." is safety-netting; "we're with you"
and "coping with all this" are empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("plan", "right"), [
    ("That's the diagnosis: pain and involuntary muscle spasm with penetration.", True),  # agentclinic-0042, terse
    ("DIAGNOSIS: Endometriosis", False),
])
def test_that_s_the_diagnosis_after_the_marker_explains_it(plan: str, right: bool) -> None:
    case = _case(final_diagnosis="Genitopelvic pain disorder", diagnosis_synonyms=["Vaginismus"], source="agentclinic")
    turns = [f"DIAGNOSIS: Genito-pelvic pain/penetration disorder (vaginismus)\n{plan}\nPelvic floor physiotherapy."]
    assert _met(case, turns, "States the correct final diagnosis") is right


@pytest.mark.parametrize(("question", "asked"), [
    ("Rash since last night?", True),  # agentclinic-0050, terse
    ("Any fever since yesterday?", False),
])
def test_a_start_checked_back_without_a_tag_asks_it(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Stevens-Johnson syndrome", secondary_symptoms=["rash"], source="agentclinic")
    turns = [question, "DIAGNOSIS: Stevens-Johnson syndrome\nStop the new tablets; admit."]
    assert _met(case, turns, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("advice", "over"), [
    ("If those thoughts get stronger, don't wait for me. Ring Lifeline, call an ambulance, or go straight to the "
     "emergency department.", False),  # depression, gp_lay
    ("Don't wait. Call an ambulance now.", True),
])
def test_an_emergency_after_a_condition_and_don_t_wait_is_no_over_triage(advice: str, over: bool) -> None:
    case = _case(final_diagnosis="Depression", disposition="routine")
    turns = ["Any low mood?", f"DIAGNOSIS: Depression\nSertraline 50 mg. {advice}"]
    assert _met(case, turns, "Sends the patient for emergency care") is over


@pytest.mark.parametrize(("advice", "netted"), [
    ("Come back with any new fracture, bad pelvic pain or low mood.", True),  # agentclinic-0051, checklist
    ("Come back with any questions.", False),
    ("Come back with any results you get.", False),
])
def test_come_back_with_any_new_symptom_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Serious, but caught early; we're with you.", True),  # bacterial-meningitis, terse
    ("You've done awfy well coping with all this.", True),  # agentclinic-0051, us_abbrev
    ("We're with the physio team on Tuesday.", False),
])
def test_the_empathy_of_round_102(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
