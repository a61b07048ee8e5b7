"""Round 67 (data/natural/dev/*-r67.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. A consequence told with "which has caused";
a list, then the help and a second help after discharge; asking leave is no
question about nothing; Scots "jags"; "eating alright"; interest in the family; plain words of empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _irrelevant

_GCT = "Granulosa cell tumor"


@pytest.mark.parametrize(("diagnosis", "right"), [
    # agentclinic-0075, gp_lay
    ("Granulosa cell tumour of the left ovary (oestrogen-producing), which has caused a cancer of the womb lining",
     True),
    ("Granulosa cell tumour, which is causing the bleeding", True),
    ("Granulosa cell tumour, and endometrial cancer", False),
    ("Endometrial cancer, which has caused anaemia", False),
])
def test_a_consequence_told_with_which_has_caused_is_not_a_second_diagnosis(diagnosis: str, right: bool) -> None:
    case = _case(final_diagnosis=_GCT, source="agentclinic", differential=["Endometrial cancer"])
    assert _met(case, [f"DIAGNOSIS: {diagnosis}"], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "netted"), [
    # agentclinic-0061, us_abbrev; agentclinic-0060, checklist
    ("Syncope with attacks, dysphagia, hoarseness, facial weakness, fever or otorrhea, come in promptly or go to the ED.",
     True),
    ("Worsening pain, fainting, heavy bleeding, or vomiting you can't stop, tell the nurses at once, or after discharge "
     "come straight to A&E.", True),
    ("Come in promptly for your MRI results, or after discharge go to the clinic.", False),
    ("Take the tablets with food, or after meals.", False),
])
def test_a_list_then_the_help_and_a_second_help(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("question", "about_nothing"), [
    ("Quick questions, alright?", False),  # acute-otitis-media, terse
    ("Safety checks, okay?", False),
    ("Let me look at him, okay?", False),
    ("Is it okay if I ask some personal questions?", False),
    ("Can I ask about your gambling?", True),  # leave asked, and a topic the case does not hold
])
def test_asking_leave_is_no_question_about_nothing(question: str, about_nothing: bool) -> None:
    assert bool(_irrelevant([question], frozenset({"ear", "fever"}))) is about_nothing


@pytest.mark.parametrize(("question", "asked"), [
    ("Are his jags up to date?", True),  # acute-otitis-media, gp_lay (Scots)
    ("Jags?", True),  # terse
    ("Any jagged pain?", False),
])
def test_jags_are_vaccinations(question: str, asked: bool) -> None:
    case = _case(key_questions=["Is he up to date with vaccinations?"])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks: Is he up") is asked


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Decreased appetite", "Sleeping and eating alright?", True),  # agentclinic-0064, checklist
    ("Decreased appetite", "Any pain when eating?", False),
    ("Apathy", "Self-care, family interest?", True),  # agentclinic-0074, terse
    ("Apathy", "Any family history of dementia?", False),
])
def test_eating_alright_and_interest_in_the_family(symptom: str, question: str, asked: bool) -> None:
    case = _case(source="agentclinic", secondary_symptoms=[symptom])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks about") is asked


@pytest.mark.parametrize(("words", "empathic"), [
    ("It sounds like you've been carrying a heavy load.", True),  # agentclinic-0064, gp_lay
    ("They're harmless but maddening.", True),  # agentclinic-0065, gp_lay
    ("You've been scunnered for months.", True),  # iron-deficiency-anaemia, checklist
    ("It sounds like you have a chest infection.", False),
])
def test_plain_words_of_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic
