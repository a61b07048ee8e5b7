"""Round 55 (data/natural/dev/*-r55.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Ring 111 for ..." (NHS 111, and New Zealand's emergency number);
"Take him to the ER for ..."; a clipped "Sooner, or ER: ..."; the cath lab getting ready for the patient; a shoulder
X-ray's "Y" view in brackets."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("advice", "netted"), [
    ("Ring 111 for chest pain, fainting, bad breathlessness at rest.", True),  # atrial-fibrillation, gp_lay
    ("Call 111 for CP, syncope, SOB at rest.", True),  # us_abbrev
    ("Take him to the ER for a severe headache, chest pain or fainting.", True),  # agentclinic-0034, checklist
    ("Back in 1 week.\nSooner, or ER: fever, spreading redness, pus.", True),  # agentclinic-0018, terse
    ("Call 111 for an appointment.", False),
    ("Take him to the ER for treatment now.", False),
    ("I will see you sooner: next week.", False),
])
def test_safety_netting_by_number_by_carer_and_clipped(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "now"), [
    # acs-stemi, gp_lay: no care now
    ("I've already rung the cardiologists and the cath lab at Wellington Hospital is getting ready for you now.", True),
    ("The cath lab team is expecting you now.", True),
    ("If the pain comes back, the cath lab is ready.", False),
])
def test_the_cath_lab_getting_ready_is_care_now(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("order", "ordered"), [
    ("REQUEST TEST: X-ray left shoulder (AP, Y, axillary)", True),  # agentclinic-0028, terse
    ("REQUEST TEST: X-ray left shoulder (AP, axillary)", False),
])
def test_a_y_view_in_brackets_is_the_scapular_y(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Adhesive capsulitis",
                 test_results={f"Radiographs > {v}": "Normal" for v in ("AP", "Scapular Y", "Axillary")})
    assert _met(case, [order, "DIAGNOSIS: Adhesive capsulitis"], "Orders the appropriate test: Radiographs Scapular Y.") \
        is ordered
