"""Round 79 (data/natural/dev/*-r79.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Hi, tell me please ... how long ..." asks though it ends in a
full stop; a duration checked back with a Spanish "¿no?" asks the onset; "Does it run down into your groin?" the
spread; "painful ... during relations" the sexual history; "Pain on effort?" exertion; "pain the tablets can't control"
is uncontrolled pain; "Post-prandial?" asks about meals; "This is a lot for you both" and "It looks alarming" own the
worry."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.rule_grader import questions


def _asks(question: str) -> frozenset[str]:
    return clinical.compose(clinical.asked(question))


@pytest.mark.parametrize(("turn", "asked"), [
    ("Hi, tell me please what brings you in and how long the cough has been going on.", True),  # agentclinic-0093
    ("Hi, I'm the doctor on call tonight.", False),
])
def test_a_greeting_before_tell_me_still_asks(turn: str, asked: bool) -> None:
    assert bool(questions(turn)) is asked


@pytest.mark.parametrize(("question", "onset"), [
    ("Tired and a pain in your tummy, for about a month, \u00bfno?", True),  # agentclinic-0004, gp_lay
    ("For about a month, no?", True),
    ("You've taken the tablets for a month, no?", False),
])
def test_a_duration_checked_back_with_no_asks_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "key", "asked"), [
    ("Does it run down into your groin?", "intent:radiation", True),  # renal-colic, checklist
    ("Run down to the shops?", "intent:radiation", False),
    ("Are the sores painful when passing water or during relations?", "sexual_history", True),  # agentclinic-0098
    ("Are the sores painful when passing water?", "sexual_history", False),
    ("Pain on effort?", "exertion", True),  # gerd, terse
    ("Pain on swallowing?", "exertion", False),
    ("Post-prandial?", "food", True),  # gerd, us_abbrev
    ("Post-op?", "food", False),
])
def test_clipped_and_old_fashioned_words_ask_their_concept_round_79(question: str, key: str, asked: bool) -> None:
    assert (key in _asks(question)) is asked


@pytest.mark.parametrize(("advice", "addressed"), [
    ("Come right back to the ED for a fever or pain the meds can't control.", True),  # renal-colic, us_abbrev
    ("Come right back to the ED for a fever.", False),
])
def test_pain_the_tablets_cannot_control_is_uncontrolled_pain(advice: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Uncontrolled pain."])
    assert _met(case, ["Where is the pain?", f"DIAGNOSIS: Renal colic\n{advice}"],
                "Asks about or addresses the red flag: Uncontrolled pain") is addressed


@pytest.mark.parametrize(("plan", "empathic"), [
    ("This is a lot for you both, and you were right to come.", True),  # agentclinic-0101, checklist
    ("It looks alarming, but it is not dangerous.", True),  # agentclinic-0103, gp_lay
    ("It looks like eczema, and it is not dangerous.", False),
])
def test_owning_the_worry_is_empathy_round_79(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
