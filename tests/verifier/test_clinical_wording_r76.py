"""Round 76 (data/natural/dev/*-r76.yaml): what its examiners marked met and the grader missed or wrongly credited, in
general form, each beside a lookalike that must come out the other way. "Starting at the top" and "let's start with"
open a list, not the onset; "how long do they go on for?" asks how long each lasts; "When and doing what" and "where's
it go?" ask the onset and the spread; "you're going straight to the cath lab now" is emergency care now; a
"hyperosmolar state" is the hyperosmolar hyperglycaemic state."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Starting at the top: any headaches, dizzy spells, trouble thinking straight?", False),  # agentclinic-0040, gp_lay
    ("Let's start with your medicines: any tablets?", False),
    ("How long do they go on for?", False),  # agentclinic-0036, gp_lay: each episode
    ("When did it start?", True),
    ("When did the headaches start at the top of your head?", True),
    ("How long have you had them?", True),
    ("When and doing what?", True),  # acs-stemi, terse
])
def test_what_asks_the_onset_round_76(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "asked"), [
    ("Where's it go?", True),  # acs-stemi, terse
    ("Where's it worst?", False),
])
def test_wheres_it_go_asks_the_spread(question: str, asked: bool) -> None:
    assert ("intent:radiation" in clinical.intents(question)) is asked


@pytest.mark.parametrize(("plan", "now"), [
    ("You're going straight to the cath lab now, where they'll open the artery.", True),  # acs-stemi, gp_lay
    ("If the pain comes back, you're going straight to the cath lab.", False),
])
def test_going_straight_to_the_cath_lab_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Acute coronary syndrome", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute coronary syndrome\n{plan}"],
                "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("plan", "considered"), [
    ("A hyperosmolar state doesn't fit with this much acid.", True),  # dka, checklist
    ("The osmolality is normal.", False),
])
def test_a_hyperosmolar_state_is_considered(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", differential=["Hyperosmolar hyperglycaemic state"])
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Diabetic ketoacidosis\n{plan}"],
                "Considers a relevant differential") is considered
