"""Questions the template patient left unanswered in round 47 (data/natural/dev/answerable/), on a made-up record beside
lookalikes: a terse "Drugs, alcohol?" asks about street drugs, not medicines."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

NONE_USED = "No substance abuse"


@pytest.mark.parametrize(("question", "told"), [
    ("Drugs, alcohol?", True),  # agentclinic-0089 (r47), terse
    ("Any new drugs, tablets?", False),
])
def test_drugs_beside_alcohol_are_street_drugs(question: str, told: bool) -> None:
    case = _case(chief_complaint="Poor grades", social_history=[NONE_USED], medications=["None"])
    assert (NONE_USED in _replies(case, question)[0]) is told
