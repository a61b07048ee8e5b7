"""Questions to the template patient tried by hand (stop 48), each with a lookalike: a concept the record names only
inside another phrase ("feeling faint" holds the faint), chart shorthand (Tob?, F/C?), lay words for an open question
and for feeding, and "going to the toilet", which is not the pain spreading."""

from __future__ import annotations

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


def test_a_concept_named_inside_another_phrase_answers_its_question() -> None:
    case = _case(secondary_symptoms=["Feeling faint", "Sharp pain low down on the left"],
                 social_history=["Not using contraception"])
    contraception, syncope = _replies(case, "Contraception?", "Syncope?")
    assert contraception == ["Not using contraception"]
    assert syncope == ["Feeling faint"]  # not read as a follow-up of the contraception question


def test_a_question_about_something_no_fact_names_still_finds_nothing() -> None:
    case = _case(secondary_symptoms=["Feeling faint"], social_history=["Not using contraception"])
    assert _replies(case, "Seizures?") == [[]]


def test_chart_shorthand_for_smoking_and_fevers() -> None:
    case = _case(secondary_symptoms=["Mild fever", "Off food since yesterday"], social_history=["Non-smoker"])
    tobacco, fevers = _replies(case, "Tob?", "F/C?")
    assert tobacco == ["Non-smoker"]
    assert fevers == ["Mild fever"]


def test_what_has_been_bothering_you_opens_the_story() -> None:
    case = _case(history_of_present_illness="A cough for three weeks. Worse at night.")
    assert _replies(case, "What's been bothering you?")[0]


def test_feeding_asks_about_a_child_s_appetite() -> None:
    case = _case(secondary_symptoms=["Diminished appetite", "Swelling in the legs"])
    assert _replies(case, "Is he feeding ok?") == [["Diminished appetite"]]


def test_going_to_the_toilet_is_not_the_pain_spreading() -> None:
    from verifier import clinical

    assert "intent:radiation" not in clinical.intents("Going to the toilet more often?")
    assert "intent:radiation" in clinical.intents("Does it go to the groin?")
