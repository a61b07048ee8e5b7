"""Round 99 (data/natural/dev/*-r99.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "CBC with smear" orders the blood smear; "we are transferring you
straight away" and "the stroke team is here" are emergency care now; "a nasty turn" and "How you feeling about all this?"
are empathy; "Back sharpish if ..." is safety-netting; the organism named after "Listeriosis" is the same condition."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("order", "ordered"), [
    ("CBC with smear", True),  # agentclinic-0091, us_abbrev
    ("CBC w/ diff and smear", True),
    ("CBC with diff", False),
    ("Sputum smear", False),
])
def test_a_blood_count_with_smear_orders_the_blood_smear(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Giant cell arteritis", recommended_tests=["Peripheral Blood Smear", "ESR"],
                 source="agentclinic")
    turns = ["Any pain?", f"REQUEST TEST: {order}", "DIAGNOSIS: Giant cell arteritis\nSteroids."]
    assert _met(case, turns, "Orders the appropriate test: Peripheral Blood Smear") is ordered


@pytest.mark.parametrize(("plan", "now"), [
    ("We are still inside the time window, so this is what we do now: the stroke team is here, we give the "
     "clot-busting drug through the drip as long as your clotting test is fine, and we are transferring you straight "
     "away for a procedure to pull the clot out.", True),  # ischaemic-stroke, gp_lay
    ("We give the clot-busting drug, and we are transferring you straight away for a procedure.", True),
    ("More weakness or a bad headache: we are transferring you straight away.", False),
    ("The stroke team is here and will take over.", True),
    ("We will transfer you to the stroke clinic next week.", False),
    ("The stroke team will see you in clinic in six weeks.", False),
])
def test_a_transfer_straight_away_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Acute ischaemic stroke", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute ischaemic stroke\n{plan}"], "Tells the patient to get emergency care now") is now


_EMPATHY, _NET = "Acknowledges the patient's concerns with empathy", "Gives safety-netting advice"


@pytest.mark.parametrize(("item", "plan", "met"), [
    (_EMPATHY, "Sounds like you had a nasty turn last night.", True),  # agentclinic-0079, gp_lay
    (_EMPATHY, "How you feeling about all this?", True),  # agentclinic-0088, gp_lay
    (_EMPATHY, "Nasty stuff, this weather.", False),
    (_EMPATHY, "How are you feeling in yourself?", False),
    (_NET, "Back sharpish if lump, growth, bleeding, tender, ulcer.", True),  # agentclinic-0087, terse
    (_NET, "Bring the forms back sharpish.", False),
])
def test_the_empathy_and_safety_netting_of_round_99(item: str, plan: str, met: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {plan}"], item) is met


@pytest.mark.parametrize(("stated", "right"), [
    ("Listeriosis — Listeria monocytogenes bloodstream infection in pregnancy", True),  # agentclinic-0080, gp_lay
    ("Listeriosis, chorioamnionitis", False),
])
def test_the_organism_named_after_listeriosis_is_the_same_condition(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Listeriosis", differential=["Chorioamnionitis"], source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nIV ampicillin."], "States the correct final diagnosis") is right
