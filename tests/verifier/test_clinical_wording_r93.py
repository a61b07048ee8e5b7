"""Round 93 (data/natural/dev/*-r93.yaml): what its examiners marked met and the grader missed or credited wrongly, in
general form, each beside a lookalike that must come out the other way. "Ow long's it bin bad?" and a recap with its
duration checked back ("So tummy pain five days, very bad, cramping, yes?") ask the start, a recap that is a remark ("Six months of
cough and fevers, that's a long time to feel poorly, hein?") does not; "More often?" asks whether the spells come more
often."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Ow long's it bin bad?", True),  # agentclinic-0065, gp_lay
    ("So tummy pain five days, very bad, cramping, yes?", True),  # agentclinic-0060, gp_lay
    ("Ow, is it bad here?", False),
    ("So tummy pain, very bad, cramping, yes?", False),
    ("Six months of cough and fevers, that's a long time to feel poorly, hein?", False),  # agentclinic-0093 (round 89)
])
def test_the_starts_of_round_93(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "asked"), [
    ("More often?", True),  # agentclinic-0067, terse (after the pauses)
    ("More blue?", False),
])
def test_more_often_asks_whether_the_spells_are_more_frequent(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Anaemia of prematurity", secondary_symptoms=["increased frequency of apneic episodes"],
                 source="agentclinic")
    turns = [f"Pauses in his breathing? {question}", "DIAGNOSIS: Anaemia of prematurity\nTransfusion."]
    assert _met(case, turns, "Before giving a diagnosis, asks about increased frequency") is asked
