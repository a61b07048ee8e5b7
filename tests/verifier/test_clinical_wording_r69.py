"""Round 69 (data/natural/dev/*-r69.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A dash for the colon after the help; a duration asked in chart
units; the rest a symptom needs to settle; how much blood was vomited; a pregnancy red flag addressed by the pregnancy
test; an image's second view with the side of its site."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.markers import parse_orders


@pytest.mark.parametrize(("advice", "netted"), [
    # agentclinic-0011, 0008 and 0014, terse (a Florida urgent care's dash notes)
    ("ED - heavy bleeding, dizzy, black stool, stuck painful lump.", True),
    ("Back now / 911 - breathing hard, sweating with feeds, blue, floppy, bleeding.", True),
    ("Tell staff / 911 - fever, more swelling, foul explosive stool, green vomit, floppy.", True),
    ("ED - we'll admit you, start fluids, and call the surgeons.", False),
    ("ED - now, with your wife driving, and bring your tablets.", False),
    ("911 - called, ambulance on its way, stay seated.", False),
    ("BP - 128/80, pulse 72, sats 98%.", False),
    ("ED - long-standing, responding well to sildenafil 50mg PRN.", False),  # erectile dysfunction
])
def test_the_help_then_a_dash_heads_what_to_come_back_for(advice: str, netted: bool) -> None:
    turns = [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"]
    case = _case(final_diagnosis="Migraine", disposition="routine")
    assert _met(case, turns, "Gives safety-netting advice") is netted
    if netted:  # a list of what to come back for is no emergency referral now
        assert not _met(case, turns, "Sends the patient for emergency care")


@pytest.mark.parametrize(("question", "asked"), [
    ("Diplopia x how many wks?", True),  # agentclinic-0001, us_abbrev
    ("How many hrs since it began?", True),
    ("Exactly when?", True),  # agentclinic-0102, terse
    ("How many wks pregnant?", False),
    ("Exactly where?", False),
])
def test_a_duration_in_chart_units_asks_when_it_started(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Migraine", key_questions=["When did the symptoms start?"])
    assert _met(case, [question, "DIAGNOSIS: Migraine"], "Before giving a diagnosis, asks: When did") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("How many hrs of rest to recover?", True),  # agentclinic-0001, us_abbrev and checklist
    ("And after resting, how many hours until you're back to normal?", True),  # gp_lay
    ("Has the rest of the family recovered?", False),
    ("Do you rest much during the day?", False),
])
def test_the_rest_it_takes_to_recover_asks_whether_rest_helps(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Myasthenia gravis", key_questions=["Does it improve after rest?"])
    assert _met(case, [question, "DIAGNOSIS: Myasthenia gravis"], "Before giving a diagnosis, asks: Does it") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("OK, GI first - how much hematemesis, bright red vs coffee-ground?", True),  # upper-gi-bleed, us_abbrev
    ("How much haematemesis has there been?", True),
    ("Any hematemesis?", False),
    ("How much alcohol a week?", False),
])
def test_how_much_vomited_blood_asks_how_much(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Peptic ulcer disease", key_questions=["How much blood did you vomit?"])
    assert _met(case, [question, "DIAGNOSIS: Peptic ulcer disease"],
                "Before giving a diagnosis, asks: How much blood") is asked


@pytest.mark.parametrize(("order", "addressed"), [
    ("UA w/ micro, urine hCG, urine cx", True),  # cystitis, us_abbrev
    ("Serum beta-hCG", True),
    ("UA w/ micro, urine cx", False),
])
def test_a_pregnancy_red_flag_is_addressed_by_the_pregnancy_test(order: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Cystitis", red_flags=["Pregnancy"])
    turns = ["Any burning when you pee?", f"REQUEST TEST: {order}", "DIAGNOSIS: Cystitis"]
    assert _met(case, turns, "Asks about or addresses the red flag: Pregnancy") is addressed


@pytest.mark.parametrize(("line", "orders"), [
    # agentclinic-0104, us_abbrev and terse: the second view of one study, with the side of its site
    ("XR pelvis AP + L hip frog-leg lateral", ["XR pelvis AP, L hip frog-leg lateral"]),
    ("XR pelvis + left hip AP/frog-leg", ["XR pelvis, left hip AP/frog-leg"]),
    ("FBC + L hip", ["FBC", "L hip"]),  # after a blood test, a site is no view of it
])
def test_an_images_second_view_with_its_side_is_the_same_study(line: str, orders: list[str]) -> None:
    assert [name for _, name in parse_orders(f"REQUEST TEST: {line}")] == orders


@pytest.mark.parametrize(("line", "ordered"), [
    ("XR pelvis AP + L hip frog-leg lateral", True),
    ("XR pelvis AP + L knee AP/lat", False),
])
def test_the_hip_is_x_rayed_in_its_second_view(line: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Slipped capital femoral epiphysis", source="agentclinic",
                 test_results={"X-ray Left Hip": "Posterior displacement of the femoral epiphysis"})
    turns = [f"REQUEST TEST: {line}", "DIAGNOSIS: Slipped capital femoral epiphysis"]
    assert _met(case, turns, "Orders the appropriate test: X-ray Left Hip") is ordered
