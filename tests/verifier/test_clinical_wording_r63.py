"""Round 63 (data/natural/dev/*-r63.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. A hedge before the form of the one diagnosis;
a lay gloss "an infection from ..."; where a condition came from ("likely source L calf DVT"); "upper GIB"; an
admission as the plan's step; the team already here; three signs after "Emerg right away:"; a clipped "Return/ED:" over
signs; plain words of empathy; "watching/controlling you"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("final", "diagnosis", "right"), [
    # agentclinic-0093, gp_lay
    ("Tuberculosis", "Tuberculosis, most likely the widespread (miliary) form affecting the lungs, glands, liver and eyes",
     True),
    ("Tuberculosis", "Tuberculosis, most likely a lymphoma", False),
    # agentclinic-0099, gp_lay
    ("Progressive multifocal leukoencephalopathy", "Progressive multifocal leukoencephalopathy (PML) - a brain infection "
     "from the JC virus, because his HIV is untreated", True),
    ("Progressive multifocal leukoencephalopathy", "Progressive multifocal leukoencephalopathy - a brain infection from "
     "toxoplasmosis", False),
    # pulmonary-embolism, us_abbrev
    ("Pulmonary embolism", "Acute PE, RLL pulmonary arteries, provoked (long-haul flight + COC), likely source L calf DVT",
     True),
    ("Pulmonary embolism", "Acute PE, L calf DVT", False),
    ("Pulmonary embolism", "Pneumonia, likely source PE", False),
    # upper-gi-bleed, us_abbrev
    ("Upper gastrointestinal bleed", "Upper GIB from a bleeding duodenal ulcer with visible vessel", True),
    ("Upper gastrointestinal bleed", "Lower GIB from diverticular disease", False),
])
def test_the_one_diagnosis_with_its_form_gloss_or_source(final: str, diagnosis: str, right: bool) -> None:
    case = _case(final_diagnosis=final, differential=["Lymphoma", "Deep vein thrombosis", "Pneumonia"],
                 past_medical_history=["HIV infection, not on treatment"])
    assert _met(case, [f"DIAGNOSIS: {diagnosis}"], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "now"), [
    ("Plan:\n1. Admission, with oxygen and monitoring.\n2. Blood thinner started now.", True),  # pulmonary-embolism
    ("Plan:\n1. Admission - this is serious.\n2. IV fluids now.", True),  # upper-gi-bleed, checklist
    ("Admission, if it gets worse.", False),
    ("Admission, not needed.", False),
    ("The stroke team is here and we'll give it right away.", True),  # ischaemic-stroke, gp_lay
    ("The orthopaedic team is coming to see you in clinic next week.", False),
    # mechanical-low-back-pain, terse: over-triage on a routine case
    ("Emerg right away: saddle numbness, bladder or bowel change, leg weakness, fever.", False),
    ("Call 999 now: suspected heart attack.", True),
    ("This is an emergency and we're treating it now: aspirin to chew, a second blood thinner, pain relief.", True),
])
def test_admission_the_team_here_and_signs_after_the_emergency(advice: str, now: bool) -> None:
    assert bool(_recommends_emergency(advice, unconditional=True)) is now


@pytest.mark.parametrize(("advice", "netted"), [
    ("Return/ED: SI, fever + rigidity/confusion.", True),  # agentclinic-0096, terse
    ("Back or Emerg: can't swallow fluids, drooling.", True),  # strep-pharyngitis, terse
    ("Return/ED: for your results next week.", False),
    ("Return/ED: bloods and an ECG.", False),
])
def test_a_clipped_return_or_emergency_over_signs_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("words", "empathic"), [
    ("That's a nuisance, and hard going in your line of work.", True),  # mechanical-low-back-pain, gp_lay
    ("This was a close call, and we'll look after you.", True),  # upper-gi-bleed, us_abbrev
    ("This is a really uncomfortable side effect.", True),  # agentclinic-0096, us_abbrev
    ("The going rate is in the leaflet; we'll look at the results.", False),
])
def test_plain_words_of_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic


@pytest.mark.parametrize(("question", "asked"), [
    ("Who is watching/controlling you, since when?", True),  # agentclinic-0101, checklist
    ("Who is watching the kids today?", False),
    ("Who is controlling the budget?", False),
])
def test_who_is_watching_asks_about_persecution(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Schizophreniform disorder", key_questions=["Any delusions of persecution?"])
    assert _met(case, [question, "DIAGNOSIS: Schizophreniform disorder"], "Before giving a diagnosis, asks") is asked
