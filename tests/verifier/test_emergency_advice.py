"""Emergency advice in the words clinicians use (tests/verifier/data/emergency_advice.json): conditional advice
("if ..., go to A&E"; "Red flags (go to ED): ..."; "When to call 911: ...") is safety-netting and never over-triage
on a routine case; a referral now ("ED now - ?appendicitis"; "Transfer to ER stat") is emergency care now on an
emergency case; a visit told as history, another meaning of ED or ER, or a routine plan is neither."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.verifier.test_clinical_wording import _case, _met

ADVICE = json.loads((Path(__file__).parent / "data" / "emergency_advice.json").read_text(encoding="utf-8"))
_ROUTINE = _case(final_diagnosis="Migraine", disposition="routine")
_EMERGENCY = _case(final_diagnosis="Acute coronary syndrome", disposition="emergency")


def _on_routine(advice: str, item: str) -> bool:
    return _met(_ROUTINE, [f"DIAGNOSIS: Migraine\nTriptan as needed.\n{advice}"], item)


@pytest.mark.parametrize("advice", ADVICE["conditional"])
def test_conditional_emergency_advice_is_safety_netting_not_over_triage(advice: str) -> None:
    assert _on_routine(advice, "Gives safety-netting advice")
    assert not _on_routine(advice, "Sends the patient for emergency care")


@pytest.mark.parametrize("advice", ADVICE["unconditional"])
def test_a_referral_now_is_emergency_care_now(advice: str) -> None:
    assert _met(_EMERGENCY, [f"DIAGNOSIS: Acute coronary syndrome\n{advice}"],
                "Tells the patient to get emergency care now")


@pytest.mark.parametrize("advice", ADVICE["neither"])
def test_history_other_meanings_and_routine_plans_are_neither(advice: str) -> None:
    assert not _on_routine(advice, "Gives safety-netting advice")
    assert not _on_routine(advice, "Sends the patient for emergency care")


HELDOUT = json.loads((Path(__file__).parent / "data" / "emergency_advice_heldout.json").read_text(encoding="utf-8"))


def test_the_held_out_set_stays_at_its_measured_figures() -> None:
    """Never tuned on: the misreadings measured when it was written (at the round's start: 5, 10, 13, 1 and 9) and
    after the round's fixes (the bounds), so a change that loses ground shows here."""
    def on_routine(item: str) -> list[str]:
        return [a for a in HELDOUT["conditional"] if _on_routine(a, item)]

    over_triage = on_routine("Sends the patient for emergency care")
    not_netting = [a for a in HELDOUT["conditional"] if a not in on_routine("Gives safety-netting advice")]
    missed_now = [a for a in HELDOUT["unconditional"]
                  if not _met(_EMERGENCY, [f"DIAGNOSIS: Acute coronary syndrome\n{a}"],
                              "Tells the patient to get emergency care now")]
    neither_net = [a for a in HELDOUT["neither"] if _on_routine(a, "Gives safety-netting advice")]
    neither_sent = [a for a in HELDOUT["neither"] if _on_routine(a, "Sends the patient for emergency care")]
    assert (len(HELDOUT["conditional"]), len(HELDOUT["unconditional"]), len(HELDOUT["neither"])) == (50, 25, 25)
    assert len(over_triage) <= 3, over_triage
    assert len(not_netting) <= 6, not_netting
    assert len(missed_now) <= 6, missed_now
    assert len(neither_net) == 0, neither_net
    assert len(neither_sent) <= 6, neither_sent


@pytest.mark.parametrize("advice", ADVICE["denied"])
def test_emergency_care_said_not_to_be_needed_is_no_referral(advice: str) -> None:
    assert not _on_routine(advice, "Sends the patient for emergency care")
    assert not _met(_EMERGENCY, [f"DIAGNOSIS: Acute coronary syndrome\n{advice}"],
                    "Tells the patient to get emergency care now")
