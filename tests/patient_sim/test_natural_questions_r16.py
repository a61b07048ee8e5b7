"""Rounds sixteen and seventeen's questions to the template patient (data/natural/dev/*-r16.yaml and *-r17.yaml, and
round fifteen's leftovers; which ones the record answers was a clinician's call, made from the records alone): each
finds the fact that answers it, and a question about something else, or about the family, finds nothing."""

from __future__ import annotations

import pytest

from patient_sim.facts import FactIndex, case_facts
from verifier.types import Case


def _case(**fields: object) -> Case:
    base = {"id": "t", "chief_complaint": "Unwell", "history_of_present_illness": "Unwell for a week.",
            "final_diagnosis": "Something"}
    return Case.model_validate({**base, **fields})


def _replies(case: Case, *questions: str) -> list[list[str]]:
    index = FactIndex(case_facts(case))  # one index per consultation: a follow-up reads the question before it
    return [[f.text for f in index.select(q)] for q in questions]


@pytest.mark.parametrize("question", [
    "Any heart trouble, blood pressure, diabetes, or do you smoke?",  # agentclinic-0079 (r15), gp_lay
    "Vascular risk factors?",  # terse
    "Any diabetes?",
])
def test_a_long_standing_illness_the_record_lacks_is_answered_by_otherwise_healthy(question: str) -> None:
    case = _case(past_medical_history=["The patient is otherwise healthy with only a history of eczema"])
    assert "The patient is otherwise healthy with only a history of eczema" in _replies(case, question)[0]


def test_the_family_s_illnesses_are_not_answered_from_the_patient_s_own_history() -> None:
    case = _case(past_medical_history=["No past medical problems"])
    assert _replies(case, "FHx of ovarian, breast or colon ca?") == [[]]  # agentclinic-0025 (r15), us_abbrev


@pytest.mark.parametrize("question", [
    "What sets it off: chewing, swallowing, talking, yawning?",  # agentclinic-0061 (r15), checklist
    "Swallowing, chewing, talking?",  # terse
])
def test_chewing_asks_whether_eating_sets_it_off(question: str) -> None:
    case = _case(secondary_symptoms=["Occasional shooting pain in the ear with eating", "Hearing loss"])
    assert "Occasional shooting pain in the ear with eating" in _replies(case, question)[0]


@pytest.mark.parametrize("question", ["Dizzy on standing?", "Do you feel faint or light-headed when you stand up?"])
def test_dizziness_on_standing_is_the_record_s_orthostatic_hypotension(question: str) -> None:
    case = _case(secondary_symptoms=["Orthostatic hypotension", "Slurred speech"])  # agentclinic-0038
    assert _replies(case, question, "Any dizziness?") == [["Orthostatic hypotension"], []]


@pytest.mark.parametrize("question", ["Breathless?", "Any SOB or orthopnea?", "Any nausea?"])
def test_a_blanket_negative_about_a_system_answers_its_symptoms(question: str) -> None:
    denial = "Denies fever, weight loss, headache, or any respiratory, gastrointestinal, or urinary symptoms"
    case = _case(review_of_systems=[denial])  # agentclinic-0107, each register
    [reply] = _replies(case, question)
    assert len(reply) == 1 and reply[0].endswith("or any respiratory, gastrointestinal, or urinary symptoms")


def test_a_negative_that_is_not_about_a_system_does_not_answer_its_symptoms() -> None:
    case = _case(review_of_systems=["No chest pain"])
    assert _replies(case, "Breathless?") == [[]]


def test_a_pain_question_at_a_place_the_record_lacks_is_answered_by_no_pain_elsewhere() -> None:
    case = _case(secondary_symptoms=["Headache", "No other pain"])  # agentclinic-0091, gp_lay
    assert _replies(case, "Does your jaw ache when you chew?", "Any cough?") == [["No other pain"], []]


def test_blood_after_dysuria_asks_about_blood_in_the_urine() -> None:
    # agentclinic-0027, terse: "Dysuria? Blood?" is one question about the waterworks
    case = _case(review_of_systems=["No fever, hematuria or back pain"], secondary_symptoms=["Nocturia"])
    assert "No fever, hematuria or back pain" in _replies(case, "Dysuria?", "Blood?")[1]


def test_blood_after_cough_is_not_answered_from_the_cough_when_the_record_is_silent() -> None:
    # community-pneumonia (r15), terse: the record says nothing of haemoptysis
    case = _case(secondary_symptoms=["Cough with green phlegm"])
    assert _replies(case, "Cough?", "Blood?")[1] == []


# ------------------------------------------------------------------ round seventeen (data/natural/dev/*-r17.yaml)
@pytest.mark.parametrize(("question", "fact"), [
    ("How much sun have you had, any bad sunburns?", "Enjoys walking and sunbathing"),  # agentclinic-0087
    ("Sun exposure?", "Enjoys walking and sunbathing"),  # terse
    ("Can you calm her down?", "Can be consoled by her parents"),  # agentclinic-0085, checklist
    ("Constant or waxing and waning?", "The rash occasionally worsens but has not completely resolved"),  # 0047
    ("Pain - where, waves, to groin?", "Discomfort in his right flank"),  # agentclinic-0041, terse
])
def test_round_seventeen_s_questions_find_their_fact(question: str, fact: str) -> None:
    case = _case(secondary_symptoms=[fact, "Tired"])
    assert fact in _replies(case, question)[0]


@pytest.mark.parametrize("question", ["Is it painful or itchy?", "Pain or pruritus?"])  # agentclinic-0087
def test_a_question_in_parts_is_answered_by_the_part_the_record_holds(question: str) -> None:
    case = _case(secondary_symptoms=["A scaly plaque on the hand", "No pain"])
    assert _replies(case, question) == [["No pain"]]


def test_pain_at_a_place_the_record_lacks_is_not_answered_by_the_story_s_own_pain() -> None:
    # agentclinic-0102: "Pain started while playing football" does not answer "Testicle pain?"
    case = _case(secondary_symptoms=["Pain started while playing football", "Sudden-onset abdominal pain"])
    assert "Pain started while playing football" not in _replies(case, "Testicle pain?")[0]
