"""Round 82 (data/natural/dev/*-r82.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Since what age?" and "five days of this?" ask the onset; "Frequency
going up?" asks the course; "You eat how?" the appetite; "brings up his milk" is vomiting; "pain the tablets can't touch"
is uncontrolled; "it wasn't your heart" weighs angina; "Come in/ED for ..." is safety-netting; "Chest pain with
exertion ... needs emergency care" is a rule, not over-triage; "Double aortic arch \u2013 vascular ring ..." names one
condition by its class; "nobody's cross with you", "you're safe" are empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("He has it since what age?", True),  # agentclinic-0062, checklist
    ("Ay, mi amor, five days of this?", True),  # agentclinic-0060, checklist
    ("Ten days of antibiotics?", False),
    ("What age is he?", False),
])
def test_since_what_age_and_days_of_this_ask_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "course"), [
    ("Frequency going up?", True),  # agentclinic-0067, us_abbrev
    ("Breathless going up the stairs?", False),
])
def test_frequency_going_up_asks_the_course(question: str, course: bool) -> None:
    assert ("intent:progression" in clinical.intents(question)) is course


@pytest.mark.parametrize(("question", "concept", "named"), [
    ("You eat how, you lost weight?", "appetite", True),  # agentclinic-0064, checklist
    ("You sleep how?", "appetite", False),
    ("He brings up his milk after the feeds?", "vomiting", True),  # agentclinic-0062, gp_lay
    ("He drinks his milk after the feeds?", "vomiting", False),
    ("Inspiratory, expiratory?", "stridor", True),  # agentclinic-0062, us_abbrev (the patient)
    ("Inspiratory crackles on exam?", "stridor", False),
    ("When he puts the head backward, it is better?", "neck_extension", True),  # agentclinic-0062 (the patient)
    ("When he puts the head down, it is better?", "neck_extension", False),
])
def test_the_words_of_round_82_name_their_concepts(question: str, concept: str, named: bool) -> None:
    assert (concept in clinical.terms(question)) is named


@pytest.mark.parametrize(("question", "addressed"), [
    ("And is this pain the tablets can't touch?", True),  # renal-colic, gp_lay
    ("Can you touch your toes?", False),
])
def test_pain_the_tablets_cannot_touch_is_uncontrolled(question: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Uncontrolled pain."])
    assert _met(case, [question, "DIAGNOSIS: Renal colic"],
                "Asks about or addresses the red flag: Uncontrolled pain") is addressed


@pytest.mark.parametrize(("plan", "considered"), [
    ("I did want to make sure it wasn't your heart, but it doesn't come on with exertion.", True),  # gerd, gp_lay
    ("I did want to make sure it wasn't your stomach lining.", False),
])
def test_it_was_not_your_heart_weighs_angina(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Angina"])
    assert _met(case, ["Any heartburn?", f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"],
                "Considers a relevant differential") is considered


@pytest.mark.parametrize(("advice", "netted"), [
    ("Come in/ED for sudden severe pelvic pain, new fracture, or low mood.", True),  # agentclinic-0051, us_abbrev
    ("Come in/ED for your results next week.", False),
])
def test_come_in_or_ed_for_a_list_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Osteoporosis")
    assert _met(case, ["Any falls?", f"DIAGNOSIS: Osteoporosis\nAlendronate weekly. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("advice", "sends"), [
    ("Chest pain with exertion, sweating or breathlessness needs emergency care.", False),  # gerd, checklist
    ("This needs emergency care.", True),
    ("Your chest pain needs emergency care.", True),
    ("Chest pain needs emergency care now.", True),
])
def test_what_a_symptom_needs_is_a_rule_not_over_triage(advice: str, sends: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Gastro-oesophageal reflux disease\nOmeprazole. {advice}"],
                "Sends the patient for emergency care") is sends


@pytest.mark.parametrize(("stated", "right"), [
    ("Double aortic arch \u2013 vascular ring compressing trachea and esophagus", True),  # agentclinic-0062, us_abbrev
    ("Double aortic arch", True),
    ("Vascular ring", False),
    ("Double aortic arch \u2013 croup", False),
])
def test_a_diagnosis_glossed_by_its_class_is_one_condition(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Double aortic arch")
    assert _met(case, [f"DIAGNOSIS: {stated}\nCT angiography."], "States the correct final diagnosis") is right
    assert _met(case, [f"DIAGNOSIS: {stated}\nCT angiography."], "States a final diagnosis that is wrong") is not right


@pytest.mark.parametrize(("plan", "empathic"), [
    ("You're alright, nobody's cross with you, we're here to help.", True),  # agentclinic-0059, gp_lay
    ("Mi amor, you're safe.", True),  # agentclinic-0059, terse
    ("It is not dangerous, and nothing to be ashamed of.", True),  # agentclinic-0065, gp_lay
    ("Rough deal, but fixable.", True),  # upper-gi-bleed, terse
    ("It is not dangerous. Take the tablets.", False),
])
def test_the_empathy_of_round_82(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
