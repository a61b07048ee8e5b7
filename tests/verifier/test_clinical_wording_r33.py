"""Round 33 (data/natural/dev/*-r33.yaml): what its examiners marked met and the grader missed or wrongly paid, in
general form, each beside a lookalike that must come out the other way. An organ's failure offered after a slash in
the answer's own tail ("ASD with L-to-R shunt and signs of right heart volume overload / early CHF"), the source that
provoked the answer ("PE, provoked by L leg DVT"); safety-netting paged to a nurse or after an ellipsis; care now as
"Resus." or "Admit."; a plan that admits or goes to theatre."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _stated
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("final", "statement", "right"), [
    ("Atrial Septal Defect",
     "Atrial septal defect with L-to-R shunt and signs of right heart volume overload / early CHF", True),
    ("Atrial Septal Defect", "Atrial septal defect with shunt / pneumonia", False),
    ("Atrial Septal Defect", "Atrial septal defect / heart failure", False),  # no tail: a hedge between two
    ("Pulmonary embolism", "Acute pulmonary embolism (RLL segmental arteries), stable, provoked by L leg DVT", True),
    ("Pulmonary embolism", "Acute pulmonary embolism, DVT", False),
])
def test_what_the_answer_brought_about_or_came_from(final: str, statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", final), statement)
    assert (met, wrong) == (right, not right)


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Nursing: page immediately for recurrent sz, apnea/brady, desats.", True),
    ("RN: page stat for sz, apnea, brady, BP drop.", True),
    ("Any vision change... call EMS / come to the ED immediately.", True),
    ("I will page the team tomorrow about the results.", False),
    ("Let us see... the ED team will review.", False),
])
def test_safety_netting_paged_or_after_an_ellipsis(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("text", "outright"), [
    ("Resus. Two big cannulae, crossmatch, fluids.", True),
    ("Now: two cannulae. Admit. Close monitoring.", True),
    ("Did they admit you? No.", False),
    ("Resus was not needed at birth.", False),
    ("If worse: admit.", False),
])
def test_care_now_as_resus_or_admit(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("plan", "planned"), [
    ("Admitting to paeds today, cardiology to see.", True),
    ("Urology is taking you to the OR now to untwist it.", True),
    ("It is what we thought.", False),
])
def test_a_plan_that_admits_or_operates(plan: str, planned: bool) -> None:
    case = _case(final_diagnosis="Testicular torsion")
    assert _met(case, [f"DIAGNOSIS: Testicular torsion\n{plan}"], "Gives a clear management plan") is planned


def test_a_title_s_full_stop_ends_no_sentence() -> None:
    from verifier.rule_grader import questions

    assert questions("Howdy, Mom, I'm Dr. Reyes. When did it start? Seen Mr. Smith? Fine.") == [
        "When did it start?", "Seen Mr. Smith?"]


@pytest.mark.parametrize(("text", "outright"), [
    ("Go to A&E straight away, or call 999, if you can't swallow fluids or your spit.", False),
    ("Exertional chest pain or pain with sweating: emergency, straight away.", False),
    ("Go to A&E straight away.", True),
    ("Low oxygen, fast pulse: emergency, admitted now.", True),
])
def test_a_condition_after_two_helps_or_before_emergency_at_once(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright
