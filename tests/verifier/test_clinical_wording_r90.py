"""Round 90 (data/natural/dev/*-r90.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "In shock: fast fluids, ICU now." is emergency care now (intensive
care is what the doctor does, not where a patient goes if something happens); "that must give you a wonderful fright"
is empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("plan", "now"), [
    ("In shock: fast fluids, ICU now. IV ceftriaxone running.", True),  # bacterial-meningitis, terse
    ("If she goes into shock: fast fluids, ICU.", False),
])
def test_intensive_care_now_after_a_finding_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Bacterial meningitis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Bacterial meningitis\n{plan}"], "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Ach, that must give you a wonderful fright.", True),  # bppv, gp_lay
    ("This must give you a clear answer.", False),
])
def test_the_empathy_of_round_90(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
