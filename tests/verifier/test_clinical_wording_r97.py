"""Round 97 (data/natural/dev/*-r97.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Tolerating any PO at all?" asks about feeding; "it's hard watching
a wee one struggle" and "looks like you're in a lot of pain" are empathy; "Back at once if fever, rigors, ..." is
safety-netting."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("question", "asked"), [
    ("Tolerating any PO at all?", True),  # agentclinic-0039, us_abbrev
    ("Any PO meds?", False),
])
def test_tolerating_po_asks_about_feeding(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Duodenal atresia", secondary_symptoms=["feeding intolerance"], source="agentclinic")
    turns = [question, "DIAGNOSIS: Duodenal atresia\nSurgical referral."]
    assert _met(case, turns, "Before giving a diagnosis, asks about feeding intolerance") is asked


@pytest.mark.parametrize(("plan", "empathic"), [
    ("It's hard watching a wee one struggle.", True),  # bronchiolitis, checklist
    ("Looks like you're in a lot of pain; IV ketorolac now.", True),  # renal-colic, us_abbrev
    ("If you're in a lot of pain, take the ketorolac.", False),
    ("Watching and waiting is fine for a week.", False),
])
def test_the_empathy_of_round_97(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back at once if fever, rigors, uncontrolled pain, persistent vomiting.", True),  # renal-colic, terse
    ("Back at once with the results.", False),
])
def test_back_at_once_if_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted
