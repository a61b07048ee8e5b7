"""Round 22 (data/natural/dev/*-r22.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must still miss. Asking where the pain goes asks where it is (an item about a rash's spread
still wants the spread); "how much did you vomit?" asks the amount; everyday words for an irregular beat, bringing milk
back up, time at the gym; clipped safety-netting ("Back now for fever", "Urgent help for ..."); an operation as the
plan."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.types import Case

_COLIC = _case(final_diagnosis="Renal colic", key_questions=["Where is the pain and does it move?"],
               chief_complaint="Pain in my side", primary_symptoms=["Severe left loin pain in waves"])


def _asked(case: Case, question: str, item: str) -> bool:
    return _met(case, [question, f"DIAGNOSIS: {case.final_diagnosis}"], item)


@pytest.mark.parametrize(("question", "asked"), [
    ("Radiates to groin?", True),
    ("Does it move to your groin or testicle?", True),
    ("Does it travel anywhere, round to the front or down to the groin?", True),
    ("Any blood in your urine?", False),
])
def test_where_the_pain_goes_asks_where_it_is(question: str, asked: bool) -> None:
    assert _asked(_COLIC, question, "Before giving a diagnosis, asks: Where is the pain") is asked


def test_an_item_about_a_spread_still_wants_the_spread() -> None:
    case = _case(final_diagnosis="Drug eruption", chief_complaint="Rash",
                 secondary_symptoms=["Rash spread to trunk and distal extremities"])
    item = "Before giving a diagnosis, asks about rash spread"
    assert not _asked(case, "When did the rash start, and where did it begin?", item)
    assert _asked(case, "Has the rash spread anywhere?", item)


@pytest.mark.parametrize(("question", "asked"), [
    ("How much did you vomit?", True),
    ("Haematemesis - how much?", True),
    ("How many times have you vomited?", False),
])
def test_how_much_asks_the_amount(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Upper GI bleed", key_questions=["How much blood did you vomit?"],
                 chief_complaint="I vomited blood")
    assert _asked(case, question, "Before giving a diagnosis, asks: How much blood") is asked


@pytest.mark.parametrize(("case_fields", "question", "item", "asked"), [
    ({"key_questions": ["Is the heartbeat regular or irregular?"], "chief_complaint": "Palpitations"},
     "Regular or jumbled, would you say?", "Before giving a diagnosis, asks: Is the heartbeat", True),
    ({"secondary_symptoms": ["Occasional vomiting post-feeding"], "chief_complaint": "Crying baby"},
     "Does she bring milk back up afterwards?", "Before giving a diagnosis, asks about occasional vomiting", True),
    ({"secondary_symptoms": ["Prolonged physical activity (several hours at the gym)"], "chief_complaint": "Agitation"},
     "How long were you at the gym?", "Before giving a diagnosis, asks about prolonged physical", True),
    ({"secondary_symptoms": ["Prolonged physical activity (several hours at the gym)"], "chief_complaint": "Agitation"},
     "How long have you been agitated?", "Before giving a diagnosis, asks about prolonged physical", False),
])
def test_everyday_words(case_fields: dict, question: str, item: str, asked: bool) -> None:
    assert _asked(_case(final_diagnosis="Something specific", **case_fields), question, item) is asked


_ROUTINE = _case(final_diagnosis="Renal colic", disposition="routine")


@pytest.mark.parametrize(("advice", "net"), [
    ("Back now for fever, chills or vomiting.", True),
    ("Urgent help for fever, jaundice or dark urine.", True),
    ("Report reduced movements or contractions at once.", True),
    ("Back to work on Monday.", False),
    ("Urgent care for the kidney stone is what we're arranging.", False),
])
def test_clipped_safety_netting(advice: str, net: bool) -> None:
    assert _met(_ROUTINE, [f"DIAGNOSIS: Renal colic\nDiclofenac. {advice}"], "Gives safety-netting advice") is net


def test_an_operation_is_a_plan() -> None:
    case = _case(final_diagnosis="Testicular torsion")
    plan = "Gives a clear management plan"
    assert _met(case, ["DIAGNOSIS: Testicular torsion\nWe'll take you to theatre now to untwist it."], plan)
    assert not _met(case, ["DIAGNOSIS: Testicular torsion\nIt's a twisted testicle."], plan)


# Round 23 (data/natural/dev/*-r23.yaml), the same way.
@pytest.mark.parametrize(("question", "asked"), [
    ("When'd you notice it?", True),
    ("So it's been going on about four months, has it?", True),
    ("Where'd you notice it?", False),
])
def test_the_onset_asked_in_other_words(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", chief_complaint="A lump")
    assert _asked(case, question, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("advice", "net"), [
    ("999 or A&E if fever, breathlessness or face swelling.", True),
    ("911 or ED if you pass out on exertion or with chest pain.", True),
    ("Thoughts worse, or any plan: call or text 988, or go to emerg.", True),
    ("999 or A&E are busy tonight.", False),
])
def test_clipped_help_named_first(advice: str, net: bool) -> None:
    assert _met(_ROUTINE, [f"DIAGNOSIS: Renal colic\nDiclofenac. {advice}"], "Gives safety-netting advice") is net


@pytest.mark.parametrize(("plan", "now"), [
    ("We're treating you right now and you'll be staying in.", True),
    ("The high-dependency team are coming to see you.", True),
    ("Gynae on their way, theatre today.", True),
    ("You'll be staying in bed for a day or two at home.", False),
])
def test_care_under_way_in_other_words(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Diabetic ketoacidosis\n{plan}"], "Tells the patient to get emergency care now") is now


def test_a_body_part_alone_does_not_weigh_an_acute_abdomen() -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", differential=["Acute abdomen", "Gout"])
    item = "Considers a relevant differential"
    assert not _met(case, ["DIAGNOSIS: Diabetic ketoacidosis\nYour abdomen is soft."], item)
    assert _met(case, ["DIAGNOSIS: Diabetic ketoacidosis\nI don't think this is a surgical belly."], item)


# Round 24 (data/natural/dev/*-r24.yaml).
@pytest.mark.parametrize(("plan", "now"), [
    ("BP 172/96, <185/110: tenecteplase now. Neuro-IR for thrombectomy now.", True),
    ("Surgeons called now for lap appendicectomy today.", True),
    ("Too late for tenecteplase: stroke unit tomorrow if a bed comes up.", False),
])
def test_reperfusion_and_surgery_under_way(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Ischaemic stroke", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Ischaemic stroke\n{plan}"], "Tells the patient to get emergency care now") is now


def test_vaccines_named_by_their_diseases_are_no_shotgun() -> None:
    case = _case(final_diagnosis="Chronic lymphocytic leukaemia", differential=["Lymphoma"])
    shotgun = "Hedges with a shotgun"
    plan = ("DIAGNOSIS: Chronic lymphocytic leukaemia\nI did think about testicular cancer coming back, a lung cancer and "
            "diabetes. Let's get your flu, pneumonia, COVID and shingles shots updated, and your hepatitis B vaccine.")
    assert not _met(case, [plan], shotgun)
    listed = ("DIAGNOSIS: Chronic lymphocytic leukaemia\nIt could be lymphoma, leukaemia, flu, pneumonia, COVID, shingles, "
              "hepatitis, tuberculosis, HIV or sarcoidosis.")
    assert _met(case, [listed], shotgun)
    # only the diseases vaccines prevent are taken for a vaccine list: ending a shotgun in "vaccine" hides nothing
    hidden = ("DIAGNOSIS: Chronic lymphocytic leukaemia\nIt could be lymphoma, leukaemia, HIV, lupus, anaemia, heart "
              "failure, kidney failure, diabetes, a stroke, gout or rabies vaccine.")
    assert _met(case, [hidden], shotgun)


@pytest.mark.parametrize(("advice", "net"), [
    ("Call the nurse right away if she has pauses in her breathing.", True),
    ("Fever, chills, breathlessness or bleeding: call same day or go to the ER.", True),
    ("The nurse will call you the same day with the results.", False),
])
def test_help_on_the_ward_or_the_same_day(advice: str, net: bool) -> None:
    assert _met(_ROUTINE, [f"DIAGNOSIS: Renal colic\nDiclofenac. {advice}"], "Gives safety-netting advice") is net


@pytest.mark.parametrize(("question", "item"), [
    ("Grog, diet?", "Before giving a diagnosis, asks: How much alcohol"),
    ("Are his needles up to date?", "Before giving a diagnosis, asks: Is he up to date with vaccinations"),
])
def test_australian_words(question: str, item: str) -> None:
    case = _case(final_diagnosis="Something specific", chief_complaint="Unwell",
                 key_questions=["How much alcohol do you drink?", "Is he up to date with vaccinations?"])
    assert _asked(case, question, item)
