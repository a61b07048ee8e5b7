"""Round 98 (data/natural/dev/*-r98.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "How are you sleeping and eating?" asks about the appetite; "hot,
shivery" is the lay fever; the Maori "whanau" is the family; "That took courage" is empathy; "...: call for help now" is
safety-netting; a reason said as a clause ("because his body isn't making enough erythropoietin") adds no second
diagnosis."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.types import Case

_APPETITE = _case(final_diagnosis="Schizoaffective disorder", secondary_symptoms=["decreased appetite"], source="agentclinic")
_FEVER = _case(final_diagnosis="Streptococcal tonsillitis", key_questions=["Any fever?"])
_FAMILY = _case(final_diagnosis="Acute inferior STEMI", key_questions=["Any family history of heart disease?"])


@pytest.mark.parametrize(("case", "item", "question", "asked"), [
    (_APPETITE, "asks about decreased appetite", "How are you sleeping and eating?", True),  # agentclinic-0064, gp_lay
    (_APPETITE, "asks about decreased appetite", "How are you sleeping?", False),
    (_FEVER, "asks: Any fever?", "Have you been hot, shivery?", True),  # strep-pharyngitis, gp_lay
    (_FEVER, "asks: Any fever?", "Is the joint hot?", False),
    (_FAMILY, "asks: Any family history", "Anyone in the whanau with heart attacks at a young age?", True),  # acs-stemi
    (_FAMILY, "asks: Any family history", "Any heart attacks yourself?", False),
])
def test_the_questions_of_round_98(case: Case, item: str, question: str, asked: bool) -> None:
    turns = [question, f"DIAGNOSIS: {case.final_diagnosis}\nTreatment and follow-up."]
    assert _met(case, turns, f"Before giving a diagnosis, {item}") is asked


_EMPATHY, _NET = "Acknowledges the patient's concerns with empathy", "Gives safety-netting advice"


@pytest.mark.parametrize(("item", "plan", "met"), [
    (_EMPATHY, "First, thank you. That took courage.", True),  # agentclinic-0064, checklist
    (_EMPATHY, "That took two weeks to settle last time.", False),
    (_NET, "Bleeding, breathing trouble, very sleepy: call for help now.", True),  # agentclinic-0068, terse
    (_NET, "Results next week: call for an appointment.", False),
])
def test_the_empathy_and_safety_netting_of_round_98(item: str, plan: str, met: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {plan}"], item) is met


@pytest.mark.parametrize(("stated", "right"), [
    ("Anaemia of prematurity, because his body isn't yet making enough erythropoietin", True),  # 0067, gp_lay
    ("Anaemia of prematurity because his body isn't making enough erythropoietin", True),
    ("Iron deficiency anaemia, because he is premature", False),
    ("Anaemia of prematurity, because of iron deficiency", True),  # a cause after the name is ignored, as before
])
def test_a_reason_said_as_a_clause_adds_no_words_to_the_diagnosis(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Impaired erythropoietin production", diagnosis_synonyms=["Anaemia of prematurity"],
                 differential=["Iron deficiency anaemia"], source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nTransfusion."], "States the correct final diagnosis") is right
