"""The telephone numbers a plan sends the patient to, one named list per meaning (verifier/rule_grader.py): every
number in a list works in every wording that list serves, so that adding a country's number is one edit. An
ambulance number sends the patient now; NHS 111 and the 988 crisis line are help a safety-net may name, not an
emergency referral."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import EMERGENCY_NUMBERS, HELP_NUMBERS, _recommends_emergency

AMBULANCE = EMERGENCY_NUMBERS.split("|")
HELP = HELP_NUMBERS.split("|")


def test_the_lists_name_each_country_once() -> None:
    # (the American and British numbers also as written digit by digit: "call or text 9-8-8", round 44; Australia's
    # spelled out, and its crisis line, round 50)
    assert sorted(AMBULANCE) == ["000", "112", "9-1-1", "9-9-9", "911", "995", "999", "triple zero"]
    assert sorted(set(HELP) - set(AMBULANCE)) == ["1-800-273-8255", "1-800-273-talk", "1-800-suicide", "111", "13 11 14",
                                                   "9-8-8", "988", "lifeline"]
    assert len(HELP) == len(set(HELP))


@pytest.mark.parametrize("number", AMBULANCE)
@pytest.mark.parametrize("plan", ["Call {n} now.", "I'm calling {n} for you.", "Dial {n} immediately.",
                                  "{n} called, crew on the way."])
def test_an_ambulance_number_sends_the_patient_now(number: str, plan: str) -> None:
    assert _recommends_emergency(plan.format(n=number), unconditional=True) is not None


@pytest.mark.parametrize("number", ["111", "988"])
def test_advice_and_crisis_lines_are_not_an_emergency_referral(number: str) -> None:
    assert _recommends_emergency(f"Call {number} now.", unconditional=True) is None


@pytest.mark.parametrize("number", AMBULANCE)
def test_an_ambulance_number_inside_a_condition_is_not_care_now(number: str) -> None:
    assert _recommends_emergency(f"If the pain comes back, call {number}.", unconditional=True) is None


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize("number", HELP)
@pytest.mark.parametrize("advice", [
    "If the headache gets worse, call {n}.",
    "{n} if you get a stiff neck or a rash.",
    "Stiff neck, rash or vomiting: call {n}.",
    "If you get a stiff neck. Call {n}.",  # the help in the next sentence
])
def test_any_help_number_safety_nets(number: str, advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice.format(n=number)}"], _NET)


@pytest.mark.parametrize("advice", ["We called 999 last year.", "Your BP was 112 over 70.", "Room 911 is upstairs."])
def test_a_number_alone_is_not_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert not _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET)
