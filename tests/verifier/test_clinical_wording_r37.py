"""Round 37 (data/natural/dev/*-r37.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. How the patient is once an episode is over, pain that goes down
into the groin, where on the body a rash or itch is, pain the patient cannot control, the surgeons seeing the patient
now, and brief empathy in West Country and Canadian words. The differentials the writers weighed in their own words are
in round 34's table."""

from __future__ import annotations

import pytest

from patient_sim.cases import project_cases
from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("finding", "question", "asked"), [
    ("Temporary post-episode tiredness", "And how is she the next day?", True),
    ("Temporary post-episode tiredness", "How is she the following day?", True),
    ("Lethargy and confusion after episodes", "How is he once it's over?", True),
    ("Lethargy and confusion after episodes", "Afterwards?", True),
    ("Temporary post-episode tiredness", "How is she at school?", False),
    ("Temporary post-episode tiredness", "How is the pain after a meal?", False),
    ("Tiredness", "How is she the next day?", False),  # the item says nothing of what follows an episode
])
def test_how_the_patient_is_once_an_episode_is_over(finding: str, question: str, asked: bool) -> None:
    case = _imported(finding)
    assert _asked(case, question, "Before giving a diagnosis, asks about") is asked


def _renal_colic():
    return next(c for c in project_cases() if c.id == "renal-colic")


@pytest.mark.parametrize(("question", "asked"), [
    ("When did the pain start? Does it come in waves and go down into your groin or testicle?", True),
    ("When did the pain start? Does it go up into your back?", True),
    ("When did the pain start? Did you go back into your office after it?", False),
])
def test_pain_that_goes_down_into_a_place_is_its_spread(question: str, asked: bool) -> None:
    assert _asked(_renal_colic(), question, "Before giving a diagnosis, asks: Where is the pain and does it move?") is asked


@pytest.mark.parametrize(("finding", "question", "asked"), [
    ("Rash spread to trunk and distal extremities", "Where did the rash start, and where has it gone since?", True),
    ("Rash spread to trunk and distal extremities", "Where did the rash start, and has it itched since?", False),
    ("Itching also present on the left leg and right forearm", "Where on the body is it, and where are the bumps?", True),
    ("Itching also present on the left leg and right forearm", "How is your body coping?", False),
])
def test_where_a_rash_has_gone_and_where_on_the_body_it_is(finding: str, question: str, asked: bool) -> None:
    assert _asked(_imported(finding), question, "Before giving a diagnosis, asks about") is asked


@pytest.mark.parametrize(("advice", "addressed"), [
    ("Come back straight away with fever or shivers, pain you can't control, or vomiting.", True),
    ("Come back straight away with fever or shivers, or vomiting you can't control.", False),
])
def test_pain_the_patient_cannot_control(advice: str, addressed: bool) -> None:
    case = _renal_colic()
    turns = ["Where is the pain and does it move?", f"DIAGNOSIS: {case.final_diagnosis}\nTamsulosin. {advice}"]
    assert _met(case, turns, "Asks about or addresses the red flag: Uncontrolled pain") is addressed


@pytest.mark.parametrize(("text", "outright"), [
    ("Surgery seeing you now. Lap appy today. NPO, IV fluids.", True),
    ("The surgeons are reviewing you now.", True),
    ("Lap chole tonight.", True),
    ("The surgery will see you next week for your results.", False),
    ("If the pain gets worse, the surgeons are seeing you now, not tomorrow.", False),
])
def test_the_surgeons_seeing_the_patient_now(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("words", "kind"), [
    ("Rough go, my love.", True),
    ("Horrid thing. Should ease dreckly.", True),
    ("Proper nuisance, these are.", True),
    ("Go to the counter on your way out.", False),
])
def test_empathy_in_west_country_and_canadian_words(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind
