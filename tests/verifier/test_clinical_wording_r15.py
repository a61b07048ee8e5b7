"""Round fifteen (data/natural/dev/*-r15.yaml, four new writers who saw the project's case records without their key
questions, recommended tests, red flags or synonyms; marked by six clinician examiners before any fix): each good
wording earns its item through the real grader, and a lookalike that does not do the clinical work earns nothing."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_CORRECT = "States the correct final diagnosis"
_WRONG = "States a final diagnosis that is wrong"
_ASKS = "Before giving a diagnosis, asks"
_RED_FLAG = "Asks about or addresses the red flag"
_NET = "Gives safety-netting advice"
_PROMPT = "Plans prompt (same-day) assessment"
_EMPATHY = "Acknowledges the patient's concerns with empathy"


@pytest.mark.parametrize(("stated", "right"), [
    # agentclinic-0077, gp_lay: a lay gloss in brackets, with an "or" inside it
    ("Syringomyelia (a fluid-filled cavity, or syrinx, in the cervical and upper thoracic spinal cord)", True),
    ("Syringomyelia (no ALS, MS or B12 deficiency)", True),  # what it rules out
    ("Syringomyelia (or a spinal cord tumour)", False),  # a hedge in brackets
    ("Syringomyelia (vs amyotrophic lateral sclerosis)", False),
    ("Syringomyelia (a cavity in the cord - or a tumour)", False),
    ("Syringomyelia, not excluding a spinal cord tumour", False),
    ("Amyotrophic lateral sclerosis (not syringomyelia)", False),
])
def test_a_bracketed_gloss_or_exclusion_is_one_diagnosis_and_a_bracketed_hedge_is_not(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Syringomyelia", source="agentclinic")
    turns = [f"DIAGNOSIS: {stated}\nUrgent neurosurgical referral."]
    assert _met(case, turns, _CORRECT) is right
    assert _met(case, turns, _WRONG) is not right


@pytest.mark.parametrize(("stated", "right"), [
    ("Normal adolescent behavior (no MDD, anxiety d/o, or ADHD).", True),  # agentclinic-0089, us_abbrev
    ("Normal adolescent behaviour, with no depression or anxiety disorder", True),
    ("Normal adolescent behavior (not excluding depression)", False),
    ("Normal adolescent behavior, not excluding depression", False),
])
def test_what_the_statement_rules_out_in_brackets_is_not_listed(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Normal behavior", source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nReassurance; review in 3 months."], _CORRECT) is right


def test_a_likely_subtype_in_brackets_is_not_a_rival() -> None:
    # agentclinic-0029 (held out, unchanged): "probable" names the subtype, not a second condition
    case = _case(final_diagnosis="Lung cancer", source="agentclinic")
    turns = ["DIAGNOSIS: Lung cancer (probable small cell carcinoma) presenting with SIADH\nUrgent oncology referral."]
    assert _met(case, turns, _CORRECT)


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Any smoking, vaping, alcohol or drugs?", "recreational_drugs", True),  # agentclinic-0089, checklist
    ("Any drug allergies?", "recreational_drugs", False),
    ("What drugs are you on?", "recreational_drugs", False),
    ("Is anyone hurting or bullying you?", "abuse", True),  # agentclinic-0089, checklist
    ("Is anything hurting you?", "abuse", False),
    ("Cough, blood?", "haemoptysis", True),  # terse: named by its parts
    ("Any cough?", "haemoptysis", False),
    ("How long have your stools been black?", "melaena", True),
    ("Any change in stool or urine color?", "pale_stools", True),
    ("Any problems with your bowels?", "rectal_bleeding", False),
    ("Does the light bother your eyes?", "photophobia", True),
    ("Any eye problems?", "photophobia", False),
    ("Does your neck hurt when you bend your chin down?", "neck_stiffness", True),
    ("Any neck pain?", "neck_stiffness", False),
])
def test_round_fifteen_s_questions(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.compose(clinical.asked(question))) is asks


@pytest.mark.parametrize(("question", "asks"), [
    ("Any joint replacements?", True),
    ("Is that a replaced joint?", True),
    ("Any metalwork in that foot?", True),
    ("Other joints?", False),  # acute-gout: every register's "other joints?" was credited, and no examiner agreed
    ("Any operations?", False),
])
def test_a_prosthetic_joint_is_asked_about_only_as_one(question: str, asks: bool) -> None:
    case = _case(final_diagnosis="Acute gout", red_flags=["Prosthetic joint"])
    assert _met(case, [question, "DIAGNOSIS: Acute gout\nNaproxen and rest."], _RED_FLAG) is asks


@pytest.mark.parametrize(("question", "asks"), [
    ("Cough, blood?", True),
    ("Have you coughed up any blood?", True),
    ("Any cough?", False),  # a cough is not haemoptysis
    ("Any blood in your urine?", False),
])
def test_haemoptysis_named_by_its_parts_but_not_by_a_cough_alone(question: str, asks: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", key_questions=["Any coughing up blood?"])
    assert _met(case, [question, "DIAGNOSIS: Pulmonary embolism\nAnticoagulation."], _ASKS) is asks


@pytest.mark.parametrize(("advice", "net"), [
    ("Same-day review: pale stools, dark urine, deeper jaundice, sleepy, poor feeding, fever.", True),  # 0083, terse
    ("Same-day review.", False),
])
def test_a_same_day_review_with_what_brings_it(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Breast milk jaundice", source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: Breast milk jaundice\nKeep breastfeeding. {advice}"], _NET) is net


@pytest.mark.parametrize(("plan", "prompt"), [
    ("Antibiotics started. I'll call tomorrow, f/u visit in 48 hrs.", True),  # community-pneumonia, us_abbrev
    ("Antibiotics for five days; it should feel better by tomorrow. See your GP in two weeks.", False),
])
def test_a_call_tomorrow_and_review_in_48_hours_is_prompt(plan: str, prompt: bool) -> None:
    case = _case(final_diagnosis="Community-acquired pneumonia", disposition="urgent")
    assert _met(case, [f"DIAGNOSIS: Community-acquired pneumonia\n{plan}"], _PROMPT) is prompt


@pytest.mark.parametrize(("words", "empathic"), [
    ("Ouch, that looks very sore - let's get you sorted.", True),  # acute-gout, gp_lay
    ("That looks really painful.", True),  # acute-gout, us_abbrev
    ("The toe looks red and sore on examination.", False),  # a finding, not empathy
])
def test_the_pain_seen_and_owned_is_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Acute gout")
    assert _met(case, [words, "DIAGNOSIS: Acute gout\nNaproxen and rest; come back if it spreads."], _EMPATHY) is empathic


def test_vs_in_an_examination_order_is_the_vital_signs() -> None:
    case = _case(final_diagnosis="Acute otitis media", physical_exam={"Vital signs > Temperature": "38.4 C"},
                 recommended_tests=["Temperature"])
    turns = ["REQUEST EXAM: VS incl. weight, otoscopy", "DIAGNOSIS: Acute otitis media\nParacetamol."]
    assert _met(case, turns, "Orders the appropriate test: Temperature")


@pytest.mark.parametrize("order", [
    "Skin biopsy from the ulcer edge for histology and culture",  # agentclinic-0018: how the sample is sent
    "Excisional biopsy of supraclavicular LN w/ flow cytometry and IHC",  # agentclinic-0004
    "MRI cervical and thoracic spine w/ and w/o contrast",  # agentclinic-0077: one study of two levels
    "MRI of the whole spine (cervical and thoracic) and craniocervical junction",
])
def test_one_long_order_is_not_split_into_unindicated_tests(order: str) -> None:
    from verifier.rule_grader import _order_parts

    held = ["Skin Biopsy > Histopathology > Findings", "Biopsy > Cervical Lymph Node > Findings",
            "Imaging > MRI Spine > Findings"]
    parts = _order_parts(order, held)
    assert all(clinical.resolve(part, held).labels for part in parts), parts


def test_a_long_list_is_still_split_into_its_tests() -> None:
    from verifier.rule_grader import _order_parts

    held = ["Imaging > MRI Spine > Findings"]
    parts = _order_parts("MRI of the cervical and thoracic spine and a CT of the abdomen and pelvis", held)
    assert any(not clinical.resolve(part, held).labels for part in parts), parts
