"""Clinical wording found in the round-10 dev set (data/natural/dev/*-r10.yaml, 112 consultations by seven more
writers): each good wording earns its item through the real grader, and a lookalike that does not do the
clinical work earns nothing (or is still penalised)."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_NET = "Gives safety-netting advice"
_EMERGENCY_NOW = "Tells the patient to get emergency care now"
_ORDERS = "Orders the appropriate test"


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Are you keeping anything down?", "vomiting", True),
    ("Can you keep fluids down?", "vomiting", True),
    ("Are you keeping well otherwise?", "vomiting", False),
    ("PMH - DM?", "diabetes_history", True),
    ("PMH, I see breast CA, current status?", "cancer", True),
    ("Any calcium tablets?", "cancer", False),
    ("And the tummy pain, where is it and what's it like?", "intent:character", True),
    ("Is it only when you're doing things, or at rest too?", "exertion", True),
    ("How have you been getting about since, mostly sitting?", "immobility", True),
    ("Did you injure yourself?", "injury", True),
    ("Other males on the maternal side?", "family_history", True),
    ("Recent URI or head trauma?", "recent_infection", True),
    ("You mentioned the sinus infection. Which antibiotics did you have?", "sinusitis", True),
    ("Is the pain about what you'd expect from how it looks, or much worse than that?", "out_of_proportion", True),
    ("Does it look worse today?", "out_of_proportion", False),
])
def test_round_ten_questions_ask_what_a_clinician_means(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks, (question, sorted(clinical.asked(question)))


def test_the_burning_named_as_the_symptom_is_no_question_about_its_character() -> None:
    # "When does the burning happen?" asks when heartburn comes on; "Is it burning?" asks what it feels like
    assert "intent:character" not in clinical.asked("When does the burning happen?")
    assert "intent:triggers" in clinical.asked("When does the burning happen?")
    assert "intent:character" in clinical.asked("Is it burning or sharp?")
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease",
                 key_questions=["When does the burning happen?", "Does lying down make it worse?", "Any weight loss?"])
    item = "Before giving a diagnosis, asks: When does the burning happen?"
    diagnosis = "DIAGNOSIS: Gastro-oesophageal reflux disease\nOmeprazole."
    assert _met(case, ["How long has it been going on, and when does it tend to come on: after food, at night?",
                       diagnosis], item)
    assert not _met(case, ["Is it a burning feeling?", diagnosis], item)


_COAG = {"Coagulation Test Results > ACT": "normal", "Coagulation Test Results > PT": "11 s",
         "Coagulation Test Results > Reticulocyte count": "1%", "Coagulation Test Results > Thrombin time": "15 s"}


@pytest.mark.parametrize(("orders", "ordered"), [
    (["PT/INR, aPTT, thrombin time, fibrinogen"], True),  # every part of the coagulation screen, one by one
    (["PT", "aPTT", "fibrinogen"], True),  # three of its four parts, on lines of their own
    (["PT, thrombin time"], False),  # two of the four results the record files under it, two of its four parts
    (["CBC"], False),
])
def test_a_panel_s_parts_ordered_one_by_one_order_the_panel(orders: list[str], ordered: bool) -> None:
    case = _case(final_diagnosis="Haemophilia A", test_results=_COAG)
    assert clinical.case_tests(case) == ["Coagulation Test Results"]
    turn = "\n".join(f"REQUEST TEST: {o}" for o in orders)
    assert _met(case, [turn, "DIAGNOSIS: Haemophilia A\nFactor VIII."], _ORDERS) is ordered


@pytest.mark.parametrize(("order", "named"), [
    ("Ultrasound of the neck lump", True),
    ("US neck mass", True),
    ("Ultrasound of the abdomen", False),
])
def test_an_ultrasound_of_a_neck_lump_is_the_neck_ultrasound(order: str, named: bool) -> None:
    case = _case(final_diagnosis="Epidermoid cyst", test_results={"Imaging > Ultrasound of the Neck > Findings": "cyst"})
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Epidermoid cyst\nExcision."], _ORDERS) is named


@pytest.mark.parametrize(("advice", "net"), [
    ("While you're in, tell the nurse immediately about any bleeding that won't stop or trouble breathing.", True),
    ("Tell staff right away about any new headache.", True),
    ("Tell the nurse about your diet.", False),
])
def test_safety_netting_on_the_ward(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Acute lymphoblastic leukaemia")
    assert _met(case, [f"DIAGNOSIS: Acute lymphoblastic leukaemia\nAdmit to haematology. {advice}"], _NET) is net


@pytest.mark.parametrize(("plan", "emergency"), [
    ("General surgery is being paged now for a laparoscopic appendicectomy.", True),
    ("I'll write to general surgery for a clinic appointment.", False),
])
def test_the_surgeons_paged_now_is_emergency_care_now(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Acute appendicitis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute appendicitis\nNil by mouth. {plan}"], _EMERGENCY_NOW) is emergency


@pytest.mark.parametrize(("said", "empathy"), [
    ("That must have been a bit of a worry.", True),
    ("That must have given you and your wife a real fright.", True),
    ("Four months is a long time to put up with this.", True),
    ("You must have a blood test.", False),
])
def test_empathy_in_round_ten_s_words(said: str, empathy: bool) -> None:
    case = _case(final_diagnosis="Irritable bowel syndrome")
    item = "Acknowledges the patient's concerns"
    assert _met(case, [f"DIAGNOSIS: Irritable bowel syndrome\n{said} Peppermint oil and a food diary."], item) is empathy
