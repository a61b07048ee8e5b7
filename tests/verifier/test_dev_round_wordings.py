"""Wordings of the dev rounds that a clinician's item marks credit and the grader missed (stop 49), tried on cases
they were not written from, each beside a lookalike that does not ask the same thing: relief by opening the
bowels, a symptom whose exertion is the answer, "ED" beside a partner, weak arms in what they stop, "Drinking? Wet
nappies?" and a focal weakness found by the neurological examination."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _met
from tests.verifier.test_clinical_wording_probes import _asks_about_symptom


@pytest.mark.parametrize(("question", "asks"), [
    ("Does the pain ease after a bowel movement?", True),
    ("Pain better after opening bowels?", True),
    ("Does it settle once you've been to the loo?", True),
    ("Is the pain relieved by defecation?", True),
    ("Does anything make it better?", False),  # relief, but by what
    ("Any change in your bowels?", False),  # the bowels, but not what they do to the pain
])
def test_relief_by_opening_the_bowels(question: str, asks: bool) -> None:
    assert _asks_about_symptom("Abdominal cramps relieved by defecation", question) is asks


@pytest.mark.parametrize(("symptom", "question", "asks"), [
    ("Dyspnea on exertion", "Breathless?", True),
    ("Dyspnea on exertion", "Short of breath walking?", True),
    ("Dyspnea on exertion", "Chest pain on exertion?", False),  # the exertion, another symptom
    ("Dyspnea on exertion", "Worse with exercise?", False),
    ("Palpitations on exertion", "Any palpitations?", True),
    ("Palpitations on exertion", "Breathless on exertion?", False),
])
def test_exertion_is_the_answer_to_a_question_about_the_symptom(symptom: str, question: str, asks: bool) -> None:
    assert _asks_about_symptom(symptom, question) is asks


@pytest.mark.parametrize(("symptom", "question", "asks"), [
    ("Partner has erectile dysfunction", "Partner: ED, semen analysis?", True),
    ("Partner has erectile dysfunction", "Any ED visits this year?", False),  # the emergency department
    ("Weakness in upper limbs", "Is the weakness proximal (stairs, brushing hair)?", True),
    ("Weakness in upper limbs", "Any hair loss?", False),
])
def test_shorthand_and_what_weak_arms_stop(symptom: str, question: str, asks: bool) -> None:
    assert _asks_about_symptom(symptom, question) is asks


def _project_item(case_id: str, turns: list[str], item: str) -> bool:
    from patient_sim.cases import project_cases

    case = next(c for c in project_cases() if c.id == case_id)
    return _met(case, [*turns, f"DIAGNOSIS: {case.final_diagnosis}\nTreatment and review."], item)


@pytest.mark.parametrize(("turn", "asks"), [
    ("How long? Temp how high? Drinking? Wet nappies?", True),
    ("Drinking? Wet nappies? Vomiting, rash?", True),
    ("Any drinking? Smoking?", False),  # drinking beside smoking is alcohol
])
def test_drinking_beside_wet_nappies_is_fluids(turn: str, asks: bool) -> None:
    item = "Before giving a diagnosis, asks: Is he drinking and making wet nappies?"
    assert _project_item("acute-otitis-media", [turn], item) is asks


@pytest.mark.parametrize(("turn", "addressed"), [
    ("Time of onset? Headache?\nREQUEST EXAM: vitals, capillary glucose, NIHSS, full neuro exam", True),
    ("Any weakness in an arm or leg?", True),
    ("Time of onset? Headache?\nREQUEST EXAM: abdomen", False),
    ("Any headache?", False),
])
def test_focal_weakness_is_found_by_the_neurological_examination(turn: str, addressed: bool) -> None:
    item = "Looks for or recognises the red flag: Sudden focal weakness."
    assert _project_item("ischaemic-stroke", [turn], item) is addressed
