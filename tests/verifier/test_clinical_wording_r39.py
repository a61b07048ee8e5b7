"""Round 39 (data/natural/dev/*-r39.yaml): what its examiners marked met and the grader missed, or penalised, in
general form, each beside a lookalike that must come out the other way. A diagnosis with its grade ("Internal
haemorrhoids, grade III"), admission to a monitored bed and a plan's bullets as its sentences, an "Any ..., call 999 and
go to the ED" safety-net that is not over-triage, "BM aspirate", oral intake as appetite, "Back or to the ED for ...",
the nurse flagged, and "Take heart"."""

from __future__ import annotations

import pytest

from patient_sim.cases import project_cases
from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported, _stated
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("final", "statement", "right"), [
    ("Hemorrhoids", "Internal haemorrhoids (piles), prolapsing but going back in, grade III", True),
    ("Hemorrhoids", "Haemorrhoids grade III, prolapsing", True),
    ("Hemorrhoids", "Haemorrhoids grade III or perianal abscess", False),
])
def test_a_diagnosis_with_its_grade_is_one_diagnosis(final: str, statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", final), statement)
    assert (met, wrong) == (right, not right)


@pytest.mark.parametrize(("final", "statement", "right"), [
    # a second condition only the clinical layer names (not a common one, not the case's differential) makes a list
    ("Hemorrhoids", "Haemorrhoids, anal fissure", False),
    ("Miliary tuberculosis", "Miliary TB, erythema nodosum", False),
    ("Pulmonary embolism", "Pulmonary embolism, pemphigus vulgaris", False),
    # ... but the answer's kin, sharing a word of its names, glosses it
    ("Chronic lymphocytic leukemia", "Chronic lymphocytic leukemia (CLL/SLL)", True),
    ("Seborrheic dermatitis", "Seborrhoeic dermatitis, cradle cap", True),
    ("Situational syncope", "Situational (micturition) syncope, a simple faint brought on by passing water", True),
    ("Miliary tuberculosis", "Miliary tuberculosis (disseminated TB)", True),
    # ... and so does its former name
    ("Genitopelvic pain disorder", "Genito-pelvic pain/penetration disorder (DSM-5; formerly vaginismus)", True),
    ("Genitopelvic pain disorder", "Vaginismus (formerly genito-pelvic pain disorder)", False),
    # a short abbreviation is not read inside a word: "cap" in "cradle cap" is not community-acquired pneumonia
    ("Seborrheic dermatitis", "Infantile seborrhoeic dermatitis (cradle cap)", True),
])
def test_a_second_condition_the_layer_names_makes_a_list(final: str, statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", final), statement)
    assert (met, wrong) == (right, not right)


@pytest.mark.parametrize(("text", "outright"), [
    ("Plan:\n- Admit, telemetry, O2.\n- Enoxaparin now.", True),
    ("Admission to a monitored unit.", True),
    ("Admit to a monitored bed, with oxygen as needed.", True),
    ("You're staying in on a closely monitored ward.", True),
    ("You'll stay in hospital on oxygen and a monitor.", True),
    ("After the operation you'll stay in hospital a few days.", False),
    ("If it bleeds again:\n- Admit, monitored bed.", False),
    ("You're staying in bed for a day or two.", False),
    ("Any crushing chest pain, call 999 and go to the ED.", False),
])
def test_admission_to_a_monitored_bed_and_a_plan_s_bullets(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


def test_a_conditional_emergency_is_not_over_triage() -> None:
    case = next(c for c in project_cases() if c.id == "gerd")
    plan = ("DIAGNOSIS: Gastro-oesophageal reflux disease\nOmeprazole 20 mg daily for 8 weeks. Any exertional or crushing "
            "CP, radiation to arm/jaw, SOB or sweats, call 999 and go to the ED.")
    assert not _met(case, ["Any heartburn?", plan], "Sends the patient for emergency care")
    assert _met(case, ["Any heartburn?", "DIAGNOSIS: Gastro-oesophageal reflux disease\nGo to the ED now."],
                "Sends the patient for emergency care")


@pytest.mark.parametrize(("order", "ordered"), [
    ("BM aspirate + biopsy", True),
    ("BM chart", False),
])
def test_bm_aspirate_is_the_bone_marrow(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Essential thrombocythemia", test_results={"Bone Marrow Aspirate": "Megakaryocytes"})
    item = "Orders the appropriate test: Bone Marrow Aspirate"
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Essential thrombocythemia"], item) is ordered


@pytest.mark.parametrize(("question", "asked"), [
    ("Decreased PO intake: how long?", True),
    ("Any PO meds?", False),
])
def test_oral_intake_is_appetite(question: str, asked: bool) -> None:
    assert _asked(_imported("Diminished appetite"), question, "Before giving a diagnosis, asks about") is asked


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back or to the ED for numbness, pale/cold finger, worsening swelling.", True),
    ("Flag his nurse right away for fever, lethargy, worsening distension.", True),
    ("Back for a check in 2 weeks.", False),
    ("Back for review in 2 weeks.", False),
])
def test_back_or_the_ed_for_a_list_and_the_nurse_flagged(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("words", "kind"), [
    ("Take heart, my friend.", True),
    ("This is a lot to land on you in one visit.", True),
    ("Take the tablets with food.", False),
])
def test_take_heart(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind
