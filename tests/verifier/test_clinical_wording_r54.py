"""Round 54 (data/natural/dev/*-r54.yaml): what its examiners marked met and the grader missed or penalised, in
general form, each beside a lookalike that must come out the other way. "For chest pain ..., call 999" is a
condition; "you're staying in hospital" is an admission now; causes joined by a slash before "related" are one cause;
"tonsillopharyngitis" clipped after "strep"; the nurse called "for blood, worse pain" or flagged after a dash; "at
what time"; "Does the pain ease after you go?"; "F/C?"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("plan", "over_triage"), [
    # gerd, gp_lay: a -6 over-triage penalty
    ("Omeprazole for 8 weeks. For chest pain when you exert yourself, or crushing pain that won't go, call 999.", False),
    ("Omeprazole for 8 weeks. For any bleeding, go to A&E.", False),
    ("For your safety, call 999 now.", True),  # no symptom after "for"
])
def test_a_condition_led_by_for_is_no_referral(plan: str, over_triage: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"], "Sends the patient for emergency care") \
        is over_triage


@pytest.mark.parametrize(("plan", "now"), [
    ("Your oxygen's low and your heart's racing, so you're staying in hospital.", True),  # pulmonary-embolism, gp_lay
    ("You are staying in hospital tonight.", True),
    ("If it gets worse, you're staying in hospital.", False),
    ("Some people stay in hospital for this.", False),
])
def test_staying_in_hospital_is_an_admission_now(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("stated", "right"), [
    ("Upper GI bleed \u2014 duodenal ulcer, NSAID/aspirin related", True),  # upper-gi-bleed, terse: -10 and -5
    ("Duodenal ulcer, NSAID/aspirin related", True),
    ("Gastritis/duodenal ulcer", False),  # two conditions, a hedge
])
def test_causes_joined_by_a_slash_are_one_cause(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Upper gastrointestinal bleed from a duodenal ulcer",
                 diagnosis_synonyms=["upper GI bleed", "bleeding duodenal ulcer", "duodenal ulcer"],
                 differential=["Oesophageal varices", "Gastritis"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nTreatment today."], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("stated", "right"), [
    ("Group A strep tonsillopharyngitis", True),  # strep-pharyngitis, us_abbrev: -10
    ("Viral tonsillopharyngitis", False),
])
def test_strep_tonsillopharyngitis_is_strep_throat(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Streptococcal tonsillitis", diagnosis_synonyms=["strep throat"],
                 differential=["Viral pharyngitis"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nPenicillin."], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call the nurse for blood, worse pain, swelling, fever, dizziness.", True),  # agentclinic-0017, terse
    ("While you wait: new eye pain, trouble swallowing, SOB, or blisters spreading - flag the nurse immediately.", True),
    ("I will call the nurse for bloods, then review.", False),
    ("Fluids, antibiotics, oxygen - the nurse will check you hourly.", False),
])
def test_safety_netting_on_the_ward(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("question", "asked"), [
    ("Were you standing to pass urine when it happened, and at what time?", True),  # agentclinic-0007, checklist
    ("Were you standing to pass urine when it happened?", False),
])
def test_at_what_time_asks_when_it_started(question: str, asked: bool) -> None:
    assert _asked(_imported("Fainting"), question, "Before giving a diagnosis, asks about when the symptoms started") \
        is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Does the pain ease after you go?", True),  # agentclinic-0024, checklist
    ("Pain eases after going?", True),  # terse
    ("Does the pain ease after you lie down?", False),
])
def test_relief_after_going_is_relief_by_a_bowel_movement(question: str, asked: bool) -> None:
    assert _asked(_imported("Cramping relieved by diarrhea"), question,
                  "Before giving a diagnosis, asks about cramping relieved by diarrhea") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Other joints involved, migratory? F/C? Rash?", True),  # agentclinic-0030, us_abbrev
    ("Other joints involved, migratory? F/U? Rash?", False),
])
def test_f_slash_c_is_fevers_and_chills(question: str, asked: bool) -> None:
    assert _asked(_imported("Chills"), question, "Before giving a diagnosis, asks about chills") is asked

