"""Rounds 25 to 30 (data/natural/dev/*-r25.yaml to *-r30.yaml): what their examiners marked met and the grader missed
or wrongly paid, in general form, each beside a lookalike that must come out the other way. Round 25: a question
about bleeding after sex does not ask about painful sex; how bad an imported symptom is, is the patient's answer, not
a second thing to ask; lay words for apathy; "TT" in a clotting screen; a CT that starts at the neck; a list of tests
packed into brackets after "bloods"; the help heading a list of warning signs on its line; care now in other words;
the same-visit plan."""

from __future__ import annotations

import pytest

from rubric_gen.case_rubric import build_case_rubric
from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.markers import parse_orders
from verifier.rule_grader import _recommends_emergency
from verifier.types import Case


def _asked(case: Case, question: str, item: str) -> bool:
    return _met(case, [question, f"DIAGNOSIS: {case.final_diagnosis}"], item)


def _imported(symptom: str) -> Case:
    return Case(id="agentclinic-x", chief_complaint="Unwell", history_of_present_illness="A week.",
                secondary_symptoms=[symptom], final_diagnosis="Something specific", source="agentclinic")


@pytest.mark.parametrize(("question", "asked"), [
    ("Any pain during sex?", True),
    ("Does sex hurt?", True),
    ("Sex - painful?", True),
    ("Any bleeding between periods or after sex?", False),
    ("Are you sexually active?", False),
])
def test_painful_sex_is_asked_only_about_pain(question: str, asked: bool) -> None:
    case = _imported("Burning pain during intercourse")
    assert _asked(case, question, "Before giving a diagnosis, asks about burning pain during intercourse") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Tell me about the leg pain. Which bit hurts, one leg or both?", True),
    ("Leg pain where? Limping?", True),
    ("How bad is it?", False),
    ("Worse at night?", False),
    ("Any rash?", False),
])
def test_how_bad_an_imported_symptom_is_comes_with_its_answer(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about severe leg pain"
    assert _asked(_imported("Severe leg pain that disturbs sleep"), question, item) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Has he seemed interested in things, or sort of flat and switched off?", True),
    ("Is he unbothered by everything?", True),
    ("Can he lie flat?", False),
])
def test_lay_words_for_apathy(question: str, asked: bool) -> None:
    assert _asked(_imported("Apathy"), question, "Before giving a diagnosis, asks about apathy") is asked


@pytest.mark.parametrize(("orders", "ordered"), [
    ("CBC w/ plt, PT/INR, aPTT, TT", True),
    ("PT/INR, aPTT", True),  # half the screen, ordered part by part, is the screen (round 34's examiners)
    ("PT/INR", False),  # one part is not
])
def test_tt_is_the_thrombin_time_of_a_clotting_screen(orders: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Haemophilia A", recommended_tests=["Coagulation screen"])
    turns = [f"REQUEST TEST: {orders}", "DIAGNOSIS: Haemophilia A"]
    assert _met(case, turns, "Orders the appropriate test: Coagulation") is ordered


def test_a_ct_that_starts_at_the_neck_still_images_the_chest_and_abdomen() -> None:
    case = _case(final_diagnosis="Lymphoma", recommended_tests=["CT chest and abdomen"])
    item = "Orders the appropriate test: CT chest"
    for orders in ("CT scan of neck, chest, abdomen and pelvis", "CT neck, thorax, abdomen and pelvis"):
        assert parse_orders(f"REQUEST TEST: {orders}") == [("test", orders)]
        assert _met(case, [f"REQUEST TEST: {orders}", "DIAGNOSIS: Lymphoma"], item)
    assert not _met(case, ["REQUEST TEST: CT neck", "DIAGNOSIS: Lymphoma"], item)
    assert parse_orders("REQUEST TEST: Urine dip, FBC") == [("test", "Urine dip"), ("test", "FBC")]


def test_a_bracketed_list_of_tests_is_each_test_ordered_and_counted() -> None:
    line = "REQUEST TEST: bloods (FBC, U&Es, LFTs, clotting, group and save), urgent upper GI endoscopy (OGD)"
    assert [name for _, name in parse_orders(line)] == ["FBC", "U&Es", "LFTs", "clotting", "group and save",
                                                         "urgent upper GI endoscopy (OGD)"]
    case = _case(final_diagnosis="Upper GI bleed", recommended_tests=["Haemoglobin", "Urea"])
    assert _met(case, [line, "DIAGNOSIS: Upper GI bleed"], "Orders the appropriate test: Haemoglobin")
    assert _met(case, [line, "DIAGNOSIS: Upper GI bleed"], "Orders the appropriate test: Urea")
    # an aside naming only views is part of its study, and a packed shotgun is counted test by test
    views = "REQUEST TEST: Left shoulder X-ray (AP, axillary and scapular Y views)"
    assert parse_orders(views) == [("test", views.removeprefix("REQUEST TEST: "))]
    packed = "REQUEST TEST: bloods (TSH, B12, folate, ferritin, HbA1c, lipids, PSA, CK, ANA, ESR)"
    assert _met(case, [packed, "DIAGNOSIS: Upper GI bleed"], "Orders tests the presentation does not call for")


_ROUTINE = _case(final_diagnosis="BPPV", disposition="routine")


@pytest.mark.parametrize(("advice", "net"), [
    ("999 or A&E: constant spinning, deafness, bad headache, double vision, slurred speech.", True),
    ("Tell nurses now: blood, distension, worse pain, pyrexia.", True),
    ("Worse pain, faint, more breathless: call out immediately.", True),
    ("More blood in your vomit, black stools again, or feeling faint needs 999 straight away.", True),
    ("999 or A&E are busy tonight.", False),
    ("Tell nurses now that you feel better.", False),
    # round 28: the help after how soon, and an item of the list with an "or" in it
    ("Urgent, same day to A&E: numbness between the legs or bottom, bladder or bowel trouble, leg weakness.", True),
    ("Urgent, same day to A&E: you need a scan today.", False),
])
def test_the_help_heading_what_to_look_out_for(advice: str, net: bool) -> None:
    turns = [f"DIAGNOSIS: BPPV\nEpley manoeuvre now. {advice}"]
    assert _met(_ROUTINE, turns, "Gives safety-netting advice") is net
    # and the help heading a list of warning signs is no referral now
    assert not (net and _met(_ROUTINE, turns, "Sends the patient for emergency care"))


@pytest.mark.parametrize(("plan", "now"), [
    ("I'm sending you to hospital now to be assessed as an emergency.", True),
    ("What happens now: admission, oxygen, and a blood thinner started straight away.", True),
    ("I'm calling the heart attack team now for an emergency procedure.", True),
    ("I'm sending you to hospital.", False),
    ("If it gets worse you'd need to be seen as an emergency.", False),
    # a plan after the colon is no list of warning signs
    ("You're being admitted: the team will treat that vessel through the scope, you'll have a transfusion.", True),
    # round 26: a critical-care bed
    ("DKA protocol: fluids, insulin gtt. Hourly glucose. ICU. Endo.", True),
    ("Staying with us tonight.", True),
    ("Hates hospitals since his wife died in ICU; explored his anxiety about this.", False),
    ("If she deteriorates, ICU.", False),
    # round 27: the team at work now
    ("The surgical team are seeing you urgently, with a view to a laparoscopic appendicectomy today.", True),
    ("The stroke team are taking you for clot retrieval.", True),
    ("At the same time, the team will do clot retrieval through the artery in your groin.", True),
    ("You're not a candidate for thrombectomy.", False),
    ("The team will see you in clinic next month.", False),
    # round 28: a list after the help whose second item is the care, not a sign; a list of signs with an "or" in it
    ("To A&E: severe sepsis, needs IV antibiotics.", True),
    ("Urgent, same day to A&E: numbness between the legs or bottom, bladder or bowel trouble, leg weakness.", False),
    # round 29: a critical-care bed as the plan says it
    ("MICU admit.", True),
    ("Plan: IV ceftriaxone now, fluid bolus for low BP, ICU, droplet isolation 24 h.", True),
    ("Previous admissions: asthma, ICU, ventilated once.", False),
    ("Plan: antibiotics, fluids. If worse, ICU.", False),
    # round 30: kept in, admitted, the surgeons called now
    ("You need to stay in hospital. We're putting up a drip.", True),
    ("You'll need to stay in hospital for two nights after the operation next month.", False),
    ("We'll admit you, give oxygen, and start anticoagulation immediately.", True),
    ("We'll admit you if the bloods are abnormal.", False),
    ("Plan: surgery consult now - we're getting you in.", True),
    ("Surgery consult next week.", False),
])
def test_emergency_care_now_in_other_words(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("plan", "prompt"), [
    ("I'll start bisoprolol 2.5 mg once a day, and a blood thinner.", True),
    ("ECG and bloods in the visit; treatment the same visit.", True),
    ("Bisoprolol, and I'll see you in three months.", False),
    # round 28: a drug prescribed with its dose is started at this visit
    ("Plan: bisoprolol 2.5 mg daily. Apixaban 5 mg BID. Review in 1 week.", True),
    ("Keep taking your usual 5 mg dose; I'll see you in three months.", False),
    # round 29
    ("Cephalexin 500 mg PO QID x5-7 days. F/u 48-72 h to check the border.", True),
    ("Cephalexin if it spreads; see your GP in two weeks.", False),
])
def test_treatment_begun_at_the_visit_is_prompt(plan: str, prompt: bool) -> None:
    case = _case(final_diagnosis="Atrial fibrillation", disposition="urgent")
    assert _met(case, [f"DIAGNOSIS: Atrial fibrillation\n{plan}"], "Plans prompt (same-day) assessment") is prompt


@pytest.mark.parametrize(("words", "empathic"), [
    ("You've done nowt wrong, love.", True),
    ("You've done right coming in now.", True),
    ("Nothing's wrong with the ECG.", False),
    # round 27: praise for a parent
    ("You're doing a grand job with him.", True),
    ("You're doing everything right, Mom.", True),
    ("Everything is right on the scan.", False),
    # round 28
    ("This is proper hard on you, love.", True),
    ("It's hard going for you both.", True),
    ("You didn't cause this.", True),
    ("The examination was hard on the left side.", False),
    ("The cause of this is a virus.", False),
    # round 29
    ("It's not something you caused.", True),
    ("You've done well to keep going.", True),
    ("Tough for you both.", True),
    ("The swelling was caused by the thorn.", False),
    ("The skin on the heel is tough.", False),
    # round 30
    ("You've done really well spotting this.", True),
    ("Your kidneys are working really well.", False),
])
def test_empathy_in_a_clinicians_own_words(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic


# Round 26 (data/natural/dev/*-r26.yaml), the same way.
def _stated(case_id_final: tuple[str, str], statement: str) -> tuple[bool, bool, bool]:
    case = _case(final_diagnosis=case_id_final[1], source="agentclinic", id=case_id_final[0])
    turns = [f"DIAGNOSIS: {statement}\nPlan."]
    return (_met(case, turns, "States the correct final diagnosis"), _met(case, turns, "States a final diagnosis that"),
            _met(case, turns, "Hedges with a shotgun"))


@pytest.mark.parametrize(("final", "statement", "right"), [
    ("Schizotypal personality disorder", "Schizotypal PD", True),
    ("Schizotypal personality disorder", "Paranoid PD", False),
    ("Pancreatic adenocarcinoma", "Pancreatic adenocarcinoma (head of pancreas), presumptive pending CT/tissue", True),
    ("Pancreatic adenocarcinoma", "Pancreatic adenocarcinoma (head), pending CT/bx", True),
    ("Pancreatic adenocarcinoma", "Pancreatic adenocarcinoma (working diagnosis)", True),
    ("Lisdexamfetamine intoxication", "Amphetamine toxicity from lisdexamfetamine (Vyvanse)", True),
    ("Lisdexamfetamine intoxication", "Lisdexamfetamine overdose", True),
    ("Lisdexamfetamine intoxication", "Cocaine toxicity", False),
    # round 30: a lay gloss after a colon, as after a comma
    ("Rupture of the flexor digitorum profundus tendon at its point of insertion",
     "Jersey finger: a tear of the deep flexor tendon off its attachment at the tip of your right ring finger", True),
])
def test_a_diagnosis_in_a_clinicians_shorthand(final: str, statement: str, right: bool) -> None:
    met, wrong, shotgun = _stated(("agentclinic-x", final), statement)
    assert (met, wrong, shotgun) == (right, not right, False)


def test_a_pending_list_is_still_a_list() -> None:
    assert _stated(("agentclinic-x", "Pancreatic adenocarcinoma"),
                   "Pancreatic adenocarcinoma, or cholangiocarcinoma, pending CT") == (False, True, True)


@pytest.mark.parametrize(("question", "item", "asked"), [
    ("How mobile have you been since?", "Before giving a diagnosis, asks: Any recent surgery or immobility", True),
    ("Is your mobile number the same?", "Before giving a diagnosis, asks: Any recent surgery or immobility", False),
    ("Which bones have you broken, and how?", "Before giving a diagnosis, asks about history of fractures", True),
    ("Any broken skin?", "Before giving a diagnosis, asks about history of fractures", False),
])
def test_mobility_and_broken_bones(question: str, item: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["Any recent surgery or immobility?"])
    if "fractures" in item:
        case = _imported("History of fractures following minor trauma")
    assert _asked(case, question, item) is asked


@pytest.mark.parametrize(("advice", "net"), [
    ("Please attend A&E for sudden severe lower abdominal pain.", True),
    ("Back/ED/988 if voices, feeling watched or threatened.", True),
    ("Headache or more confusion, call the nurse now.", True),
    ("Please attend the clinic for a review in six weeks.", False),
    # round 27
    ("Same day/999: fever over 38, rigors, breathless, jaundice.", True),
    ("Back to ED for rapid spread, unable to keep fluids down, or fever.", True),
    ("Flag nursing right away for worsening drowsiness or a seizure.", True),
    ("More drowsy, seizure, new weakness: tell nursing now.", True),
    ("Back to work for light duties on Monday, then full duties.", False),
    # round 28
    ("Tell nursing stat for spread, eye pain, can't swallow, SOB.", True),
    ("Anything worse, more faint, more pain, breathless, press the bell at once.", True),
    ("Blue or grey lips, struggling to breathe, or refusing drinks means ring 999.", True),
    ("Tell nursing stat that the bed is free.", False),
    ("Anything else you want to ask, the nurse is here.", False),
    # round 29
    ("Post-op fever, swelling, worse pain: back straight away.", True),
    ("Flag it straight away, on the ward or after discharge, if he gets a temperature or a bigger tummy.", True),
    ("Tell Jess right away if you feel more drowsy or confused.", True),
    ("Tell Jess the results tomorrow.", False),
    ("Flag it in the notes for your GP.", False),
    ("Back pain: straight away after lifting, it eased.", False),
    # round 30
    ("Call immediately if floppy, pale, apnoeic or bloody aspirates.", True),
    ("Call immediately to book the scan.", False),
])
def test_help_attended_flagged_or_called_on_the_ward(advice: str, net: bool) -> None:
    assert _met(_ROUTINE, [f"DIAGNOSIS: BPPV\nEpley manoeuvre now. {advice}"], "Gives safety-netting advice") is net


@pytest.mark.parametrize(("case_id", "said", "considered"), [
    ("mechanical-low-back-pain", "I don't think a disc is pressing on a nerve.", True),
    ("mechanical-low-back-pain", "Nothing points to a fracture.", True),
    ("mechanical-low-back-pain", "Your back is stiff.", False),
    ("gerd", "ECG normal, not exertional, so not heart.", True),
    ("gerd", "Your heart rate is normal.", False),
    # round 28: the thyroid weighed by its test or its adjective
    ("atrial-fibrillation", "TSH normal, so no hyperthyroid trigger.", True),
    ("atrial-fibrillation", "TFTs, electrolytes normal.", True),
    ("atrial-fibrillation", "Your heart is racing and irregular.", False),
])
def test_a_rival_weighed_in_plain_words(case_id: str, said: str, considered: bool) -> None:
    from patient_sim.cases import project_cases

    case = next(c for c in project_cases() if c.id == case_id)
    turns = [f"DIAGNOSIS: {case.final_diagnosis}\n{said}"]
    assert _met(case, turns, "Considers a relevant differential") is considered


# Round 27 (data/natural/dev/*-r27.yaml).
def test_a_complication_named_after_the_answer_is_no_second_diagnosis() -> None:
    final = ("agentclinic-x", "Waldenstrom macroglobulinemia")
    assert _stated(final, "Waldenström macroglobulinemia, hyperviscosity syndrome") == (True, False, False)
    assert _stated(final, "Waldenström macroglobulinemia, multiple myeloma") == (False, True, True)
    # round 28: an organ's failure it brought about
    final = ("agentclinic-x", "Atrial Septal Defect")
    assert _stated(final, "Atrial septal defect, L→R shunt, heart failure") == (True, False, False)
    assert _stated(final, "Atrial septal defect with right heart strain") == (True, False, False)
    assert _stated(final, "Atrial septal defect, pneumonia") == (False, True, True)
    assert _stated(final, "Heart failure, atrial septal defect") == (False, True, True)


def test_heart_failure_the_case_weighs_as_a_rival_is_still_a_second_diagnosis() -> None:
    case = _case(final_diagnosis="Community-acquired pneumonia", differential=["Acute heart failure"])
    turns = ["DIAGNOSIS: Pneumonia, heart failure\nPlan."]
    assert not _met(case, turns, "States the correct final diagnosis") and _met(case, turns, "States a final diagnosis that")


@pytest.mark.parametrize(("question", "asked"), [("Is he taking PO OK?", True),
                                                 ("Any PO meds?", False)])
def test_po_intake_is_drinking(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Acute otitis media", key_questions=["Is he drinking and making wet nappies?"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Is he drinking") is asked


def test_bsl_is_the_blood_glucose() -> None:
    case = _case(final_diagnosis="Ischaemic stroke", recommended_tests=["Blood glucose"])
    assert _met(case, ["REQUEST TEST: HR, BP, BSL", "DIAGNOSIS: Ischaemic stroke"], "Orders the appropriate test: Blood glucose")
    assert not _met(case, ["REQUEST TEST: HR, BP", "DIAGNOSIS: Ischaemic stroke"], "Orders the appropriate test: Blood glucose")



# Round 28 (data/natural/dev/*-r28.yaml).
@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Haematuria", "You said your pee looked different, is it pink or properly red?", True),
    ("Haematuria", "Is the rash pink?", False),
    ("Inappropriate behavior", "What has he been doing that's out of character?", True),
    ("Inappropriate behavior", "Is he out of breath?", False),
    ("Unkempt appearance", "Is he keeping himself clean and tidy?", True),
    ("Depressed mood", "Has he seemed low?", True),
    ("Depressed mood", "Has his blood pressure been low?", False),
    ("Soft speech", "Any trouble getting his words out?", True),
])
def test_round_28_lay_words(symptom: str, question: str, asked: bool) -> None:
    case = _imported(symptom)
    item = next(i.criterion for i in build_case_rubric(case).items if i.criterion.lower().endswith(symptom.lower()))
    assert _asked(case, question, item) is asked


@pytest.mark.parametrize(("question", "alcohol"), [("How much does he drink?", True), ("How much is he drinking?", False),
                                                  ("Do you drink enough water?", False)])
def test_how_much_he_drinks_is_alcohol(question: str, alcohol: bool) -> None:
    assert ("alcohol" in clinical.asked(question)) is alcohol


@pytest.mark.parametrize(("said", "addressed"), [
    ("Stone at the bottom of the left ureter, mild hydronephrosis.", True),
    ("Come straight back with a fever, because an infected blocked kidney is an emergency.", True),
    ("The stone is 5 mm.", False),
])
def test_an_obstructed_kidney_in_other_words(said: str, addressed: bool) -> None:
    from patient_sim.cases import project_cases

    case = next(c for c in project_cases() if c.id == "renal-colic")
    turns = [f"DIAGNOSIS: {case.final_diagnosis}\n{said}"]
    assert _met(case, turns, "Asks about or addresses the red flag: Fever with an obstructed kidney") is addressed


@pytest.mark.parametrize(("plan", "clear"), [("Urgent memory clinic and neurology.", True), ("Bad luck.", False)])
def test_a_terse_referral_is_a_plan(plan: str, clear: bool) -> None:
    case = _case(final_diagnosis="Frontotemporal dementia", source="agentclinic", id="agentclinic-x")
    assert _met(case, [f"DIAGNOSIS: Frontotemporal dementia\n{plan}"], "Gives a clear management plan") is clear


_FTD = Case(id="agentclinic-x", source="agentclinic", chief_complaint="Inappropriate behavior",
            history_of_present_illness="Six months of inappropriate comments, disinterest in family, an unkempt look and "
                                       "10 kg weight gain from craving sweets.",
            secondary_symptoms=["Apathy", "Blunted affect", "Significant weight gain"],
            final_diagnosis="Frontotemporal dementia")


@pytest.mark.parametrize(("turns", "barrage"), [
    # a checklist history of a change in personality: the pertinent negatives of its rivals and the standard background
    (["When did you notice the change? What has he done that's out of character? Any repetitive habits or rituals? "
      "Is he keeping himself clean and tidy? Any trouble getting his words out?",
      "Has he seemed low? Headaches, vomiting, weakness or falls? Any head injury? How much does he drink? "
      "Any tablets, any allergies? Family history of dementia? Is he still driving?"], False),
    # ten questions about nothing in the case, one turn
    (["Where did you go on holiday? Any pets? What football team? Favourite film? Do you garden? Which newspaper? "
      "What car? Any hobbies like fishing? What music? What shoe size? Your star sign?"], True),
])
def test_a_checklist_of_pertinent_questions_is_no_barrage(turns: list[str], barrage: bool) -> None:
    assert _met(_FTD, [*turns, "DIAGNOSIS: Frontotemporal dementia"], "Fires a barrage of questions") is barrage


# Round 29 (data/natural/dev/*-r29.yaml).
_PETECHIAE = Case(id="agentclinic-x", source="agentclinic", chief_complaint="Tiredness",
                  history_of_present_illness="Tired for two months.", final_diagnosis="Something specific",
                  secondary_symptoms=["Multiple pinpoint, red, nonblanching spots on extremities"],
                  physical_exam={"General Examination > Skin Examination": "Petechiae on the extremities."})


@pytest.mark.parametrize(("exam", "looked"), [("pallor, petechiae, lymph nodes, spleen", True),
                                              ("pallor, lymph nodes, spleen", False)])
def test_a_sign_named_in_the_examination_request_is_looked_for(exam: str, looked: bool) -> None:
    turns = [f"REQUEST EXAM: {exam}", "DIAGNOSIS: Something specific"]
    assert _met(_PETECHIAE, turns, "Before giving a diagnosis, looks for or recognises multiple pinpoint") is looked


@pytest.mark.parametrize(("question", "keys", "absent"), [
    ("Before like this?", {"intent:previous"}, set()),
    ("Before the pain started, like this morning, what did you eat?", set(), {"intent:previous"}),
    ("How much weight have you lost, and over what time?", {"intent:onset"}, set()),
    ("Does the pain ever come on when you're walking or doing something active?", {"exertion"}, set()),
    ("How many weeks were you?", {"birth_history"}, {"intent:onset"}),
    ("How many days has it been?", {"intent:onset"}, set()),
    # round 30
    ("Pain where?", {"intent:site"}, set()),
    ("The pain where you fell?", set(), {"intent:site"}),
    ("Hematemesis: how much, bright red vs coffee-ground?", {"intent:severity"}, set()),
])
def test_clipped_and_indirect_questions(question: str, keys: set[str], absent: set[str]) -> None:
    asked = clinical.asked(question)
    assert keys <= asked and not absent & asked


@pytest.mark.parametrize(("line", "orders"), [
    ("REQUEST TEST: X-ray pelvis, both hips AP and frog-leg lateral", ["X-ray pelvis, both hips AP and frog-leg lateral"]),
    ("REQUEST TEST: CT chest, lateral neck soft tissue", ["CT chest", "lateral neck soft tissue"]),
    ("REQUEST TEST: X-ray knee, leg ultrasound", ["X-ray knee", "leg ultrasound"]),
])
def test_the_views_of_an_image_stay_with_it(line: str, orders: list[str]) -> None:
    assert [name for _, name in parse_orders(line)] == orders


def test_bgl_is_the_blood_glucose() -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", recommended_tests=["Blood glucose"])
    assert _met(case, ["REQUEST TEST: BGL, blood ketones, VBG", "DIAGNOSIS: Diabetic ketoacidosis"],
                "Orders the appropriate test: Blood glucose")


# Round 30 (data/natural/dev/*-r30.yaml).
@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Lower abdominal discomfort", "Where is the pain, and does it come and go like cramps?", True),
    ("Lower abdominal discomfort", "Pain where?", True),
    ("Lower abdominal discomfort", "Where is the rash?", False),
    ("Lower abdominal discomfort", "Any pain?", False),
    ("Discomfort when wearing earrings", "Where is the pain?", False),
])
def test_where_the_pain_is_asks_a_finding_that_names_its_place(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("question", "asked"), [("Kindly tell me when the diarrhoea started.", True),
                                                 ("Kindly sit on the couch. Any fever?", False)])
def test_a_polite_request_to_tell_is_a_question(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about when the symptoms started"
    assert _asked(_imported("Watery diarrhea"), question, item) is asked
