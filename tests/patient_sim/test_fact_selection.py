"""The patient's fact selection (``patient_sim.facts.FactIndex``) on natural wordings written for this test,
not taken from ``data/natural`` or from any case's key questions: lay words, abbreviations, terse
fragments and follow-ups find the case fact that answers them, and a question about something the case
never mentions still finds nothing."""

from __future__ import annotations

from functools import cache

import pytest

from patient_sim.cases import import_agentclinic, project_cases
from patient_sim.facts import FactIndex, case_facts


@cache
def _cases() -> dict:
    return {c.id: c for c in project_cases()}


def _index(case_id: str) -> FactIndex:
    return FactIndex(case_facts(_cases()[case_id]))


def texts(case_id: str, question: str) -> list[str]:
    return [f.text for f in _index(case_id).select(question)]


@pytest.mark.parametrize(("case_id", "question", "fact"), [
    # lay words
    ("acute-appendicitis", "Any burning when you wee?", "No urinary symptoms"),
    ("acute-appendicitis", "Any trouble with your waterworks?", "No urinary symptoms"),
    ("acute-appendicitis", "Been throwing up?", "Vomited once"),
    ("acute-appendicitis", "Hot and cold at all?", "Mild fever"),
    ("acute-appendicitis", "Does moving about make it worse?", "Walking and coughing make it worse"),
    ("acute-cholecystitis", "Any pale poos or dark wee?", "No pale stools"),
    ("heart-failure", "Ankles puffy?", "Swollen ankles"),
    ("urosepsis", "Any water infections before?", "Recurrent urine infections"),
    ("croup", "Up to date with jabs?", "Vaccinations up to date"),
    # medicines and allergies, however they are called
    ("acute-appendicitis", "Are you on any tablets?", "No regular medicines"),
    ("acute-appendicitis", "Anything you're allergic to?", "No known drug allergies"),
    ("knee-osteoarthritis", "Any painkillers?", "Paracetamol as needed"),
    ("migraine", "Taking the contraceptive pill at all?", "Combined oral contraceptive pill"),
    # a place the case does not name: the story's own spread answers it
    ("acute-cholecystitis", "Does it go through to your back or shoulder?", "Spreads to the right shoulder blade"),
    # a past operation by its name
    ("small-bowel-obstruction", "Any previous operations on your tummy?", "Hysterectomy 15 years ago"),
    # a terse fragment
    ("subarachnoid-haemorrhage", "Stiff in the neck?", "The light hurts her eyes and the neck feels stiff"),
    ("heart-failure", "How many pillows do you sleep on?", "Needs three pillows at night and wakes up gasping"),
])
def test_a_natural_wording_finds_the_fact_that_answers_it(case_id: str, question: str, fact: str) -> None:
    assert fact in texts(case_id, question), (question, texts(case_id, question))


def test_an_allergy_to_a_medicine_is_answered_as_an_allergy() -> None:
    assert texts("community-pneumonia", "Any allergy to antibiotics at all?") == ["Penicillin causes a rash"]


def test_a_question_about_something_the_case_never_mentions_finds_nothing() -> None:
    for question in ("Pain in the chest at all?", "Come out in any spots or a rash?", "What's your favourite colour?",
                     "Any nosebleeds?"):
        assert texts("acute-appendicitis", question) == [], question


def test_a_follow_up_that_names_nothing_is_read_with_the_question_before() -> None:
    index = _index("heart-failure")
    assert "Weight up 4 kg this month" in [f.text for f in index.select("Have you put on weight?")]
    assert "Weight up 4 kg this month" in [f.text for f in index.select("And by how much?")]


def test_medicines_in_the_story_answer_a_question_about_medicines(agentclinic_path) -> None:  # noqa: ANN001
    """An imported case keeps its medicines in the story or the history; an imported case records no
    allergies, so a question only about allergies finds nothing ("don't know" is the right reply)."""
    cases = {c.id: c for c in import_agentclinic(agentclinic_path)}
    index = FactIndex(case_facts(cases["agentclinic-0016"]))  # "He takes insulin glargine, metformin, ..."
    told = [f.text for f in index.select("Are you on any tablets?")]
    assert any("metformin" in t for t in told), told
    assert index.select("Allergic to anything at all?") == []
    risperidone = FactIndex(case_facts(cases["agentclinic-0096"]))  # "... started on risperidone ..."
    assert any("risperidone" in f.text for f in risperidone.select("What medicines do you take at the moment?"))


def test_every_medicine_class_is_a_concept_of_the_layer() -> None:
    """``MEDICINES`` names the layer's concepts (verifier/clinical/language.yaml); a renamed one would
    silently stop telling medicines."""
    from patient_sim.facts import MEDICINES
    from verifier import clinical

    assert all(clinical.is_key(concept) for concept in MEDICINES), sorted(c for c in MEDICINES if not clinical.is_key(c))


def test_two_questions_in_one_sentence_are_each_answered(agentclinic_path) -> None:
    """"When did you first notice it, and how fast has it been getting bigger?" finds the onset the case
    records, as the first question alone does; two questions about nothing the case holds find nothing."""
    case = {c.id: c for c in import_agentclinic(agentclinic_path)}["agentclinic-0009"]
    index = FactIndex(case_facts(case))
    found = [f.text for f in index.select("When did you first notice it, and how fast has it been getting bigger?")]
    assert any("4 weeks ago" in f for f in found), found
    assert FactIndex(case_facts(case)).select("Any seizures, and do you keep pigeons?") == []


def _case(**fields: object):  # noqa: ANN202
    from verifier.types import Case
    base = {"id": "t", "chief_complaint": "Pain", "history_of_present_illness": "Pain for years.",
            "final_diagnosis": "Osteoarthritis"}
    return Case.model_validate({**base, **fields})


@pytest.mark.parametrize(("question", "fact", "others"), [
    ("Which joints?", "Pain in the left great toe, hips and knees", []),  # the joints are the hips and the knees
    ("Has it been getting steadily worse?", "Increasing pain over 2 months", []),  # an adverb inside the intent
    ("Eyes yellow?", "Yellowing of the whites of the eyes", []),  # the words the other way round
    ("Any yellowing of the eyes or very dark pee?", "No change in bladder habits", ["Tired all the time"]),  # one held
])
def test_a_question_in_other_words_finds_the_fact_of_its_kind(question: str, fact: str, others: list[str]) -> None:
    case = _case(primary_symptoms=[fact] if "bladder" not in fact else others, secondary_symptoms=["Tired"],
                 review_of_systems=[fact] if "bladder" in fact else ["No fever"], past_medical_history=["Diabetes"])
    assert fact in [f.text for f in FactIndex(case_facts(case)).select(question)]


def test_a_composite_site_does_not_open_every_fact() -> None:
    case = _case(primary_symptoms=["Pain in the left great toe, hips and knees"],
                 review_of_systems=["No change in bladder habits"])
    assert FactIndex(case_facts(case)).select("Any chest pain?") == []  # a site the case never names


@pytest.mark.parametrize(("case_id", "question", "fact"), [
    ("cystitis", "Frequency, urgency?", "Passing urine often"),  # the urinary pair, not the bowel's urgency
    ("bppv", "Normal in between?", "Fine between them"),
    ("atrial-fibrillation", "FHx?", "Brother had a stroke at 70"),  # a record topic by its abbreviation alone
])
def test_terse_abbreviated_questions_find_their_fact(case_id: str, question: str, fact: str) -> None:
    assert fact in texts(case_id, question)


def test_a_record_topic_asked_by_name_is_answered_from_that_topic_only() -> None:
    found = texts("small-bowel-obstruction", "PMH?")
    assert found and all(f in {"Hysterectomy 15 years ago", "Appendix removed as a child"} for f in found), found
    assert texts("small-bowel-obstruction", "Any previous operations on your tummy?")[0] == "Hysterectomy 15 years ago"


def _record(complaint: str, **fields: object):  # noqa: ANN202 - a case with the fields a real record has around the one tested
    base = {"chief_complaint": complaint, "history_of_present_illness": f"{complaint} for 3 weeks.",
            "past_medical_history": ["Hypertension"], "medications": ["Amlodipine 5 mg daily"],
            "social_history": ["Non-smoker, drinks socially", "Lives with her husband"],
            "family_history": ["Mother had diabetes"], "review_of_systems": ["No fever", "No weight loss"]}
    return _case(**{**base, **fields})


@pytest.mark.parametrize(("complaint", "question", "fields", "fact"), [
    # a reaction to a medicine is the allergy history a patient gives
    ("Sore throat", "Any allergies?", {"past_medical_history": ["Treated with co-amoxiclav last year, during which she "
                                                                "came out in hives"]},
     "Treated with co-amoxiclav last year, during which she came out in hives"),
    # a lump's course
    ("Lump in the groin", "Growing?", {"history_of_present_illness": "A lump in the groin that has increased in size "
                                       "over 3 weeks."}, "A lump in the groin that has increased in size over 3 weeks"),
    ("Lump in the groin", "How fast has it grown?", {"history_of_present_illness": "A lump in the groin that has "
                                                     "increased in size over 3 weeks."},
     "A lump in the groin that has increased in size over 3 weeks"),
    # an open question in a clinician's everyday words
    ("Low mood", "Walk me through what's been going on.", {}, "Low mood"),
    ("Burning when passing urine", "UTIs before?", {"past_medical_history": ["Two similar episodes last year"]},
     "Two similar episodes last year"),
    ("Burning when passing urine", "Leaking?", {"review_of_systems": ["Denies involuntary loss of urine"]},
     "No involuntary loss of urine"),
    ("Low mood", "Has anyone hurt you?", {"social_history": ["Denies experiencing domestic abuse"]}, "No domestic abuse"),
    ("Cough", "Birth, newborn problems?", {"past_medical_history": ["Born at 38 weeks by caesarean section"]},
     "Born at 38 weeks by caesarean section"),
])
def test_round_ten_questions_find_the_fact_a_clinician_says_answers_them(complaint: str, question: str, fields: dict,
                                                                         fact: str) -> None:
    found = [f.text for f in FactIndex(case_facts(_record(complaint, **fields))).select(question)]
    assert fact in found, found


@pytest.mark.parametrize(("complaint", "question", "fields"), [
    ("Sore throat", "Any allergies?", {"past_medical_history": ["Treated with co-amoxiclav last year, which cleared it"]}),
    ("Knee pain", "Has anyone hurt you?", {"history_of_present_illness": "Knee pain that hurts when she kneels."}),
])
def test_a_lookalike_record_still_gives_no_answer(complaint: str, question: str, fields: dict) -> None:
    found = [f.text for f in FactIndex(case_facts(_record(complaint, **fields))).select(question)]
    assert found == [], (question, found)


@pytest.mark.parametrize(("complaint", "questions", "fields", "fact"), [
    # a clipped follow-up whose word names nothing clinical is about the last thing asked
    ("Weight loss", ["How much weight have you lost?", "Intentional?"],
     {"history_of_present_illness": "Unintentional weight loss of 18 kg over 6 months."},
     "Unintentional weight loss of 18 kg over 6 months"),
    ("Finger injury", ["Which finger?", "Mechanism?"],
     {"history_of_present_illness": "His ring finger got caught in another player's jersey, who pulled away."},
     "His ring finger got caught in another player's jersey, who pulled away"),
    ("Low mood", ["Hearing voices?", "What do they say?"],
     {"history_of_present_illness": "She hears voices telling her she is worthless."},
     "She hears voices telling her she is worthless"),
    # round eleven's words for what the record says
    ("Odd behaviour", ["Self-care?"], {"history_of_present_illness": "Odd behaviour for 6 months. He is unkempt."},
     "He is unkempt"),
    ("Shoulder pain", ["Night pain?"], {"history_of_present_illness": "Shoulder pain for 2 months. Pain disrupts sleep."},
     "Pain disrupts sleep"),
    ("Vomiting", ["Colour, green?"], {"history_of_present_illness": "Several episodes of bilious vomiting since birth."},
     "Several episodes of bilious vomiting since birth"),
    ("Shoulder pain", ["Which movements hurt?"], {"history_of_present_illness": "Shoulder pain for 2 months. "
                                                  "Pain at extremes of motion."}, "Pain at extremes of motion"),
    ("Crying at night", ["Consolable?"], {"history_of_present_illness": "Cries at night; she can be consoled by her "
                                                                       "parents."},
     "Cries at night; she can be consoled by her parents"),
])
def test_round_eleven_questions_find_the_fact_a_clinician_says_answers_them(complaint: str, questions: list[str],
                                                                            fields: dict, fact: str) -> None:
    index = FactIndex(case_facts(_record(complaint, **fields)))
    found = [[f.text for f in index.select(q)] for q in questions][-1]
    assert fact in found, found


def test_a_follow_up_about_a_clinical_thing_the_record_lacks_still_finds_nothing() -> None:
    # "Travel?" names travel, which the record never mentions: no context read gives it the last answer
    index = FactIndex(case_facts(_record("Weight loss", history_of_present_illness="Weight loss of 18 kg.")))
    assert index.select("How much weight have you lost?")
    assert index.select("Travel?") == []


@pytest.mark.parametrize(("complaint", "questions", "fields", "fact"), [
    # round twelve's questions that a clinician says the record answers
    ("Toe pain", ["Overnight?"], {"history_of_present_illness": "Woke in the night with severe pain in the big toe."},
     "Woke in the night with severe pain in the big toe"),
    ("Shoulder pain", ["What everyday things is it getting in the way of?"],
     {"history_of_present_illness": "Shoulder pain for 3 months. Difficulty with brushing her hair and dressing."},
     "Difficulty with brushing her hair and dressing"),
    ("Itchy rash", ["Where is it?", "Ever clears?"],
     {"history_of_present_illness": "Itchy rash on the arms for 5 months that has not completely resolved at any point."},
     "Itchy rash on the arms for 5 months that has not completely resolved at any point"),
    ("Behaviour at school", ["Does he fall out with other children too?"],
     {"social_history": ["His social interactions with peers are positive"]},
     "His social interactions with peers are positive"),
    ("Behaviour at school", ["How's his schoolwork?"],
     {"social_history": ["Performs well academically when he chooses to engage"]},
     "Performs well academically when he chooses to engage"),
])
def test_round_twelve_questions_find_the_fact_a_clinician_says_answers_them(complaint: str, questions: list[str],
                                                                            fields: dict, fact: str) -> None:
    index = FactIndex(case_facts(_record(complaint, **fields)))
    found = [[f.text for f in index.select(q)] for q in questions][-1]
    assert fact in found, found


@pytest.mark.parametrize(("complaint", "question", "fields"), [
    ("Behaviour at school", "Does he fall out with other children too?",
     {"history_of_present_illness": "Disruptive in class; his teacher reports shouting."}),
])
def test_round_twelve_lookalike_records_give_no_answer(complaint: str, question: str, fields: dict) -> None:
    found = [f.text for f in FactIndex(case_facts(_record(complaint, **fields))).select(question)]
    assert found == [], (question, found)
