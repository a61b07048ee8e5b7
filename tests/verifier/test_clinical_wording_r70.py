"""Round 70 (data/natural/dev/*-r70.yaml): what its examiners marked met and the grader missed, credited or penalised
wrongly, in general form, each beside a lookalike that must come out the other way. The years of a habit are not the
onset (round 69's chart units let "how many yrs?" of the tobacco through); a clipped "When, how, where?" asks it;
"HLD" is the record's hypercholesterolaemia and "Illicits?" its drug history, so neither is a question about nothing;
"I get this is a lot" is empathy."""

from __future__ import annotations

import pytest

from rubric_gen.case_rubric import case_vocabulary
from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.rule_grader import _irrelevant


@pytest.mark.parametrize(("question", "asked"), [
    ("Tobacco: still 1 ppd, how many yrs?", False),  # agentclinic-0032, us_abbrev
    ("How many years have you smoked?", False),
    ("EtOH - how many years at that level?", False),
    ("Feeding: EBF, q how many hrs, minutes per side?", False),  # how often (agentclinic-0083, round 57)
    ("Smoker? Diplopia x how many wks?", True),  # the habit in another sentence
    ("How many days has the headache been there?", True),
])
def test_the_years_of_a_habit_are_not_the_onset(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Migraine", key_questions=["When did the symptoms start?"])
    assert _met(case, [question, "DIAGNOSIS: Migraine"], "Before giving a diagnosis, asks: When did") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("When, how, where?", True),  # mechanical-low-back-pain, terse
    ("Pain: when, where, how bad?", True),
    ("When, if ever, did you last see a doctor?", False),
    ("How bad, where?", False),
])
def test_a_clipped_list_of_question_words_asks_when_it_started(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Mechanical low back pain", key_questions=["How did it start?"])
    assert _met(case, [question, "DIAGNOSIS: Mechanical low back pain"], "Before giving a diagnosis, asks: How did") \
        is asked


@pytest.mark.parametrize(("question", "about_nothing"), [
    ("HLD (statin?)", False),  # agentclinic-0032, us_abbrev: the record's hypercholesterolaemia
    ("Any high cholesterol?", False),
    ("Illicits?", False),  # its "Denies any illicit drug use"
    ("Any gout?", True),
])
def test_the_records_cholesterol_and_drug_history_are_in_the_case(question: str, about_nothing: bool) -> None:
    case = _case(final_diagnosis="Chronic lymphocytic leukemia", past_medical_history=["Hypercholesterolemia"],
                 social_history=["Denies any illicit drug use"])
    relevant = frozenset().union(*(clinical.term_keys(t) for t in case_vocabulary(case)))
    assert bool(_irrelevant([question], relevant)) is about_nothing


def test_cholesterol_tablets_are_a_medicine_not_the_condition() -> None:
    assert "hyperlipidaemia" in clinical.concepts("HLD, on a statin?")
    assert clinical.concepts("Cholesterol tablets?") == ["statins"]


@pytest.mark.parametrize(("plan", "empathic"), [
    ("I get this is a lot; we'll take it one step at a time.", True),  # agentclinic-0030, us_abbrev
    ("I get that this is frightening.", True),
    ("I get this question a lot from parents.", False),
])
def test_i_get_this_is_a_lot_is_empathy(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Acknowledges the patient's concerns") is empathic
