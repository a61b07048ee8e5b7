"""Rounds 19 and 20's wordings (40 AgentClinic cases, new writers and examiners) that the examiners credit and the
grader missed, tried on cases they were not written from, each beside a lookalike that does not ask or say the same
thing: "HIV/AIDS" as the cause in a diagnosis, vomiting (not whether anything stays down) as a question about
nausea, eating less as appetite, a change in eating or activity, daytime sleepiness as tiredness, a wrist
aspiration, telling the ward staff, warning signs listed before the help, a plan told as the teams who will look
after the child; and what they credited wrongly: any "concern" as empathy, "early-onset" as the onset."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.verifier.test_clinical_wording_probes import _asks_about_symptom
from verifier.diagnosis import match_diagnosis

PML = ["Progressive multifocal leukoencephalopathy", "PML"]


@pytest.mark.parametrize(("stated", "right"), [
    ("Progressive multifocal leukoencephalopathy (PML) due to advanced HIV/AIDS", True),
    ("PML secondary to HIV / AIDS", True),
    ("HIV/AIDS", False),  # the cause alone is not the answer
    ("PML or HIV encephalopathy", False),  # a hedge keeps its rival
    ("HIV dementia / PML", False),
])
def test_hiv_slash_aids_is_one_infection_not_a_list(stated: str, right: bool) -> None:
    match = match_diagnosis(stated, PML, others=["HIV-associated dementia", "Toxoplasmosis"])
    assert match.matched is right, match.reason


@pytest.mark.parametrize(("symptom", "question", "asks"), [
    ("Nausea", "Any sickness or vomiting?", True),  # the examiners' brief: it covers nausea
    ("Nausea", "How often have you vomited?", True),
    ("Nausea", "Any diarrhoea?", False),
    ("Nausea", "Keeping fluids down?", False),  # whether anything stays down (rounds 14 and 19's examiners)
    ("Projectile vomiting", "Keeping fluids down?", True),
    ("Projectile vomiting", "Feeling sick?", False),  # nausea does not ask whether they vomit
    ("Projectile vomiting", "Nauseous?", False),
    ("Projectile vomiting", "Any vomiting?", True),
])
def test_vomiting_asks_about_nausea_not_the_other_way(symptom: str, question: str, asks: bool) -> None:
    assert _asks_about_symptom(symptom, question) is asks


@pytest.mark.parametrize(("symptom", "question", "asks"), [
    ("Decreased appetite", "How much less are they eating?", True),
    ("Decreased appetite", "Is his eating down?", True),
    ("Decreased appetite", "Any pain after food?", False),
    ("Recent change in diet and exercise", "Has your eating or activity changed at all?", True),
    ("Recent change in diet and exercise", "Have you been eating as normal and doing the same amount of activity?", True),
    ("Recent change in diet and exercise", "Any sexual activity? Any seizure activity?", False),
])
def test_eating_less_and_a_change_in_activity(symptom: str, question: str, asks: bool) -> None:
    assert _asks_about_symptom(symptom, question) is asks


@pytest.mark.parametrize(("symptom", "question", "asks"), [
    ("Tiredness after the episodes", "Daytime sleepiness, trouble at school?", True),
    ("Tiredness after the episodes", "Sleepy during the day?", True),
    ("Tiredness after the episodes", "Trouble at school?", False),
])
def test_daytime_sleepiness_asks_about_tiredness(symptom: str, question: str, asks: bool) -> None:
    assert _asks_about_symptom(symptom, question) is asks


@pytest.mark.parametrize(("order", "label", "named"), [
    ("left wrist aspiration for white cell count, Gram stain and culture", "Joint Aspiration Left Wrist", True),
    ("R ankle aspirate", "Synovial fluid analysis", True),
    ("left wrist X-ray", "Joint Aspiration Left Wrist", False),
    ("bone marrow aspiration", "Joint Aspiration Left Wrist", False),
])
def test_a_joint_aspiration_named_by_its_joint(order: str, label: str, named: bool) -> None:
    from verifier.clinical.orders import resolve

    assert (label in resolve(order, [label]).named) is named



@pytest.mark.parametrize(("advice", "net"), [
    ("Tell the ward staff straight away if he becomes harder to wake or has a fit.", True),
    ("Tell ward staff at once if the headache gets worse.", True),
    ("The ward staff will check on him every hour.", False),  # what happens, not when to ask for help
    ("Warning signs, now and after surgery: fever, worsening distension, lethargy. Tell staff right away.", True),
    ("Watch for fever or drowsiness. These can signal an infection and need immediate medical attention.", True),
    ("Red flags: chest pain, fainting. Call 999.", True),
    ("Warning signs: fever, worsening pain.", False),  # what to watch for, without what to do then
    ("No red flags today. Tell us how you get on at your review.", False),
    ("I looked for warning signs and found none.", False),
])
def test_telling_the_ward_staff_and_warning_signs_before_the_help(advice: str, net: bool) -> None:
    from rubric_gen.case_rubric import _SAFETY_NET_RE

    assert bool(re.search(_SAFETY_NET_RE, advice, re.IGNORECASE)) is net


@pytest.mark.parametrize(("final", "planned"), [
    ("She'll be looked after by a team: the heart doctors about the duct, the eye surgeons about the cataracts.", True),
    ("We'll monitor her development closely and offer you the MMR vaccine now.", True),
    ("That explains the murmur, the cataracts and the hearing loss.", False),  # the reasoning, no plan
])
def test_a_plan_told_as_the_teams_who_will_look_after_her(final: str, planned: bool, agentclinic_path: Path) -> None:
    from patient_sim.cases import import_agentclinic
    from tests.verifier.test_clinical_wording import _met

    case = next(c for c in import_agentclinic(agentclinic_path) if c.id == "agentclinic-0008")
    turns = ["What brings you in today?", f"DIAGNOSIS: {case.final_diagnosis}\n{final}"]
    assert _met(case, turns, "Gives a clear management plan") is planned


@pytest.mark.parametrize(("final", "empathic"), [
    ("I can see why you were concerned; it's a worrying thing to find.", True),
    ("I understand your concern about the lump.", True),
    ("Any concerns, ring us.", False),  # an invitation, not an acknowledgement
    ("Antibiotics if there is any concern for infection.", False),
])
def test_empathy_is_for_the_patients_concern_not_any_concern(final: str, empathic: bool) -> None:
    from patient_sim.cases import project_cases
    from tests.verifier.test_clinical_wording import _met

    case = next(c for c in project_cases() if c.id == "acute-gout")
    turns = ["When did it start?", f"DIAGNOSIS: {case.final_diagnosis}\nRest and ibuprofen. {final}"]
    assert _met(case, turns, "Acknowledges the patient's concerns") is empathic


@pytest.mark.parametrize(("question", "asks"), [
    ("Onset?", True),
    ("Time of onset?", True),
    ("FHx of congenital heart dz, early-onset HTN, or renal disease?", False),  # a kind of disease, not a time
])
def test_early_onset_names_a_kind_of_disease_not_when_it_started(question: str, asks: bool) -> None:
    assert _asks_about_symptom("Headache", question, item_end="when the symptoms started") is asks
