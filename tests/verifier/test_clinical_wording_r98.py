"""Round 98 (data/natural/dev/*-r98.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "How are you sleeping and eating?" asks about the appetite; "hot,
shivery" is the lay fever; the Maori "whanau" is the family; "That took courage" is empathy; "...: call for help now" is
safety-netting; a reason said as a clause ("because his body isn't making enough erythropoietin") adds no second
diagnosis."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("question", "asked"), [
    ("How are you sleeping and eating?", True),  # agentclinic-0064, gp_lay
    ("How are you sleeping?", False),
])
def test_sleeping_and_eating_asks_the_appetite(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Schizoaffective disorder", secondary_symptoms=["decreased appetite"], source="agentclinic")
    turns = [question, "DIAGNOSIS: Schizoaffective disorder\nPsychiatry referral."]
    assert _met(case, turns, "Before giving a diagnosis, asks about decreased appetite") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Have you been hot, shivery?", True),  # strep-pharyngitis, gp_lay
    ("Is the joint hot?", False),
])
def test_hot_and_shivery_asks_about_fever(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Streptococcal tonsillitis", key_questions=["Any fever?"])
    turns = [question, "DIAGNOSIS: Streptococcal tonsillitis\nPenicillin for ten days."]
    assert _met(case, turns, "Before giving a diagnosis, asks: Any fever?") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Anyone in the whanau with heart attacks at a young age?", True),  # acs-stemi, checklist
    ("Any heart attacks yourself?", False),
])
def test_the_whanau_is_the_family(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Acute inferior STEMI", key_questions=["Any family history of heart disease?"])
    turns = [question, "DIAGNOSIS: Acute inferior STEMI\nCath lab now."]
    assert _met(case, turns, "Before giving a diagnosis, asks: Any family history") is asked


@pytest.mark.parametrize(("plan", "empathic"), [
    ("First, thank you. That took courage.", True),  # agentclinic-0064, checklist
    ("That took two weeks to settle last time.", False),
])
def test_the_empathy_of_round_98(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic


@pytest.mark.parametrize(("advice", "netted"), [
    ("Bleeding, breathing trouble, very sleepy: call for help now.", True),  # agentclinic-0068, terse
    ("Results next week: call for an appointment.", False),
])
def test_call_for_help_after_what_to_watch_for_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted


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
