"""Round 64 (data/natural/dev/*-r64.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. The surgeon on the way and surgery today; a transfer by air or
ambulance; "Back, or 999, if:"; staff and the emergency number told "ASAP for"; "heme/onc"; a beat "jumping around";
"does it tear"; "mid-game"; pain the tablets "don't control"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("advice", "now"), [
    ("Surgeon's coming. Surgery today. Nothing by mouth.", True),  # acute-appendicitis, terse
    ("Surgeon's coming to the clinic on Monday.", False),
    ("Surgery in six weeks.", False),
    ("Tenecteplase here. Then STARS or ground transfer to St. Boniface for cath.", True),  # acs-stemi, us_abbrev
    ("No need for air transfer.", False),
])
def test_the_surgeon_on_the_way_surgery_today_and_an_ambulance_transfer(advice: str, now: bool) -> None:
    assert bool(_recommends_emergency(advice, unconditional=True)) is now


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back, or 999, if: faint on exertion or lying down.", True),  # agentclinic-0007, terse
    ("Back, or 999, for the results.", False),
    ("Alert staff / 911 ASAP for: fever, more belly distension.", True),  # agentclinic-0014, us_abbrev
    ("Alert staff / 911 numbers are on the card.", False),
])
def test_back_or_the_emergency_number_if_and_staff_told_asap(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "planned"), [
    ("Urgent heme/onc this week. PET staging.", True),  # agentclinic-0004, terse
    ("Heme negative stool, nothing more.", False),
])
def test_heme_onc_is_a_referral(plan: str, planned: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Gives a clear management plan") is planned


@pytest.mark.parametrize(("key_question", "question", "asked"), [
    ("Is the heartbeat regular or irregular?", "Fast and regular, or jumping around?", True),  # atrial-fibrillation
    ("Is the heartbeat regular or irregular?", "Fast and regular?", False),
    ("Is the pain tearing?", "Does it tear through to your back?", True),  # acs-stemi, checklist
    ("Is the pain tearing?", "Is it through to your back at night?", False),
])
def test_a_beat_jumping_around_and_pain_that_tears(key_question: str, question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=[key_question])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks") is asked


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Pain started while playing football", "Did it happen mid-game?", True),  # agentclinic-0102, us_abbrev ("Sudden onset mid-game?")
    ("Pain started while playing football", "Any nausea mid-morning?", False),
])
def test_mid_game_is_the_sport(symptom: str, question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Testicular torsion", secondary_symptoms=[symptom], source="agentclinic")
    assert _met(case, [question, "DIAGNOSIS: Testicular torsion"], "Before giving a diagnosis, asks about pain started") \
        is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Any pain the tablets don't control?", True),  # renal-colic, gp_lay
    ("Any pain in your tablets' side effects?", False),
])
def test_pain_the_tablets_do_not_control(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Uncontrolled pain"])
    assert _met(case, [question, "DIAGNOSIS: Renal colic"], "Asks about or addresses the red flag: Uncontrolled pain") \
        is asked
