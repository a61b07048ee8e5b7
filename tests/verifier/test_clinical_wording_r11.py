"""Clinical wording found in the round-11 dev set (data/natural/dev/*-r11.yaml, 112 consultations by seven more
writers): each good wording earns its item through the real grader, and a lookalike that does not do the
clinical work earns nothing (or is still penalised)."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.markers import parse_orders

_NET = "Gives safety-netting advice"
_ORDERS = "Orders the appropriate test"
_ACCURACY = "States the correct final diagnosis"


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Self-care?", "self_care", True),
    ("Has he stopped looking after himself, washing and dressing?", "self_care", True),
    ("What ADLs are you having trouble with?", "self_care", True),
    ("Does the wound need a new dressing?", "self_care", False),
    ("Intentional?", "intentional", True),
    ("Losing weight without trying?", "intentional", True),
    ("Night pain?", "sleep", True),
    ("Any painful awakenings?", "sleep", True),
    ("Does it hurt at night?", "sleep", True),  # the red flag "Night pain", asked in the doctor's words
    ("Any night sweats?", "sleep", False),
    ("Mechanism?", "injury", True),
    ("Felt a pop?", "contraception", False),  # a tendon's pop, not the progestogen-only pill
    ("Are you on the POP?", "contraception", True),
    ("Colour, green?", "bile", True),
    ("Is he taking bottles OK?", "fluid_intake", True),
    ("Duration?", "intent:onset", True),
    ("Duration?", "intent:timing", True),
    ("Voids per day?", "intent:timing", True),
    ("Anything that helps?", "intent:relief", True),
    ("Anything that happened at work?", "intent:relief", False),
    ("Tell me how it happened - when was it?", "intent:onset", True),
    ("When was it diagnosed, and who treats it?", "intent:onset", False),
    # the chart shorthand a terse clinician asks in
    ("PSHx?", "surgery", True),
    ("BRBPR?", "rectal_bleeding", True),
    ("PMB?", "vaginal_bleeding", True),
    ("Vax UTD?", "vaccinations", True),
    ("Arthralgias, myalgias?", "joints", True),
    ("Arthralgias, myalgias?", "muscle", True),
    ("Fussiness?", "irritability", True),
    ("Severity?", "intent:severity", True),
    ("Quality?", "intent:character", True),
    ("Quality of life?", "intent:character", False),
    ("Alleviating factors?", "intent:relief", True),
    # the head is a place, not a headache
    ("Better when he tips his head back?", "headache", False),
    ("Triggered by head movement?", "headache", False),
    ("Does your head hurt?", "headache", True),
    ("Sore head?", "headache", True),
    ("Syncope or near-syncope?", "dizziness", True),
    ("Can you bend the tip?", "flexion", True),
    ("Bending down makes it worse?", "flexion", False),
    ("Colicky?", "intent:timing", True),
    ("Which movements hurt?", "movement", True),
    ("Worse at extremes of ROM?", "movement", True),
    ("Is the pain worse at night or at rest?", "sleep", True),
    ("Any stiffness?", "movement", False),
])
def test_round_eleven_questions_ask_what_a_clinician_means(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks, (question, sorted(clinical.asked(question)))


@pytest.mark.parametrize(("stated", "named"), [
    ("Respiratory distress syndrome (surfactant deficiency), preterm 33/40", True),  # a gestation, not a list
    ("Late dumping syndrome post sleeve gastrectomy - hypoglycaemia", True),  # what the answer brought about
    ("Dumping syndrome - migraine", False),  # a second condition is still a list
    ("Hypoglycaemia - dumping syndrome", False),  # the presentation first names no answer
    ("Dumping syndrome, insulinoma", False),  # a rival the data does not name still reads as a condition
    ("Dumping syndrome, gastric outlet obstruction", False),
    ("Dumping syndrome, probably linked to the sleeve gastrectomy", True),
])
def test_a_gestation_or_a_presentation_beside_the_answer_is_one_diagnosis(stated: str, named: bool) -> None:
    final = "Dumping syndrome" if "dumping" in stated.lower() else "Respiratory distress syndrome"
    case = _case(final_diagnosis=final)
    assert _met(case, [f"DIAGNOSIS: {stated}\nPlan explained."], _ACCURACY) is named


@pytest.mark.parametrize(("advice", "net"), [
    ("Sudden vision loss, flashes, curtain, eye pain, or L eye symptoms - eye ER immediately.", True),
    ("Fever, hematuria, flank pain, tremor, vomiting, confusion - come in urgently.", True),
    ("RTC/ED if joint pain/swelling, pallor, SOB or high fever.", True),
    ("To ED if sudden severe pain, inability to bear weight, or deformity.", True),
    ("Voices, paranoia, low mood, self-harm thoughts: 988 or ED immediately.", True),
    ("While inpatient or after, tell us right away about fever/rigors, worsening pain or vomiting.", True),
    ("Come in for your appointment next week.", False),
    ("Tell us about your holiday.", False),
])
def test_clipped_safety_netting_of_round_eleven(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nTriptan as needed. {advice}"], _NET) is net


def test_a_smear_beside_a_blood_count_is_the_blood_smear() -> None:
    assert parse_orders("REQUEST TEST: CBC, smear, PT") == [("test", "CBC"), ("test", "blood smear"), ("test", "PT")]
    assert parse_orders("REQUEST TEST: STI swabs, smear") == [("test", "STI swabs"), ("test", "smear")]
    case = _case(final_diagnosis="Haemophilia A", test_results={"Hematologic > Peripheral Blood Smear": "normal"})
    diagnosis = "DIAGNOSIS: Haemophilia A\nFactor VIII."
    assert _met(case, ["REQUEST TEST: CBC, smear", diagnosis], _ORDERS)
    assert not _met(case, ["REQUEST TEST: STI swabs, smear", diagnosis], _ORDERS)


@pytest.mark.parametrize(("said", "empathy"), [
    ("Oh dear, that does sound sore.", True),
    ("That does sound sore.", True),
    ("The dressing does need changing.", False),
])
def test_empathy_in_round_eleven_s_words(said: str, empathy: bool) -> None:
    case = _case(final_diagnosis="Pyoderma gangrenosum")
    turns = [f"{said} When did it start?", "DIAGNOSIS: Pyoderma gangrenosum\nSteroid ointment."]
    assert _met(case, turns, "Acknowledges the patient's concerns") is empathy


@pytest.mark.parametrize(("order", "ordered"), [
    ("Excisional biopsy of cervical lymph node w/ flow cytometry", True),  # the add-on after "w/" is no list
    ("Excisional biopsy of cervical lymph node with flow cytometry", True),
    ("Excisional biopsy of an axillary skin lesion w/ flow cytometry", False),  # another site
])
def test_a_long_order_with_an_add_on_is_read_up_to_it(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Diffuse large B-cell lymphoma",
                 test_results={"Biopsy > Cervical Lymph Node > Findings": "sheets of large B cells"})
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Diffuse large B-cell lymphoma\nR-CHOP."], _ORDERS) is ordered


@pytest.mark.parametrize(("rival", "listed"), [
    ("labyrinthitis", True), ("vestibular neuritis", True), ("Meniere disease", True), ("cerebellar infarct", True),
    ("acoustic neuroma", True),  # none of them in the data: each reads as a second condition by its shape
    ("left posterior canal", False), ("first episode", False),  # where and when, not a condition
])
def test_a_rival_the_data_does_not_know_still_makes_a_list(rival: str, listed: bool) -> None:
    case = _case(final_diagnosis="Benign paroxysmal positional vertigo")
    stated = f"DIAGNOSIS: Benign paroxysmal positional vertigo, {rival}\nEpley manoeuvre."
    assert _met(case, [stated], _ACCURACY) is not listed


@pytest.mark.parametrize(("said", "empathy"), [
    ("You're not alone in this. It's treatable.", True),  # agentclinic-0064, terse (round twelve)
    ("Not alone: most people with this get better.", True),
    ("It's treatable.", False),  # reassurance alone is not empathy
    ("Do not take it alone with alcohol.", False),
])
def test_not_alone_is_empathy(said: str, empathy: bool) -> None:
    case = _case(final_diagnosis="Schizoaffective disorder")
    turns = ["How long? Sleep?", f"DIAGNOSIS: Schizoaffective disorder\nPsychiatry today. {said}"]
    assert _met(case, turns, "Acknowledges the patient's concerns") is empathy


@pytest.mark.parametrize(("question", "onset"), [
    ("Since first attempt?", True),  # agentclinic-0042, terse: since she first tried, or newer?
    ("Primary (since first attempts at intercourse) or secondary?", True),  # the same case, us_abbrev
    ("Has it been there since the very first dose?", True),
    ("First time?", False),  # a previous episode, not when this one began
    ("Since your last visit, any new medicines?", False),
])
def test_since_the_first_asks_when_it_began(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset
    case = _case(final_diagnosis="Vaginismus", secondary_symptoms=["Pain during intercourse"], source="agentclinic")
    assert _met(case, [question, "DIAGNOSIS: Vaginismus\nPelvic floor physiotherapy."],
                "Before giving a diagnosis, asks about when the symptoms started") is onset
