"""Round 51 (data/natural/dev/*-r51.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A recap handed back to be confirmed ("So: worse w/ activity,
better w/ rest. Did I get that right?"); "Worse moving or resting?"; weight lost as a systemic symptom; a husband's
"ED"; "NHS 111 option 2"; and "running on empty"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Symptoms improve with rest",
     "So: L great toe, both knees, worse w/ activity, better w/ rest, progressive over years. Did I get that right?", True),
    ("Symptoms improve with rest", "So: L great toe, both knees, for several years. Did I get that right?", False),
    ("Symptoms improve with rest", "I'll start you on a rest plan. Is that right?", False),
    ("Symptoms improve with rest", "Worse moving or resting?", True),
    ("Symptoms improve with rest", "Worse moving or lifting?", False),
    ("Systemic symptoms", "Has he lost weight, had rashes or bruising?", True),
    ("Systemic symptoms", "Has he had rashes or bruising?", False),
    ("Husband occasionally has erectile dysfunction", "Husband's ED, how often?", True),
    ("Husband occasionally has erectile dysfunction", "Seen in the ED before?", False),
])
def test_history_in_recaps_and_shorthand(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("advice", "netted"), [
    ("Voices, feeling unsafe, self-harm thoughts: NHS 111 option 2 or A&E.", True),
    ("Worse: NHS 111.", True),
    ("Results: NHS app.", False),
])
def test_nhs_111(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("words_", "kind"), [
    ("You've been running on empty, this'll get better.", True),
    ("The car was running on fumes.", False),
])
def test_everyday_sympathy(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind

