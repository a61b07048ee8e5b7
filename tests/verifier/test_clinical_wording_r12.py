"""Clinical wording the clinicians' item marks found the grader missing (data/natural/items/, the shipped sets'
tune half, and data/natural/dev/items/*-r11.jsonl): each good wording earns its item through the real grader, and
a lookalike that does not do the clinical work earns nothing."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.markers import parse_orders

_NET = "Gives safety-netting advice"
_ORDERS = "Orders the appropriate test"
_DIFFERENTIAL = "Considers a relevant differential"


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Hands clumsy?", "coordination", True),  # limb ataxia, in the patient's words
    ("Any incoordination of the arms or legs, dropping things?", "coordination", True),
    ("Are you unsteady on your feet?", "coordination", False),  # the gait's ataxia, not the limbs'
    ("Are you unsteady on your feet?", "balance", True),
    ("Trouble with bills and money?", "finances", True),
    ("Any trouble with your memory?", "finances", False),
    ("Did he have a fall or bump it at the park?", "injury", True),
    ("Any bumps on the skin?", "injury", False),
    ("Have the sinus sx fully resolved?", "sinusitis", True),
    ("Has baby been given anything since?", "medications", True),
    ("Has anyone given you a leaflet?", "medications", False),
    # round twelve (data/natural/dev/*-r12.yaml), measured before any fix, then tuned on
    ("Which ADLs are you having trouble with?", "self_care", True),
    ("Trouble dressing?", "self_care", True),
    ("Does the wound need a new dressing?", "self_care", False),
    ("Is the defiance mostly toward adults, teachers, coaches?", "defiance", True),
    ("Is it mainly when grown-ups ask him to do something?", "defiance", True),
    ("Why do you think he avoids gym?", "school_activities", True),
    ("Energy drinks, gym supplements?", "school_activities", False),
    ("Is he bringing feeds back up?", "vomiting", True),
    ("Breast only?", "feeding", True),
    ("Dyspareunia?", "sexual_history", True),
    ("Anticoag - which agent, last dose?", "blood_thinners", True),
    ("What happened with your fractures, how many and from what?", "injury", True),
])
def test_questions_the_clinicians_marked_asked(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks, (question, sorted(clinical.asked(question)))


def test_limb_ataxia_is_asked_by_clumsy_hands_not_by_arm_weakness() -> None:
    case = _case(final_diagnosis="Progressive multifocal leukoencephalopathy", source="agentclinic",
                 secondary_symptoms=["Gait ataxia", "Limb ataxia", "Reduced strength in the right upper limb"])
    diagnosis = "DIAGNOSIS: Progressive multifocal leukoencephalopathy\nStop natalizumab."
    item = "Before giving a diagnosis, asks about limb ataxia"
    assert _met(case, ["Are your hands clumsy too, knocking things over?", diagnosis], item)
    assert not _met(case, ["Any weakness of the right arm?", diagnosis], item)


@pytest.mark.parametrize(("advice", "net"), [
    # a decimal point does not end the sentence
    ("If you get fever over 100.4, SOB or severe abd pain, go to the ED right away.", True),
    ("Your temperature was 37.5. Come in for your appointment next week.", False),
    # on the ward, the help is the team's escalation
    ("Worse breathing, drowsier, dark or scant urine: escalate at once.", True),
    ("We'll escalate immediately for rising FiO2, apnea, or worsening gas.", True),
    ("Escalate for apnoea, rising O2 need, worsening gas.", True),
    ("We will escalate your care to the surgeons.", False),
    # round twelve
    ("Take him straight to A&E if a nosebleed hasn't stopped after twenty minutes.", True),
    ("Urgent: chest pain, fainting, breathless at rest, soaking a pad an hour.", True),
    ("Urgent: referral to cardiology.", False),
])
def test_safety_netting_with_a_temperature_or_an_escalation(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nTriptan as needed. {advice}"], _NET) is net


@pytest.mark.parametrize(("line", "orders"), [
    # the specimen said once covers the orders after it that name no site of their own
    ("REQUEST TEST: Stool: C. diff toxin, culture, white cells",
     [("test", "Stool C. diff toxin"), ("test", "Stool culture"), ("test", "Stool white cells")]),
    ("REQUEST TEST: Stool sample for C. diff toxin, culture",
     [("test", "Stool sample for C. diff toxin"), ("test", "stool culture")]),
    ("REQUEST TEST: Urine dip, FBC, CRP", [("test", "Urine dip"), ("test", "FBC"), ("test", "CRP")]),
    ("REQUEST TEST: Urine: MC&S, pregnancy test", [("test", "Urine MC&S"), ("test", "Urine pregnancy test")]),
    ("REQUEST TEST: CXR, sputum culture", [("test", "CXR"), ("test", "sputum culture")]),
    # two tests that share their last words
    ("REQUEST TEST: Antinuclear and antimitochondrial antibodies",
     [("test", "Antinuclear antibodies"), ("test", "antimitochondrial antibodies")]),
    ("REQUEST TEST: urea and electrolytes", [("test", "urea and electrolytes")]),
    ("REQUEST TEST: CT chest and abdomen", [("test", "CT chest and abdomen")]),
])
def test_a_shared_specimen_or_a_shared_head_word(line: str, orders: list[tuple[str, str]]) -> None:
    assert parse_orders(line) == orders


def test_the_culture_of_a_stool_sample_and_each_of_two_antibodies_are_ordered() -> None:
    case = _case(final_diagnosis="Clostridioides difficile colitis",
                 test_results={"Stool Test > Culture": "no growth", "Stool Test > Clostridium difficile Toxin": "positive",
                               "Serology > Anti-Nuclear Antibody": "negative"})
    diagnosis = "DIAGNOSIS: Clostridioides difficile colitis\nOral vancomycin."
    assert _met(case, ["REQUEST TEST: Stool sample for C. diff toxin, culture", diagnosis], f"{_ORDERS}: Stool Test Culture")
    assert not _met(case, ["REQUEST TEST: Blood for FBC, culture", diagnosis], f"{_ORDERS}: Stool Test Culture")
    assert _met(case, ["REQUEST TEST: Antinuclear and antimitochondrial antibodies", diagnosis],
                f"{_ORDERS}: Anti-Nuclear Antibody")


def test_an_le_exam_is_the_leg_examination() -> None:
    case = _case(final_diagnosis="Deep vein thrombosis", recommended_tests=["Leg exam"])
    diagnosis = "DIAGNOSIS: Deep vein thrombosis\nApixaban."
    assert _met(case, ["REQUEST EXAM: LE exam", diagnosis], f"{_ORDERS}: Leg exam")
    assert not _met(case, ["REQUEST EXAM: UE exam", diagnosis], f"{_ORDERS}: Leg exam")


@pytest.mark.parametrize(("final", "differential", "considered", "weighed"), [
    ("Renal colic", "Abdominal aortic aneurysm", "An aortic aneurysm can mimic this, but the scan is clear.", True),
    ("ST-elevation myocardial infarction", "Aortic dissection", "Dissection considered; not tearing.", True),
    ("Ischaemic stroke", "Intracerebral haemorrhage", "Haemorrhage considered; CT excludes.", True),
    ("Giant cell arteritis", "Polymyalgia rheumatica alone", "I did consider polymyalgia on its own.", True),
    ("Renal colic", "Abdominal aortic aneurysm", "Your aorta looks normal.", False),
])
def test_a_differential_weighed_by_its_short_form(final: str, differential: str, considered: str,
                                                  weighed: bool) -> None:
    case = _case(final_diagnosis=final, differential=[differential])
    assert _met(case, [f"DIAGNOSIS: {final}\n{considered} Plan: review."], _DIFFERENTIAL) is weighed


def test_a_considered_short_form_is_never_the_final_diagnosis() -> None:
    case = _case(final_diagnosis="Aortic dissection")
    assert not _met(case, ["DIAGNOSIS: Dissection\nCT now."], "States the correct final diagnosis")


@pytest.mark.parametrize(("advice", "sends"), [
    # conditional emergency advice written as a list of what to look out for is safety-netting, not over-triage
    ("Call 911 for: sudden severe headache, fainting, weakness.", False),
    ("Emergency signs (go straight to A&E): thunderclap headache, a stiff neck with fever, new weakness.", False),
    ("Go to the emergency department now.", True),
    ("Go to A&E immediately: we need to rule out a bleed.", True),
])
def test_an_emergency_list_on_a_routine_case_is_not_over_triage(advice: str, sends: bool) -> None:
    case = _case(final_diagnosis="Migraine", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nTriptan as needed. {advice}"], "Sends the patient for emergency care") is sends


@pytest.mark.parametrize("advice", ["Call 999 now: suspected heart attack.",
                                    "Calling 999 now: crushing chest pain with ST elevation.",
                                    "Go to A&E now (chest pain): I've called ahead."])
def test_an_emergency_sent_now_with_its_reason_after_a_colon_is_still_outright(advice: str) -> None:
    case = _case(final_diagnosis="Acute coronary syndrome", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute coronary syndrome\n{advice}"], "Tells the patient to get emergency care now")


def test_haematemesis_asked_how_much_is_how_much_blood_was_vomited() -> None:
    case = _case(final_diagnosis="Upper gastrointestinal bleed", key_questions=["How much blood did you vomit?"])
    diagnosis = "DIAGNOSIS: Upper gastrointestinal bleed\nEndoscopy today."
    item = "Before giving a diagnosis, asks: How much blood did you vomit?"
    assert _met(case, ["Hematemesis this AM: how much volume?", diagnosis], item)
    assert not _met(case, ["Any heartburn: how much?", diagnosis], item)


def test_a_four_limb_blood_pressure_orders_the_differential() -> None:
    case = _case(final_diagnosis="Coarctation of the aorta",
                 test_results={"Blood Pressure Differential > Upper Extremities": "150/90",
                               "Blood Pressure Differential > Lower Extremities": "100/60"})
    diagnosis = "DIAGNOSIS: Coarctation of the aorta\nEcho and cardiology."
    assert _met(case, ["REQUEST EXAM: 4-extremity BPs", diagnosis], _ORDERS)


@pytest.mark.parametrize(("stated", "named"), [
    ("Anaemia of prematurity - his body isn't yet making enough erythropoietin, the hormone that tells the bone "
     "marrow to make red blood cells", True),  # an explanation in a clause of its own adds nothing
    ("Anaemia of prematurity - his bronchiolitis", False),  # a second condition still makes a list
])
def test_a_diagnosis_explained_after_a_dash(stated: str, named: bool) -> None:
    case = _case(final_diagnosis="Impaired erythropoietin production")
    assert _met(case, [f"DIAGNOSIS: {stated}\nTransfusion and iron."], "States the correct final diagnosis") is named


def test_help_named_twice_before_its_condition_is_not_over_triage() -> None:
    case = _case(final_diagnosis="Streptococcal pharyngitis", disposition="routine")
    said = "Get urgent help, ring 999 or go to A&E, if you can't swallow fluids or your own spit."
    assert not _met(case, [f"DIAGNOSIS: Streptococcal pharyngitis\nPenicillin. {said}"],
                    "Sends the patient for emergency care")
    assert _met(case, ["DIAGNOSIS: Streptococcal pharyngitis\nRing 999 or go to A&E now, you need a scan."],
                "Sends the patient for emergency care")
