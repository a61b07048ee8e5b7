"""Round 87 (data/natural/dev/*-r87.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "aye?" checks a duration back; a plan that waits on a result ("If
your clotting comes back fine, you'll get the clot-busting drip straight away") or holds "oxygen if needed" is still
emergency care now; "RTC or ED same day for ..." is safety-netting; "looks some sore" and "Nuh fret" are empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Five days of it, aye?", True),  # agentclinic-0060, gp_lay
    ("Five days of abd pain and cramping, aye?", True),  # agentclinic-0060, us_abbrev
    ("A wee temperature, aye?", False),
])
def test_aye_checks_a_duration_back(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("plan", "now"), [
    ("If your clotting comes back fine, you'll get the clot-busting drip straight away.", True),  # ischaemic-stroke
    ("Right now: IV ceftriaxone, oxygen if needed, and an urgent intensive care review.", True),  # meningitis, checklist
    ("If you get worse, you'll get the clot-busting drip straight away.", False),
    ("If needed, an urgent intensive care review.", False),
])
def test_a_plan_that_waits_on_a_result_is_still_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Ischaemic stroke", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Ischaemic stroke\n{plan}"], "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("advice", "netted"), [
    ("RTC or ED same day for a hot, swollen, red joint or fever.", True),  # agentclinic-0048, us_abbrev
    ("RTC or ED same day for your results.", False),
])
def test_rtc_or_ed_same_day_for_a_list_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Acute gout")
    assert _met(case, ["Any fever?", f"DIAGNOSIS: Acute gout\nNaproxen. {advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Oh my, that looks some sore, my love.", True),  # acute-gout, gp_lay
    ("Early, treatable. Nuh fret.", True),  # agentclinic-0056, terse
    ("Oh my, that looks some red, my love.", False),
])
def test_the_empathy_of_round_87(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
