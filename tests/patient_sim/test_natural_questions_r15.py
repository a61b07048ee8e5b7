"""Round fifteen's questions to the template patient (data/natural/dev/*-r15.yaml; which ones the record answers was
a clinician's call, made from the records alone): each finds the fact that answers it, and a question about
something else finds nothing."""

from __future__ import annotations

import pytest

from patient_sim.facts import FactIndex, case_facts
from verifier.types import Case


def _case(**fields: object) -> Case:
    base = {"id": "t", "chief_complaint": "Pain", "history_of_present_illness": "Pain in the joint.",
            "final_diagnosis": "Osteoarthritis"}
    return Case.model_validate({**base, **fields})


@pytest.mark.parametrize(("question", "fact"), [
    ("When did it start - sudden overnight?", "Woke in the night with severe pain in the right big toe"),  # gout
    ("Are you eating and drinking?", "Poor appetite"),  # community-pneumonia, checklist
    ("Eating, drinking?", "Poor appetite"),  # terse
    ("Sexually active, any new partners?", "In a relationship"),  # cystitis, us_abbrev
    ("Colicky?", "Severe left loin pain in waves"),  # renal-colic, us_abbrev
    ("Any position of comfort?", "Cannot keep still"),
    ("Fluid intake?", "Drinks little water during shifts"),
    ("Travel - what exposure?", "Recently returned from a visit to Wisconsin"),  # agentclinic-0018, terse
    ("Pruritic at all?", "Generalized nonpruritic rash"),  # agentclinic-0046, us_abbrev
    ("Itchy?", "Generalized nonpruritic rash"),
    ("Trigger - lying down?", "The symptoms started as he was going to bed"),  # agentclinic-0079, terse
])
def test_a_natural_question_finds_the_fact_that_answers_it(question: str, fact: str) -> None:
    case = _case(secondary_symptoms=[fact, "Tired"], past_medical_history=["Asthma"])
    assert fact in [f.text for f in FactIndex(case_facts(case)).select(question)]


@pytest.mark.parametrize(("question", "fact"), [
    ("Any allergies?", "Poor appetite"),
    ("Any chest pain?", "In a relationship"),
    ("Do you smoke?", "Cannot keep still"),
    ("Any headaches?", "Generalized nonpruritic rash"),
])
def test_a_question_about_something_else_does_not_find_it(question: str, fact: str) -> None:
    case = _case(secondary_symptoms=[fact, "Tired"], past_medical_history=["Asthma"])
    assert fact not in [f.text for f in FactIndex(case_facts(case)).select(question)]
