"""Round 40 (data/natural/dev/*-r40.yaml): what its examiners marked met and the grader missed, or penalised, in
general form, each beside a lookalike that must come out the other way. Lying on a painful side as sleep, reaching up as
a movement, a level of alertness examined and a floppy child as drowsiness, "Go to the ED now / call 911 if: ..." as
safety-netting rather than over-triage, the surgical team called now for keyhole surgery, and "pobrecito"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("finding", "question", "asked"), [
    ("Difficulty sleeping on the affected side", "Can you lie on that side?", True),
    ("Difficulty sleeping on the affected side", "Lie on your back for me, please.", False),
    ("Pain at extremes of motion", "Reaching up, behind back?", True),
    ("Pain at extremes of motion", "Any pain in your back?", False),
])
def test_lying_on_the_side_and_reaching_up(finding: str, question: str, asked: bool) -> None:
    assert _asked(_imported(finding), question, "Before giving a diagnosis, asks about") is asked


@pytest.mark.parametrize(("orders", "looked"), [
    ("REQUEST EXAM: ears, throat, level of alertness", True),
    ("REQUEST EXAM: ears, throat", False),
])
def test_a_level_of_alertness_examined_looks_for_drowsiness(orders: str, looked: bool) -> None:
    case = _case(final_diagnosis="Acute otitis media", red_flags=["Drowsiness"])
    turns = [orders, "DIAGNOSIS: Acute otitis media\nParacetamol."]
    assert _met(case, turns, "Asks about or addresses the red flag: Drowsiness") is looked


@pytest.mark.parametrize(("text", "outright"), [
    ("Go to the ED now / call 911 if: stiff neck, a rash that doesn't blanch, very sleepy.", False),
    ("Go to the ED now / call 911.", True),
    ("Surgical team called now for keyhole removal of the appendix today.", True),
    ("The surgical team will see you in clinic next month about keyhole removal.", False),
])
def test_the_ed_now_if_and_the_surgeons_called_for_keyhole_surgery(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("words", "kind"), [
    ("Ay, pobrecito, let's get to the bottom of this.", True),
    ("Let's get to the bottom of this.", False),
])
def test_pobrecito(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind
