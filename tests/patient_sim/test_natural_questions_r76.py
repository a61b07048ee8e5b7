"""Questions the template patient left unanswered in round 76 (data/natural/dev/answerable/), on a made-up record beside
a lookalike: a numbered question ("One, how long ...?", "Second: ...") asks what it would ask without its number."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

STORY = "The symptoms have progressively gotten worse over the past several years"


@pytest.mark.parametrize(("question", "told"), [
    ("One, how long has the pain been going on?", True),  # agentclinic-0048, checklist
    ("First: how long has it been going on?", True),
    ("One more thing: any allergies?", False),
])
def test_a_numbered_question_asks_what_it_asks(question: str, told: bool) -> None:
    case = _case(chief_complaint="Joint pain", history_of_present_illness=f"Pain in the toe and knees. {STORY}.",
                 allergies=["No known drug allergies"])
    assert (STORY in _replies(case, question)[0]) is told
