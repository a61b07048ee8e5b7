"""Questions the template patient left unanswered in round 70 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: a clipped "Bigger or the same?" asks how a lesion has changed; "how's it goin'?" opens the story,
as "how's it going?" does."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("Bigger or the same?", True),  # agentclinic-0023, us_abbrev
    ("Worse or about the same?", True),
    ("Bigger or smaller than a coin?", False),
])
def test_bigger_or_the_same_asks_how_it_has_changed(question: str, told: bool) -> None:
    case = _case(chief_complaint="Skin lesion", secondary_symptoms=["Lesion has increased in size"])
    assert ("Lesion has increased in size" in _replies(case, "Tell me about the spot.", question)[1]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Hey, how's it goin'?", True),  # mechanical-low-back-pain, us_abbrev
    ("How's it going?", True),
    ("Goin' to the gym much?", False),
])
def test_hows_it_goin_opens_the_story(question: str, told: bool) -> None:
    story = "Low back pain started two days ago while lifting a sofa at work"
    case = _case(chief_complaint="Back pain", history_of_present_illness=f"{story}.")
    assert (story in _replies(case, question)[0]) is told
