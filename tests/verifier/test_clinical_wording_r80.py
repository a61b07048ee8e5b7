"""Round 80 (data/natural/dev/*-r80.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Since which day ...?" and "you found it when?" ask the onset;
"a fast heart" names tachycardia; "Observations" are the vital signs (oxygen saturation among them); "Come back fast
with fever ..." is safety-netting; "I'm sendin' ya to gynecology" is a plan; "I'll stick with you" owns the worry;
"Not a clot: ..." weighs a pulmonary embolism."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Since which day is the bleeding?", True),  # agentclinic-0011, checklist
    ("Lump since which day?", True),  # agentclinic-0016, terse
    ("You found it when, and how?", True),  # agentclinic-0009, gp_lay
    ("Which day suits you for the scan?", False),
    ("You felt it when I pressed?", False),
])
def test_since_which_day_asks_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("plan", "recognised"), [
    ("A fast heart and low oxygen after a long flight point to a clot.", True),  # pulmonary-embolism, checklist
    ("A fast recovery is expected.", False),
])
def test_a_fast_heart_is_tachycardia(plan: str, recognised: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", red_flags=["Tachycardia."])
    assert _met(case, ["When did it start?", f"DIAGNOSIS: Pulmonary embolism\n{plan}"],
                "Looks for or recognises the red flag: Tachycardia") is recognised


@pytest.mark.parametrize(("order", "ordered"), [
    ("REQUEST EXAM: Observations", True),  # pulmonary-embolism, checklist
    ("REQUEST EXAM: Chest", False),
])
def test_observations_are_the_vital_signs(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", recommended_tests=["Oxygen saturation"],
                 physical_exam={"Vital signs > Oxygen saturation": "91% on air"})
    assert _met(case, [order, "DIAGNOSIS: Pulmonary embolism"], "Orders the appropriate test") is ordered


@pytest.mark.parametrize(("advice", "netted"), [
    ("Come back fast with fever, back pain or blood in your wee.", True),  # agentclinic-0027, gp_lay
    ("Come back quickly with the results next week.", False),
])
def test_come_back_fast_with_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "planned"), [
    ("I'm sendin' ya urgently to gynecology, and they'll remove the mass.", True),  # agentclinic-0025, checklist
    ("It is a mass on the ovary.", False),
])
def test_sending_you_to_a_team_is_a_plan(plan: str, planned: bool) -> None:
    case = _case(final_diagnosis="Ovarian tumour")
    assert _met(case, ["Any pain?", f"DIAGNOSIS: Ovarian tumour\n{plan}"], "Gives a clear management plan") is planned


@pytest.mark.parametrize(("plan", "empathic"), [
    ("We'll get you feeling better, and I promise to stick with you.", True),  # agentclinic-0027, us_abbrev
    ("We'll get you feeling better with antibiotics.", False),
])
def test_staying_with_the_patient_is_empathy(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic


@pytest.mark.parametrize(("plan", "considered"), [
    ("Not a clot: fever, green sputum and focal signs.", True),  # community-pneumonia, terse (and round 77's)
    ("Fever, green sputum and focal signs.", False),
])
def test_not_a_clot_weighs_a_pulmonary_embolism(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Community-acquired pneumonia", differential=["Pulmonary embolism"])
    assert _met(case, ["Any cough?", f"DIAGNOSIS: Community-acquired pneumonia\n{plan}"],
                "Considers a relevant differential") is considered
