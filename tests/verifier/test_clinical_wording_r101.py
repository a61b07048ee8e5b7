"""Round 101 (data/natural/dev/*-r101.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Time of injury, about 1500?" and a terse "Time?" ask when it
started; "Voids/day ... how many?" asks how often; "tell RN stat if ..." and "...: call immediately" are safety-netting;
"They'll take you straight to the lab" is emergency care now."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("question", "asked"), [
    ("Time of injury, about 1500?", True),  # agentclinic-0015, us_abbrev
    ("How exactly was it injured, and what time of day?", True),  # checklist
    ("Time?", True),  # terse
    ("What time of day is it worse?", False),
])
def test_the_time_of_an_injury_asks_when_it_started(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Jersey finger", secondary_symptoms=["pain in the finger"], source="agentclinic")
    turns = [question, "DIAGNOSIS: Jersey finger\nHand surgery referral."]
    assert _met(case, turns, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Voids/day and nocturia — how many?", True),  # agentclinic-0027, us_abbrev
    ("Voids and nocturia?", False),
])
def test_voids_a_day_how_many_asks_how_often(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Interstitial cystitis", secondary_symptoms=["increased frequency of urination"],
                 source="agentclinic")
    turns = [question, "DIAGNOSIS: Interstitial cystitis\nUrology referral."]
    assert _met(case, turns, "Before giving a diagnosis, asks about increased frequency of urination") is asked


@pytest.mark.parametrize(("advice", "netted"), [
    ("tell RN stat if fever, blood in stool, bad pain, distension.", True),  # agentclinic-0017, terse
    ("Worse breathing, faint, more blood: call immediately.", True),  # pulmonary-embolism, terse
    ("RN to give vanc stat.", False),
])
def test_the_safety_netting_of_round_101(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "now"), [
    ("I've called the heart team. They'll take you straight to the lab to open the artery.", True),  # acs-stemi, gp_lay
    ("The lab will take your bloods on Monday.", False),
])
def test_straight_to_the_lab_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Acute coronary syndrome", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute coronary syndrome\n{plan}"],
                "Tells the patient to get emergency care now") is now
