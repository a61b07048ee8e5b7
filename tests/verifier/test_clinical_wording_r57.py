"""Round 57 (data/natural/dev/*-r57.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. Admission as a numbered step of the plan, or "Admit" and a dash;
a chart's opening line that names the patient before "w/" and the complaint after it; "come see me sooner"; weakness
all over asked as tiredness."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("plan", "now"), [
    ("Plan:\n1. Oxygen.\n3. Admission to hospital because of the low oxygen.", True),  # pulmonary-embolism, checklist
    ("Plan: oxygen. Enoxaparin now. Admit \u2014 you're hypoxic.", True),  # pulmonary-embolism, terse
    ("Plan:\n- Admit \u2014 step-down/monitored bed; transfuse PRN.", True),  # upper-gi-bleed, us_abbrev
    ("Admission to hospital for a day or two if the pain does not settle.", False),
    ("Some people need admission to hospital for this.", False),
    ("If you get worse: admission to hospital for fluids.", False),
])
def test_admission_as_a_step_of_the_plan_is_care_now(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("turn", "asked"), [
    ("63M w/ hematemesis. Volume? Bright red vs coffee-ground?", True),  # upper-gi-bleed, us_abbrev
    ("63M, BP 150/90. Volume?", False),
    ("So a headache w/ vomiting. Volume?", False),  # what came with the headache is not what is asked about
])
def test_a_charts_opening_line_tells_the_complaint_after_w(turn: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["How much blood did you vomit?"])
    assert _met(case, [turn, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks: How much blood") is asked


@pytest.mark.parametrize(("advice", "netted"), [
    ("If you break another bone or feel low in mood, come see me sooner.", True),  # agentclinic-0051, gp_lay
    ("If you would like, come see me to talk it over.", False),
])
def test_come_see_me_sooner_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("question", "asked"), [
    ("And your energy, out of ten?", True),  # agentclinic-0093, checklist
    ("How bad is the fatigue?", True),  # us_abbrev
    ("Do you feel weak all over?", True),
    ("Overall, how poorly do you feel, out of ten?", False),  # gp_lay: its examiner marked it not met
])
def test_generalised_weakness_is_asked_as_tiredness(question: str, asked: bool) -> None:
    assert _asked(_imported("Generalized weakness"), question,
                  "Before giving a diagnosis, asks about generalized weakness") is asked
