"""Round 65 (data/natural/dev/*-r65.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. A syndrome glossed by what makes it up; "call
or come in for" signs; how the patient is "in yourself" or "overall"; "from day one"; episodes under a minute; plain
words of empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met

_MEIGS = "Meigs syndrome"


@pytest.mark.parametrize(("diagnosis", "right"), [
    # agentclinic-0025, gp_lay (rounds 40 and 65)
    ("Meigs syndrome, a benign ovarian tumour with fluid in the tummy and the right chest", True),
    ("Meigs syndrome: a benign ovarian tumour (most likely a fibroma) with fluid in the tummy and around the right lung",
     True),
    ("Meigs syndrome, a brain tumour", False),
    ("Meigs syndrome, a tumour (lymphoma) in the chest", False),
])
def test_a_syndrome_told_by_what_makes_it_up_is_one_diagnosis(diagnosis: str, right: bool) -> None:
    case = _case(final_diagnosis=_MEIGS, source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {diagnosis}"], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call or come in for fever, spreading redness, pus.", True),  # agentclinic-0018, checklist
    ("Call or come in for your results, the dressing.", False),
])
def test_call_or_come_in_for_signs_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Malaise", "How have you been feeling overall?", True),  # agentclinic-0030, us_abbrev
    ("Malaise", "Now tell me how the rest of you has been, in yourself.", True),  # gp_lay
    ("Malaise", "How has your mood been overall?", False),
])
def test_how_the_patient_is_in_themselves_asks_about_malaise(symptom: str, question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", secondary_symptoms=[symptom], source="agentclinic")
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks about malaise") \
        is asked


@pytest.mark.parametrize(("key_question", "question", "asked"), [
    ("When did it start?", "Walk me through it from day one.", True),  # agentclinic-0030, us_abbrev
    ("When did it start?", "What happens on day one of your cycle?", False),
    ("How long does each episode last?", "Episodes <1 min or longer?", True),  # bppv, us_abbrev
    ("How long does each episode last?", "Episodes: any nausea?", False),
])
def test_from_day_one_and_episodes_under_a_minute(key_question: str, question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=[key_question])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks") is asked


@pytest.mark.parametrize(("words", "empathic"), [
    ("You didn't miss anything. He's doing well.", True),  # agentclinic-0034, us_abbrev
    ("You look pretty rough, my son, let's sort you out.", True),  # dka, gp_lay
    ("Did you miss anything out of the diary?", False),
    ("The rough sketch is in the leaflet.", False),
])
def test_plain_words_of_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic
