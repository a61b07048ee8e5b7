"""Questions the template patient still left unanswered after rounds 15 to 20 (data/natural/dev/answerable/: which
ones the record answers was a clinician's call), each on a made-up record beside a lookalike: "painless" answers a
question about pain, and "affected" or "involved" is how a question asks, not a thing it asks about."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

PAINLESS = "Lesions are painless"


@pytest.mark.parametrize("question", [
    "Are they painful?",  # agentclinic-0056 (r16), checklist, in part
    "Do they hurt?",
    "Any pain?",
])
def test_painless_answers_a_question_about_pain(question: str) -> None:
    case = _case(primary_symptoms=["Red, crusty lesion on the finger", PAINLESS])
    assert PAINLESS in _replies(case, question)[0]


def test_painless_does_not_answer_a_question_about_something_else() -> None:
    case = _case(primary_symptoms=["Red, crusty lesion on the finger", PAINLESS])
    assert PAINLESS not in _replies(case, "Any fever?")[0]


@pytest.mark.parametrize("question", [
    "Which areas are affected?",  # agentclinic-0071 (r18), checklist
    "Any other joints involved?",
])
def test_affected_or_involved_asks_where(question: str) -> None:
    case = _case(chief_complaint="Rash on scalp and forehead",
                 primary_symptoms=["Rash on scalp and forehead"], past_medical_history=["Born at term"],
                 secondary_symptoms=["No other joint swelling"])
    told = _replies(case, question)[0]
    assert told and all("Born" not in fact for fact in told)


def test_a_thing_named_beside_affected_is_still_asked_about() -> None:
    # "affected" is glue, the eye is not: the record says nothing of the eyes, so nothing is told
    case = _case(chief_complaint="Rash on scalp and forehead", primary_symptoms=["Rash on scalp and forehead"])
    assert _replies(case, "Are your eyes affected?") == [[]]


# Round 21 (agentclinic-0027, 0031): a fact that names what was asked beats one sharing only the broader words
# around it, and GDM is gestational diabetes.
_ROS = "No fever, hematuria, back pain or recent infections"


@pytest.mark.parametrize("question", ["Any blood in your urine?", "Blood in your pee?"])
def test_the_fact_that_names_what_was_asked_is_told(question: str) -> None:
    case = _case(chief_complaint="Bladder discomfort", primary_symptoms=["Bladder discomfort relieved by voiding"],
                 secondary_symptoms=["No involuntary loss of urine"], review_of_systems=[_ROS])
    told = _replies(case, question)[0]
    assert any("hematuria" in fact for fact in told) and all("involuntary" not in fact for fact in told)


def test_a_question_about_the_broader_thing_still_finds_the_story() -> None:
    case = _case(chief_complaint="Bladder discomfort", primary_symptoms=["Bladder discomfort relieved by voiding"],
                 secondary_symptoms=["No involuntary loss of urine"], review_of_systems=[_ROS])
    told = _replies(case, "Any leaking of urine?")[0]
    assert any("involuntary" in fact for fact in told)


def test_gdm_asks_about_diabetes_in_pregnancy() -> None:
    case = _case(chief_complaint="Fast breathing in a newborn", primary_symptoms=["Fast breathing"],
                 past_medical_history=["The mother had gestational diabetes"])
    assert any("gestational diabetes" in fact for fact in _replies(case, "GDM?")[0])


# Round 22 (agentclinic-0088, 0070, 0056): an opening in other words is an open question, a named illness or
# operation answers the question about its kind, and "painless" answers a question that asks about pain and more.
@pytest.mark.parametrize("question", ["What's brought you in to see me today?", "What's wrong?", "What's the problem?",
                                      # round 26, an Irish GP: the opening in Irish English, and the introduction
                                      "What has you in today?", "What has you bringing him in tonight?",
                                      "Hello, come on in, and who's this wee man?", "Can you tell me a wee bit more?"])
def test_an_opening_in_other_words_gets_the_story(question: str) -> None:
    case = _case(chief_complaint="Tiredness", history_of_present_illness="Tired all the time for six months.",
                 past_medical_history=["No past medical problems"])
    told = _replies(case, question)[0]
    assert any("Tired" in fact for fact in told) and all("medical problems" not in fact for fact in told)


def test_a_question_about_past_problems_still_gets_the_history() -> None:
    case = _case(chief_complaint="Tiredness", history_of_present_illness="Tired all the time for six months.",
                 past_medical_history=["No past medical problems"])
    assert any("medical problems" in fact for fact in _replies(case, "Any medical problems?")[0])


@pytest.mark.parametrize(("question", "record", "told"), [
    ("Has she had any mental health problems?", "Depression with two suicide attempts", "Depression"),
    ("Recent surgery?", "Sleeve gastrectomy a month ago", "gastrectomy"),
])
def test_a_named_illness_or_operation_answers_a_question_about_its_kind(question: str, record: str, told: str) -> None:
    case = _case(chief_complaint="Confusion", primary_symptoms=["Confusion since this morning"],
                 past_medical_history=[record])
    assert any(told in fact for fact in _replies(case, question)[0])


@pytest.mark.parametrize("question", ["Are they painful, itchy, bleeding or oozing?", "Pain, itch, bleeding?"])
def test_painless_answers_a_question_about_pain_and_more(question: str) -> None:
    case = _case(chief_complaint="Red crusty lesions", primary_symptoms=["Red crusty lesions on the finger", PAINLESS])
    assert PAINLESS in _replies(case, question)[0]


def test_hurts_in_the_complaint_does_not_answer_whether_anyone_hurt_them() -> None:
    case = _case(chief_complaint="Knee pain", history_of_present_illness="Knee pain that hurts when she kneels.")
    assert _replies(case, "Has anyone hurt you?") == [[]]


# Round 28 (agentclinic-0093, 0097, 0074): a blanket negative about digestion answers tummy pain and a change in the
# bowels; the weeks of pregnancy at birth are the birth history; "not like him" is his behaviour.
_DIGESTION = "Denies breathlessness, palpitations, chest pain, or digestive symptoms"


@pytest.mark.parametrize("question", ["Is your tummy paining you, or have your bowels changed?", "Abd pain, change in BMs?"])
def test_no_digestive_symptoms_answers_tummy_pain_and_bowels(question: str) -> None:
    case = _case(chief_complaint="Cough and fever", review_of_systems=[_DIGESTION])
    assert any("digestive symptoms" in fact for fact in _replies(case, question)[0])


def test_no_digestive_symptoms_does_not_answer_a_question_about_the_eyes() -> None:
    case = _case(chief_complaint="Cough and fever", review_of_systems=[_DIGESTION])
    assert not any("digestive" in fact for fact in _replies(case, "Any trouble with your eyesight?")[0])


def test_how_many_weeks_at_birth_is_the_birth_history() -> None:
    case = _case(chief_complaint="Fast breathing", demographics={"age": 0},
                 past_medical_history=["Born after the 32nd gestational week by caesarean"])
    assert any("32nd" in fact for fact in _replies(case, "Exactly how many weeks were you?")[0])


def test_what_is_not_like_him_is_his_behaviour() -> None:
    case = _case(chief_complaint="Inappropriate behavior", primary_symptoms=["Inappropriate behavior"],
                 past_medical_history=["No significant medical history"])
    assert any("behavior" in fact for fact in _replies(case, "What has he been doing that isn't like him?")[0])


# Round 30 (agentclinic-0018): a bite breaks the skin.
def test_a_bite_answers_a_question_about_a_cut_or_scrape() -> None:
    case = _case(chief_complaint="Leg ulcer", primary_symptoms=["Painful ulcer on the right leg"],
                 secondary_symptoms=["History of ant bite at the site of the lesion"])
    assert any("ant bite" in fact for fact in _replies(case, "Has it had any injury, or been cut or scraped?")[0])


# Round 25 (agentclinic-0002): a possessive is not part of its word: "Crohn's" is Crohn, as the record writes it.
_CROHN = "Crohn disease diagnosed 2 years ago, on natalizumab for the past year"


@pytest.mark.parametrize("question", ["How's your Crohn's been lately?", "Crohn's activity?"])
def test_a_condition_named_with_its_possessive_finds_the_record(question: str) -> None:
    case = _case(chief_complaint="Difficulty walking", primary_symptoms=["Gait ataxia"],
                 past_medical_history=[_CROHN])
    assert any("Crohn" in fact for fact in _replies(case, question)[0])


def test_what_s_is_not_cut_to_a_word_that_follows_up_the_last_question() -> None:
    # "what's" keeps its weight: a question about nothing in the record is answered "don't know", not read as a
    # follow-up of the question before it
    case = _case(chief_complaint="Tummy pain", primary_symptoms=["No burning or pain when passing urine"])
    told = _replies(case, "Any burning when you pee?", "What's your favourite colour?")
    assert told[0] and told[1] == []


# Round 31 (agentclinic-0097): the birth a record gives with the age ("Newborn, born after the 32nd gestational week")
# is a fact the parent can tell, and a newborn is a child whose parent speaks.
_NEWBORN = {"description": "Newborn, born after the 32nd gestational week", "age": 0}


@pytest.mark.parametrize("question", ["Can you tell me how many weeks along you were exactly?", "Exact GA?",
                                      "Was he born early?"])
def test_the_gestation_given_with_the_age_answers_how_early(question: str) -> None:
    case = _case(chief_complaint="Fast breathing", demographics=_NEWBORN,
                 history_of_present_illness="The baby was born via cesarean delivery.",
                 secondary_symptoms=["Nasal flaring", "Cyanosis"], review_of_systems=["No feeding difficulties"],
                 past_medical_history=["The mother had gestational diabetes"])
    assert any("32nd gestational week" in fact for fact in _replies(case, question)[0])


def test_the_gestation_is_not_told_for_an_unrelated_question() -> None:
    case = _case(chief_complaint="Fast breathing", demographics=_NEWBORN)
    assert not any("gestational" in fact for fact in _replies(case, "Any rash?")[0])


def test_an_age_in_words_is_read_as_a_newborn() -> None:
    from patient_sim.cases import _parse_demographics

    assert _parse_demographics("Newborn, born after the 32nd gestational week").age == 0
    assert _parse_demographics("32-year-old woman, gravida 2").age == 32
    assert _parse_demographics("Adult male").age is None


# Rounds 27 and 31 (agentclinic-0089): how things are with a parent is how things are at home.
_AT_HOME = "Patient shows irritability towards mother"


@pytest.mark.parametrize("question", ["How are things at home?", "What's it been like at home?",
                                      "How do you get on with your mum?"])
def test_how_things_are_with_a_parent_answers_home(question: str) -> None:
    case = _case(chief_complaint="Poor grades", primary_symptoms=["Social withdrawal", _AT_HOME],
                 secondary_symptoms=["No substance abuse"], past_medical_history=["No psychiatric history"])
    assert _AT_HOME in _replies(case, question)[0]


def test_a_parent_named_elsewhere_does_not_answer_a_question_about_a_rash() -> None:
    case = _case(chief_complaint="Poor grades", primary_symptoms=["Social withdrawal", _AT_HOME])
    assert _AT_HOME not in _replies(case, "Any rash?")[0]


# Round 33 (agentclinic-0090, 0107): a quieter voice is soft speech; catching your breath is breathlessness.
@pytest.mark.parametrize(("question", "fact"), [
    ("Has his voice got quieter?", "Soft speech"),
    ("Has your voice become quieter?", "Soft speech"),
    ("Any trouble catching your breath?", "No fever or any respiratory symptoms"),
])
def test_a_quieter_voice_and_catching_breath(question: str, fact: str) -> None:
    case = _case(chief_complaint="Tremor of the left hand", primary_symptoms=["Soft speech", "Memory decline"],
                 review_of_systems=["No fever or any respiratory symptoms"], past_medical_history=["Hypertension"])
    assert fact in _replies(case, question)[0]
    assert fact not in _replies(case, "Any rash?")[0]
