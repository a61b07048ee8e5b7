"""Round 48 (data/natural/dev/*-r48.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "How's your eating been?", "keep your mind on the job",
strength that comes back after a rest, the people you think are watching; US "behavior rating scales"; rivals set
aside in a chart's shorthand ("no Todd's", "no hemorrhage", "no radiculopathy"); and the Scots "I ken" and other
everyday sympathy ("a long slog", "okay to feel rattled", "Poor pet")."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Decreased appetite", "And how's your eating been?", True),
    ("Decreased appetite", "And how's your sleeping been?", False),
    ("Difficulty concentrating", "Can you keep your mind on the job?", True),
    ("Difficulty concentrating", "Can you keep your job?", False),
    ("Improvement of symptoms after rest", "Does it get worse as you use them, and come back after a rest?", True),
    ("Improvement of symptoms after rest", "Come back after the results, please?", False),
    ("Delusions of persecution", "Any plan to act against the people you think are watching?", True),
    ("Delusions of persecution", "Any plan for the weekend, watching the game?", False),
])
def test_history_in_everyday_words(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("order", "ordered"), [
    ("Parent and teacher behavior rating scales (e.g., Vanderbilt, CBCL/TRF)", True),
    ("Parent and teacher meeting", False),
])
def test_behavior_rating_scales_in_us_spelling(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Oppositional defiant disorder",
                 test_results={"Parent and Teacher Behavioral Checklists": "Defiance at home and school"})
    turns = [f"REQUEST TEST: {order}", "DIAGNOSIS: Oppositional defiant disorder"]
    assert _met(case, turns, "Orders the appropriate test: Parent and Teacher") is ordered


@pytest.mark.parametrize(("final", "differential", "reasoning", "considered"), [
    ("Acute ischaemic stroke", ["Todd paresis"], "Mimics are excluded: no seizure (so no Todd's).", True),
    ("Acute ischaemic stroke", ["Intracerebral haemorrhage"], "CT: no hemorrhage, early ischemic change.", True),
    ("Mechanical low back pain", ["Sciatica"], "SLR is negative, so no radiculopathy.", True),
    ("Mechanical low back pain", ["Cauda equina syndrome"], "No saddle anesthesia, bladder fine.", True),
    ("Mechanical low back pain", ["Sciatica"], "Paracetamol and keep moving.", False),
])
def test_rivals_set_aside_in_shorthand(final: str, differential: list[str], reasoning: str, considered: bool) -> None:
    case = _case(final_diagnosis=final, differential=differential)
    assert _met(case, [f"DIAGNOSIS: {final}\n{reasoning} Plan as discussed."], "Considers a relevant differential") \
        is considered


@pytest.mark.parametrize(("words_", "kind"), [
    ("I ken four months of this is wearing.", True),
    ("It's been a long slog, and you'll feel a real difference soon.", True),
    ("This is a lot, and it's okay to feel rattled.", True),
    ("It's very normal to worry.", True),
    ("Poor pet. She'll be grand.", True),
    ("Ken will book your scan.", False),
])
def test_everyday_sympathy(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
