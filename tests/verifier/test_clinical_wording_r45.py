"""Round 45 (data/natural/dev/*-r45.yaml): what its examiners marked met and the grader missed, penalised or credited
against their marks, in general form, each beside a lookalike that must come out the other way. An artery's
abbreviations beside a stroke ("left M1/MCA large-vessel occlusion") say where, not a second condition; "Heart
unlikely" weighs angina; an injury to the site asks about the bite that began it; "new, or a pre-existing mole?" asks
when it began; an excisional "bx" is a skin biopsy; admission to a monitored
bed, "You'll be admitted"; safety-netting as "Call for wound infection, ..." and "...: back sooner"; "Good job, Mom";
and an apology for running late is no sympathy. An order in words the clinical layer does not know ("xyzzy",
"everything") asks for no result at all."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier import clinical
from verifier.rule_grader import _recommends_emergency
from verifier.types import MentionsAny, RegexCheck


@pytest.mark.parametrize(("statement", "right"), [
    ("Acute ischemic stroke, left MCA territory, with left M1/MCA large-vessel occlusion", True),
    ("Acute ischaemic stroke with ICA/MCA occlusion", True),
    ("Acute ischaemic stroke with M1/M2 occlusion", True),
    # a slash between conditions still lists them
    ("Acute ischaemic stroke/ICH", False),
    ("Stroke/TIA", False),
])
def test_arteries_by_abbreviation_say_where(statement: str, right: bool) -> None:
    case = _case(final_diagnosis="Acute ischaemic stroke", differential=["Intracerebral haemorrhage", "TIA"])
    turns = [f"DIAGNOSIS: {statement}\nPlan: thrombolysis now."]
    assert _met(case, turns, "States the correct final diagnosis") is right
    assert _met(case, turns, "States a final diagnosis that") is not right


@pytest.mark.parametrize(("reasoning", "considered"), [
    ("Heart unlikely — not on exertion, normal tracing.", True),
    ("Heart rate normal, tracing normal.", False),
])
def test_heart_unlikely_weighs_angina(reasoning: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Angina", "Gallstones"])
    turns = [f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{reasoning} Omeprazole 20 mg."]
    assert _met(case, turns, "Considers a relevant differential") is considered


@pytest.mark.parametrize(("question", "asked"), [
    ("Injury to the spot first?", True),
    ("Any trauma to the head?", False),
])
def test_an_injury_to_the_site_asks_about_the_bite(question: str, asked: bool) -> None:
    case = _imported("History of ant bite at the site of the lesion").model_copy(
        update={"chief_complaint": "Painful ulcerative lesion on the right leg",
                "primary_symptoms": ["Painful ulcerative lesion on the right leg"],
                "history_of_present_illness": "A skin lesion on her right leg for a month."})
    assert _asked(case, question, "Before giving a diagnosis, asks about history of ant bite") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Is it new, or a pre-existing mole?", True),
    ("New, or an old mole?", True),
    ("Is it a new mole?", False),
])
def test_new_or_old_asks_the_onset(question: str, asked: bool) -> None:
    case = _imported("Lesion has increased in size")
    assert _asked(case, question, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("order", "ordered"), [
    ("Excisional bx w/ 1-3 mm margins, full thickness, for histopath", True),
    ("Excision bx", True),
    ("Bone marrow bx", False),
])
def test_an_excisional_bx_is_the_skin_biopsy(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Malignant melanoma", test_results={"Skin Biopsy > Histopathology Findings": "Atypical"})
    turns = [f"REQUEST TEST: {order}", "DIAGNOSIS: Malignant melanoma"]
    assert _met(case, turns, "Orders the appropriate test: Skin Biopsy") is ordered


@pytest.mark.parametrize("order", ["xyzzy", "everything", "IIIa", "whatever you have"])
def test_an_order_in_unknown_words_asks_for_nothing(order: str) -> None:
    """Before round 45 these read every result of a case as "touched": the measurement responder told them all."""
    labels = ["Complete Blood Count > WBC", "Coagulation Profile > PT", "Blood tests > CRP", "Urinalysis"]
    assert clinical.resolve(order, labels).labels == ()
    assert clinical.resolve("Coag screen", labels).labels  # a known order still finds its result


@pytest.mark.parametrize(("text", "outright"), [
    ("Admit you to a monitored bed right away.", True),
    ("You'll be admitted to the hospital, a close-watch bed.", True),
    ("If the bleeding comes back, you'll be admitted.", False),
])
def test_admitted_to_a_monitored_bed(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call for wound infection, new lumps, changing moles.", True),
    ("Fever, hot swollen joint, new weakness: back sooner.", True),
    ("Call for results, and a refill.", False),
    ("Call your pharmacy for refills, then the clinic.", False),
    ("Paracetamol, physio, injection: back in six weeks.", False),
])
def test_call_for_a_list_and_back_sooner(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("opening", "closing", "kind"), [
    ("Hi.", "This is very treatable. Good job, Mom.", True),
    ("Hey, sorry I'm running behind.", "See you in a week.", False),
    ("Sorry, running late.", "See you in a week.", False),
    ("Sorry to keep you waiting.", "See you in a week.", False),
    ("Sorry, running late.", "I'm sorry you've had such a rough week.", True),
])
def test_an_apology_for_running_late_is_no_sympathy(opening: str, closing: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    turns = [f"{opening} How long have you had headaches?", f"DIAGNOSIS: Migraine\nPlan: triptan. {closing}"]
    assert _met(case, turns, "Acknowledges the patient") is kind


@pytest.mark.parametrize("model", [MentionsAny, RegexCheck])
def test_a_rubric_regex_that_does_not_compile_is_refused_where_it_arrives(model: type) -> None:
    fields = {"terms": ["sorry"], "unless": "(running late"} if model is MentionsAny else {"pattern": "(unclosed"}
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        model(**fields)
