"""Questions the template patient left unanswered in rounds 47 to 63 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: a lower-case "vs" is "versus", not the vital signs; "one side" and "the other side" ask where;
other places it is, and a symptom at another body part tells where else; a colour getting deeper is its course; and
THC and meth are drugs."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from verifier.clinical import terms


@pytest.mark.parametrize(("question", "told"), [
    ("Gradual vs sudden?", True),  # agentclinic-0101, us_abbrev (round 58)
    ("Gradual or sudden?", True),
    ("VS stable?", False),
])
def test_a_lower_case_vs_is_versus(question: str, told: bool) -> None:
    case = _case(chief_complaint="Odd behaviour",
                 history_of_present_illness="He has been behaving oddly for the past 6 weeks.")
    assert any("6 weeks" in f for f in _replies(case, question)[0]) is told


def test_vs_in_an_order_is_still_the_vital_signs() -> None:
    assert "test:vital_signs" in terms("Check VS and glucose")
    assert "test:vital_signs" not in terms("Gradual vs sudden?")


@pytest.mark.parametrize(("question", "told"), [
    ("One side?", True),  # agentclinic-0090, terse (round 62)
    ("Has it spread to the other side?", True),  # gp_lay
    ("Any side effects from the tablets?", False),
])
def test_one_side_asks_where(question: str, told: bool) -> None:
    case = _case(chief_complaint="Shaking", secondary_symptoms=["Resting tremor worse on the left hand"])
    assert ("Resting tremor worse on the left hand" in _replies(case, "Any shaking?", question)[1]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Other places?", True),  # agentclinic-0065, terse (round 62)
    ("Anywhere else on the body?", True),
    ("Other medicines?", False),
])
def test_other_places_are_answered_by_where_else_it_is(question: str, told: bool) -> None:
    case = _case(chief_complaint="Itchy thigh", secondary_symptoms=["Itching also present on the left leg and right forearm"])
    assert any("also present" in f for f in _replies(case, "Itchy?", question)[1]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Getting deeper?", True),  # agentclinic-0083, gp_lay (rounds 47 and 62)
    ("Has the colour been getting darker?", True),
    ("Any deep cuts?", False),
])
def test_a_colour_getting_deeper_is_its_course(question: str, told: bool) -> None:
    case = _case(chief_complaint="Yellow skin", secondary_symptoms=["Increasing yellow discoloration of the eyes and skin"])
    assert any("Increasing" in f for f in _replies(case, "Yellow?", question)[1]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Any other sites?", True),  # agentclinic-0098, us_abbrev (round 63)
    ("Any other medicines?", False),
])
def test_a_symptom_at_another_body_part_tells_where_else_it_is(question: str, told: bool) -> None:
    case = _case(chief_complaint="Blisters on the forearm", secondary_symptoms=["Painful ulcers in the mouth"])
    assert ("Painful ulcers in the mouth" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("EtOH/THC/meth/other?", True),  # agentclinic-0101, terse (round 63)
    ("Any meth?", True),
    ("Any methotrexate?", False),
])
def test_thc_and_meth_are_drugs(question: str, told: bool) -> None:
    case = _case(chief_complaint="Odd behaviour", social_history=["No drug use"])
    assert ("No drug use" in _replies(case, question)[0]) is told
