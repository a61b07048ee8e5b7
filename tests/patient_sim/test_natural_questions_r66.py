"""A sign the record states answers the lay question a parent or patient is asked (verifier/clinical/language.yaml
``told_as``, read by the patient only): "No respiratory distress" answers "Out of breath?", "Diffuse petechiae" answers
"Spots?"; beside lookalikes that must stay unanswered, and the grader, which must not read the relation."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies
from tests.verifier.test_clinical_wording import _case as grader_case
from tests.verifier.test_clinical_wording import _met
from verifier import clinical

NO_DISTRESS = "No respiratory distress, joint pains, or changes in bowel or urinary habits"


@pytest.mark.parametrize(("question", "told"), [
    ("Is she out of breath at all?", True),  # agentclinic-0035 (erythema infectiosum), gp_lay
    ("Any trouble breathing?", True),
    ("Any cough?", False),  # a chest symptom the record does not name: no distress is not "no cough"
    ("Any wheeze?", False),
])
def test_no_respiratory_distress_answers_out_of_breath(question: str, told: bool) -> None:
    case = _case(chief_complaint="Rash on the cheeks", review_of_systems=[NO_DISTRESS])
    assert (NO_DISTRESS in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Spots?", True),  # terse
    ("Any spots or a rash anywhere?", True),
    ("Any nosebleeds?", False),
])
def test_petechiae_answer_spots(question: str, told: bool) -> None:
    case = _case(chief_complaint="Tiredness", secondary_symptoms=["Diffuse petechiae on distal extremities"])
    assert ("Diffuse petechiae on distal extremities" in _replies(case, question)[0]) is told


def test_the_relation_is_the_patients_only() -> None:
    """The grader does not read ``told_as``: asking about breathlessness is not looking for respiratory distress (the
    round-65 relation inside ``within`` let it, and the audit's worst exploit rose)."""
    assert "breathlessness" in clinical.told_as("respiratory_distress")
    case = grader_case(chief_complaint="Breathing fast", red_flags=["Respiratory distress"],
                       final_diagnosis="Transient tachypnea of the newborn")
    flag = "Looks for or recognises the red flag: Respiratory distress"
    assert not _met(case, ["Is he out of breath? Any trouble breathing?", "DIAGNOSIS: Transient tachypnea of the newborn"],
                    flag)
    assert _met(case, ["Any signs of respiratory distress, such as sucking in under the ribs?",
                       "DIAGNOSIS: Transient tachypnea of the newborn"], flag)


@pytest.mark.parametrize(("question", "told"), [
    ("Other sx: wt loss, fatigue, fever?", True),  # agentclinic-0055, terse
    ("Any other symptoms, like weight loss?", True),
    ("Fatigue?", False),  # asked alone, not as "other": a blanket negative about the rest does not answer it
    ("Any chest pain?", False),
])
def test_no_other_complaints_answers_other_symptoms(question: str, told: bool) -> None:
    case = _case(chief_complaint="Odd beliefs", review_of_systems=["No other physical complaints or symptoms"])
    assert ("No other physical complaints or symptoms" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Occupational exposures - dyes, solvents?", True),  # agentclinic-0041, us_abbrev
    ("What do you do for a living?", True),
    ("Any exposure to dyes?", False),  # an exposure, not the work
    ("Does the paracetamol work in the evening?", False),
])
def test_a_record_that_works_in_an_office_tells_the_occupation(question: str, told: bool) -> None:
    case = _case(chief_complaint="Blood in the urine", social_history=["Works in an office setting"],
                 history_of_present_illness="Blood in the urine for a week. Paracetamol helps the ache.")
    assert ("Works in an office setting" in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Is he keeping any milk down at all?", True),  # agentclinic-0039, gp_lay
    ("Any milk allergy in the family?", False),
])
def test_keeping_milk_down_asks_about_feeding(question: str, told: bool) -> None:
    case = _case(chief_complaint="Vomiting", secondary_symptoms=["Feeding intolerance"])
    assert ("Feeding intolerance" in _replies(case, question)[0]) is told


# Round 67's unanswered questions, each beside a lookalike.
@pytest.mark.parametrize(("question", "told"), [
    ("Chorio, maternal abx?", True),  # agentclinic-0076, terse
    ("Was there any infection in the womb / waters, or were you on antibiotics?", True),  # gp_lay
    ("Any bleeding from the gums?", False),
])
def test_chorio_is_chorioamnionitis(question: str, told: bool) -> None:
    fact = "Antenatal complications included chorioamnionitis"
    case = _case(chief_complaint="Seizure in a newborn", past_medical_history=[fact])
    assert (fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Duration, sec / min / hrs?", True),  # agentclinic-0079, us_abbrev
    ("Any ringing in the ears?", False),
])
def test_time_units_ask_how_long(question: str, told: bool) -> None:
    fact = "The spinning lasted for approximately 3 minutes"
    case = _case(chief_complaint="Room spinning", history_of_present_illness=f"{fact}.")
    assert (fact in _replies(case, question)[0]) is told
