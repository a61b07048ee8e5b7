"""Round 43 (data/natural/dev/*-r43.yaml): what its examiners marked met and the grader missed, or penalised, in
general form, each beside a lookalike that must come out the other way. Where the answer shows itself, named beside it
("Disseminated gonococcal infection, septic arthritis of left wrist"), is no second diagnosis; a
child "acting sick"; safety-netting as a list then a colon and the help, "Call 911 right away for:", "Call your RN",
"Tell nurse: ..., ..." and "bring baby to the ER ... if"; and "no fun", "in bits", "handled it well"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported, _stated
from verifier import clinical


@pytest.mark.parametrize(("statement", "right"), [
    ("Disseminated gonococcal infection, septic arthritis of left wrist", True),
    ("DGI, septic arthritis left wrist", True),
    ("Disseminated gonococcal infection with tenosynovitis", True),
    # a rival beside it is still a list, and where it shows is not the diagnosis alone
    ("Disseminated gonococcal infection, reactive arthritis", False),
    ("Disseminated gonococcal infection, septic arthritis or reactive arthritis", False),
    ("Septic arthritis of left wrist", False),
])
def test_where_the_answer_shows_is_no_second_diagnosis(statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", "Disseminated Gonococcal Infection"), statement)
    assert (met, wrong) == (right, not right)


def test_manifestations_are_data() -> None:
    assert "septic arthritis" in clinical.manifestations(["DGI"])
    assert clinical.manifestations(["Septic arthritis"]) == []


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Malaise", "Has he been acting sick?", True),
    ("Malaise", "Has he been acting up at school?", False),
])
def test_acting_sick(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, "Before giving a diagnosis, asks about") is asked


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Fever or shivers, redness spreading up the foot, other joints flaring: get back to me the same day.", True),
    ("fever/chills, spreading redness, new joints, no better in 72 hrs: message me same day or go to urgent care.",
     True),
    ("Call 911 right away for: trouble breathing, chest pain.", True),
    ("Call your RN right away for fever, worsening pain, distension.", True),
    ("Tell nurse: worse pain, new joints, headache, stiff neck, chest pain.", True),
    ("Please bring baby to the ER straight away if baby has a temperature of 100.4 or more.", True),
    ("Tell nurse: he is in bed 4.", False),
    ("Ibuprofen, paracetamol, ice: get back to work when you can.", False),
    ("Bring baby back in two weeks for her jabs.", False),
])
def test_a_list_then_the_help_and_the_nurse(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("words_", "kind"), [
    ("Ay naku, itchy and feverish, that's no fun at all.", True),
    ("You're in bits, so you are.", True),
    ("It's one of the worst pains going, and you've handled it well.", True),
    ("Handle the dressing gently.", False),
])
def test_no_fun_and_in_bits(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
