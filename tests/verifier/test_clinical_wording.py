"""Clinical wording found in natural consultations the case authors did not write: each good wording earns
its item through the real grader, and a lookalike that does not do the clinical work earns nothing."""

from __future__ import annotations

import pytest

from patient_sim.doctors import dialogue
from rubric_gen.case_rubric import build_case_rubric
from verifier import clinical
from verifier.rule_grader import RuleGrader
from verifier.types import Case, Demographics


def _case(**fields: object) -> Case:
    base: dict[str, object] = {"id": "x", "chief_complaint": "Unwell", "history_of_present_illness": "Unwell for a day.",
                               "demographics": Demographics(age=50, sex="female"), "final_diagnosis": "Migraine"}
    return Case.model_validate({**base, **fields})


def _met(case: Case, turns: list[str], prefix: str) -> bool:
    """Whether the rubric item of ``case`` whose criterion starts with ``prefix`` is met by the doctor turns."""
    results = RuleGrader().grade_sync(dialogue(case, turns), build_case_rubric(case).items)
    chosen = [r for r in results if r.criterion.startswith(prefix)]
    assert chosen, f"no item starts with {prefix!r}: {[r.criterion for r in results]}"
    return bool(chosen[0].met)


_DIFFERENTIAL = "Considers a relevant differential"


@pytest.mark.parametrize(("final", "differential", "considered"), [
    ("Gastro-oesophageal reflux disease", "Peptic ulcer disease", "I considered a stomach ulcer, but"),
    ("Pulmonary embolism", "Acute coronary syndrome", "I considered a heart attack, but"),
    ("Pulmonary embolism", "Pneumonia", "I did think about a chest infection, but"),
    ("Upper gastrointestinal bleed", "Oesophageal varices", "Varices considered; the scope shows an ulcer."),
    ("Acute gout", "Septic arthritis", "I did worry about infection in the joint, but"),
    ("Deep vein thrombosis", "Ruptured Baker cyst", "Baker's cyst considered; the scan confirms the clot."),
    ("Acute otitis media", "Viral upper respiratory tract infection", "I considered a simple viral cold, but"),
])
def test_a_differential_is_considered_in_the_words_clinicians_use(final: str, differential: str,
                                                                  considered: str) -> None:
    case = _case(final_diagnosis=final, differential=[differential, "Anxiety"])
    assert _met(case, [f"DIAGNOSIS: {final}\n{considered} the findings fit {final}."], _DIFFERENTIAL)
    assert not _met(case, [f"DIAGNOSIS: {final}\nThe findings fit {final}."], _DIFFERENTIAL)


def test_a_broad_lay_name_considers_a_differential_but_is_not_the_diagnosis() -> None:
    """'A chest infection' weighs pneumonia, but stated as the final diagnosis it is too vague to act on."""
    case = _case(final_diagnosis="Pneumonia", differential=["Pulmonary embolism"])
    assert not _met(case, ["DIAGNOSIS: Chest infection\nAntibiotics."], "States the correct final diagnosis")
    assert _met(case, ["DIAGNOSIS: Pneumonia\nAntibiotics."], "States the correct final diagnosis")
    assert "chest infection" not in clinical.diagnosis_names(["Pneumonia"])
    assert "chest infection" in clinical.considered_names("Pneumonia")


def test_a_lay_description_of_the_rhythm_asks_whether_it_is_regular() -> None:
    case = _case(final_diagnosis="Atrial fibrillation", key_questions=["Is the heartbeat regular or irregular?",
                                                                       "Any chest pain?", "Any breathlessness?"])
    item = "Before giving a diagnosis, asks: Is the heartbeat regular"
    assert _met(case, ["Does your heart feel like it's beating regularly, or all over the place?"], item)
    assert not _met(case, ["Do you exercise regularly?"], item)


@pytest.mark.parametrize(("question", "key"), [
    ("Has anyone you live with or been close to been ill?", "unwell"),
    ("Is he still drinking OK?", "fluid_intake"),
    ("Is he drowsier than usual?", "drowsiness"),
    ("Any pain in your back or sides?", "loin"),
    ("Does it wake her at night?", "sleep"),
    ("Have you used anything new on your skin, or been in contact with plants?", "exposures"),
    ("Otherwise, is he himself? No weight loss?", "systemic"),
])
def test_lay_words_reach_their_concept(question: str, key: str) -> None:
    assert key in clinical.asked(question), (question, sorted(clinical.asked(question)))


def test_lay_words_do_not_reach_a_concept_they_do_not_mean() -> None:
    assert "fluid_intake" not in clinical.asked("How much do you drink in a week?")
    assert "loin" not in clinical.asked("Which side is it on?")
    assert "exposures" not in clinical.asked("When did it start?")


def test_a_burning_pain_asked_as_a_verb_asks_its_character() -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease",
                 key_questions=["When does the burning happen?", "Any trouble swallowing?", "Any weight loss?"])
    item = "Before giving a diagnosis, asks: When does the burning happen"
    assert _met(case, ["When does it burn? After meals? Lying down?"], item)
    assert not _met(case, ["Any trouble swallowing?"], item)


def test_a_finding_with_a_qualifier_the_layer_does_not_know_is_asked_about_by_what_it_knows() -> None:
    case = _case(final_diagnosis="Benign paroxysmal positional vertigo", source="agentclinic",
                 secondary_symptoms=["Hearing loss besides presbycusis", "Nausea"])
    item = "Before giving a diagnosis, asks about hearing loss"
    assert _met(case, ["How's your hearing? Any change in one ear?"], item)
    assert not _met(case, ["Besides that, anything else?"], item)


@pytest.mark.parametrize(("order", "label"), [
    ("PR", "Rectal exam"),
    ("LLE venous duplex", "Leg ultrasound"),
])
def test_clinical_shorthand_in_an_order_names_the_test(order: str, label: str) -> None:
    assert clinical.resolve(order, [label], exam=True).named == (label,)


def test_pr_outside_an_order_is_not_a_rectal_examination() -> None:
    assert "site:rectum" not in clinical.terms("What was the PR interval?")


def test_a_bracketed_aside_does_not_turn_an_order_into_a_list() -> None:
    """A long order whose aside clarifies the test still names it; tests packed into the aside name nothing."""
    case = _case(final_diagnosis="Perthes disease", recommended_tests=["X-ray Left Hip", "FBC"])
    assert _met(case, ["REQUEST TEST: X-ray of the left hip (front and frog-leg views)"],
                "Orders the appropriate test: X-ray Left Hip")
    assert not _met(case, ["REQUEST TEST: X-ray of the left hip (FBC CRP ESR ECG troponin CT MRI echo)"],
                    "Orders the appropriate test: FBC")


def test_concept_ids_are_unique() -> None:
    import yaml

    from verifier.clinical.data import LANGUAGE_FILE

    ids = [c["id"] for c in yaml.safe_load(LANGUAGE_FILE.read_text(encoding="utf-8"))["concepts"]]
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_a_chemistry_panel_ordered_in_two_lines_is_ordered() -> None:
    """An imported case's chemistry results (glucose, creatinine, liver enzymes) are one test; ordered over
    two lines they are all ordered, and the first line alone leaves the liver enzymes out."""
    case = _case(final_diagnosis="Thyroglossal duct cyst", source="agentclinic",
                 test_results={"Serum Chemistry > Glucose": "5.1", "Serum Chemistry > Creatinine": "80",
                               "Serum Chemistry > Liver Enzymes": "Normal"})
    item = "Orders the appropriate test: Serum Chemistry"
    assert _met(case, ["REQUEST TEST: Glucose, creatinine", "REQUEST TEST: LFTs"], item)
    assert not _met(case, ["REQUEST TEST: Glucose, creatinine"], item)


@pytest.mark.parametrize(("stated", "right"), [
    ("Upper GI bleed - bleeding duodenal ulcer with a visible vessel", True),  # the case's names, twice
    ("Interstitial cystitis / bladder pain syndrome", True),  # one condition's two names
    ("Upper GI bleed - oesophageal varices", False),  # a rival
    ("Interstitial cystitis / urinary tract infection", False),
])
def test_one_condition_named_twice_is_one_diagnosis_and_two_are_a_list(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Upper gastrointestinal bleed from a duodenal ulcer" if "GI" in stated
                 else "Interstitial cystitis",
                 diagnosis_synonyms=["upper GI bleed", "bleeding duodenal ulcer"] if "GI" in stated else [],
                 differential=["Oesophageal varices", "Urinary tract infection"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nTreatment today."], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("plan", "emergency"), [
    ("Hb 78, pulse 118. Emergency: admitted now. IV fluids and a scope.", True),
    ("Low oxygen, fast pulse: emergency, admitted now.", True),
    ("This is a medical emergency and treatment is starting right now.", True),
    ("Fever, worse pain or vomiting: A&E.", False),  # safety-netting
    ("Keep active; physio if no better in two weeks.", False),
])
def test_an_emergency_treated_now_is_recognised_in_terse_plans(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Pulmonary embolism", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Pulmonary embolism\n{plan}"], "Tells the patient to get emergency care now") is emergency


# --------------------------------------------------------------------------- found on a dev set (2026-12-02, round 3)
_NET = "Gives safety-netting advice"


@pytest.mark.parametrize("advice", [
    "Come straight back to A&E if you get a fever or shivers, or you stop passing pee.",  # the help first
    "See me sooner if food sticks or you lose weight.",
    "Straight back to ED if fever or rigors, pain uncontrolled, or not passing urine.",
    "Return promptly if the finger becomes numb, pale or cold.",
    "Ring 999 for chest pain with exertion or spreading to your arm.",  # "for" a symptom, urgently
    "Call 911 for worsening SOB, new or severe CP, or fainting.",
    "Get seen sooner for trouble swallowing, wt loss or black stools.",
    "Return sooner: dysphagia, weight loss, vomiting, black stools.",
    "New vision loss, diplopia or stroke sx like facial droop - call 911.",  # clipped, with a dash
    "Fever, spreading redness or no better in 2-3 days: call us same day or 111.",
    "Numb, pale, cold, or hot and red: come straight back.",
    "Bluer, floppy, breathing pauses: call the nurse.",
])
def test_safety_netting_with_the_help_first_or_clipped_is_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize("advice", [
    "Come back in two weeks for a review.",  # follow-up, not a condition
    "Come in now for your scan.",
    "Call 999 now for an ambulance; you need the emergency department.",  # care named after "for"
    "Imaging: US abdomen.",  # "US" is an ultrasound
    "Plan: call the surgeons.",
    "I'm sending you to the ED for a CT scan.",
])
def test_a_referral_or_an_appointment_is_not_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert not _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize(("plan", "over_triage"), [
    ("Omeprazole for 8 weeks. Call 911 for CP with exertion, SOB or sweating.", False),  # a condition after "for"
    ("Omeprazole for 8 weeks. Go to the ER for heavy bleeding or fainting.", False),
    ("Go to the ED for IV antibiotics now.", True),  # the care after "for": a referral
    ("I'm calling an ambulance for you now.", True),
])
def test_call_911_for_a_symptom_is_a_condition_not_a_referral(plan: str, over_triage: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"], "Sends the patient for emergency care") \
        is over_triage


@pytest.mark.parametrize(("plan", "emergency"), [
    ("Plan - emergent, starting now: two large-bore IVs, crossmatch.", True),  # the American word
    ("Stat OB/GYN to the OR for laparoscopic salpingectomy.", True),
    ("This is a cardiac emergency: I'm activating the cath lab right now.", True),  # the head says it
    ("Emergency. Now: aspirin, second antiplatelet, cath lab.", True),
    ("Now: resus area, IV saline, fixed-rate insulin.", True),
    ("Plan: emergency. Theatre within the hour.", True),
    ("This is non-emergent; follow up in clinic.", False),
    ("This is not an emergency; follow up in clinic.", False),
    ("Worse pain or fainting: emergency.", False),  # a condition, then where to go
])
def test_an_emergent_plan_is_an_emergency_now(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Ectopic pregnancy", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Ectopic pregnancy\n{plan}"], "Tells the patient to get emergency care now") is emergency


@pytest.mark.parametrize("said", ["I know this is a lot to take in.", "Hard news - I'm sorry.", "Rotten pain, I know.",
                                  "Thanks for trusting me with this.", "This is a real shock, and not your fault."])
def test_empathy_in_a_clinician_s_everyday_words(said: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {said}"], "Acknowledges the patient's concerns")
    assert not _met(case, ["DIAGNOSIS: Migraine\nRest and fluids. Septic shock is not likely."],
                    "Acknowledges the patient's concerns")


@pytest.mark.parametrize(("question", "onset"), [
    ("Speech - when?", True), ("Walk me through the timeline.", True), ("Which came first, the rash or the fever?", True),
    ("Bladder first or legs first?", True), ("How did the finger get hurt?", True),
    ("What colour is it?", False), ("Is it worse at night?", False),
])
def test_a_timeline_question_asks_the_onset(question: str, onset: bool) -> None:
    assert (clinical.INTENT + "onset" in clinical.intents(question)) is onset


def test_a_diagnosis_that_states_two_of_the_case_s_names_is_one_diagnosis() -> None:
    case = _case(final_diagnosis="Rupture of the flexor digitorum profundus tendon",
                 diagnosis_synonyms=["jersey finger"], differential=["Mallet finger"])
    item = "States the correct final diagnosis"
    assert _met(case, ["DIAGNOSIS: Jersey finger: rupture of the flexor digitorum profundus tendon, right ring "
                       "finger\nSplint."], item)
    assert not _met(case, ["DIAGNOSIS: Jersey finger or mallet finger\nSplint."], item)


# --------------------------------------------------------------------------- found on a dev set (2026-12-02, round 4)
@pytest.mark.parametrize("advice", [
    "If the knee gets much more painful or looks deformed, the bone may have broken. Go to A&E straight away.",
    "Seek urgent care for fainting, facial weakness or trouble swallowing.",
    "Seen same day if: spreading to legs, sleepy, poor feeding.",
    "Same day or A&E if: fever, shivers, breathless.",
    "Sooner if: more frequent, daytime anxiety, confusion on waking.",
    "More fits, apnoeas, colour change - call nurse immediately.",
    "Post-op, return to the ED for fever or worsening swelling.",
    "Post-op: fever, swelling, worsening pain, come back.",
    "Press the buzzer at once if she has a pause in breathing.",
])
def test_safety_netting_across_sentences_lists_and_wards_is_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize("advice", [
    "If she agrees, we will start treatment. Call the pharmacy for the prescription.",  # a condition, no help
    "If it suits you, we can meet again. Return to clinic in six weeks.",
    "Take the tablets twice daily, then come back in six weeks.",  # follow-up
])
def test_a_plan_after_an_if_is_not_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert not _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize("said", ["Tough to live with; we'll tackle it.", "This can be exhausting for families.",
                                  "It isn't caused by anything you've done.", "You're doing a great job.",
                                  "Well done bringing her in.", "I'm really glad the treatment is helping."])
def test_empathy_that_acknowledges_the_burden_or_the_parent(said: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {said}"], "Acknowledges the patient's concerns")
    assert not _met(case, ["DIAGNOSIS: Migraine\nRest and fluids. Treatable; most do well."],
                    "Acknowledges the patient's concerns")  # reassurance alone is not empathy


@pytest.mark.parametrize(("stated", "right"), [
    ("Dumping syndrome (late dumping with postprandial hypoglycemia) s/p sleeve gastrectomy", True),  # shorthand
    ("Dumping syndrome 2/2 sleeve gastrectomy", True),
    ("Dumping syndrome / peptic ulcer", False),  # a slash between two conditions is still a list
])
def test_clinical_shorthand_with_a_slash_is_not_a_list(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Dumping syndrome", differential=["Peptic ulcer"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nSmall frequent meals."], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("plan", "emergency"), [
    ("Plan: surgeons now. Nil by mouth. IV fluids.", True),  # the acute team called to the bedside now
    ("IV ceftriaxone given stat. ICU now. Admit.", True),
    ("I'm asking the surgical team to see you right now.", True),
    ("I'll refer you to the surgeons urgently for a clinic appointment.", False),  # a fast-track referral
    ("The surgeons will see you in clinic in six weeks; no need for ICU now.", False),
])
def test_the_acute_team_called_now_is_emergency_care_now(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Acute appendicitis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute appendicitis\n{plan}"], "Tells the patient to get emergency care now") \
        is emergency


def test_urgent_help_qualified_by_an_if_after_a_comma_is_safety_netting_not_over_triage() -> None:
    case = _case(final_diagnosis="Iron deficiency anaemia", disposition="routine")
    plan = "Ferrous sulphate daily. Please come back sooner, or seek urgent help, if you get chest pain or feel faint."
    assert not _met(case, [f"DIAGNOSIS: Iron deficiency anaemia\n{plan}"], "Sends the patient for emergency care")
    assert _met(case, ["DIAGNOSIS: Iron deficiency anaemia\nSeek urgent help now: we are calling an ambulance."],
                "Sends the patient for emergency care")


@pytest.mark.parametrize(("plan", "prompt"), [
    ("She's hypoxic and feeding poorly, so we're admitting her to the children's ward.", True),
    ("Saline drops and small frequent feeds; review with the GP next month.", False),
])
def test_admission_is_prompt_assessment_for_an_urgent_case(plan: str, prompt: bool) -> None:
    case = _case(final_diagnosis="Bronchiolitis", disposition="urgent")
    assert _met(case, [f"DIAGNOSIS: Bronchiolitis\n{plan}"], "Plans prompt (same-day) assessment") is prompt


def test_a_delayed_prescription_is_a_management_plan() -> None:
    case = _case(final_diagnosis="Acute otitis media", disposition="routine")
    assert _met(case, ["DIAGNOSIS: Acute otitis media\nCalpol, fluids. Delayed amoxicillin prescription if no better."],
                "Gives a clear management plan")
    assert not _met(case, ["DIAGNOSIS: Acute otitis media\nIt is a common problem."], "Gives a clear management plan")


@pytest.mark.parametrize(("differential", "said", "considered"), [
    ("Coeliac disease", "The coeliac screen is negative.", True),  # weighed by its test
    ("Hypothyroidism", "Thyroid and blood count are normal.", True),
    ("Bowel cancer", "No weight loss or bleeding, so GI malignancy is unlikely.", True),
    ("Adjustment disorder", "It has gone beyond a simple adjustment reaction.", True),
    ("Ruptured Baker cyst", "I wondered about a burst cyst behind the knee.", True),
    ("Coeliac disease", "Iron tablets daily; recheck the blood count in four weeks.", False),
])
def test_a_differential_weighed_by_its_test_or_everyday_name_is_considered(differential: str, said: str,
                                                                            considered: bool) -> None:
    case = _case(final_diagnosis="Iron deficiency anaemia", differential=[differential])
    assert _met(case, [f"DIAGNOSIS: Iron deficiency anaemia\n{said} Iron tablets."], _DIFFERENTIAL) is considered


@pytest.mark.parametrize(("question", "key"), [("Tmax at home?", "fever"), ("Highest temp?", "fever")])
def test_an_american_temperature_question_asks_about_fever(question: str, key: str) -> None:
    assert key in clinical.asked(question)


@pytest.mark.parametrize(("order", "label"), [
    ("BCx x2", "Blood Tests > Blood Culture"), ("maternal group", "Additional Tests > Maternal Blood Group"),
    ("Shave biopsy of lesion", "Skin Biopsy > Findings"), ("Punch biopsy", "Skin Biopsy > Findings"),
])
def test_order_shorthand_names_the_result(order: str, label: str) -> None:
    assert clinical.resolve(order, [label, "Imaging > Chest X-ray"]).named == (label,)


def test_looking_ill_is_a_sign_seen_by_measuring_not_a_question() -> None:
    assert clinical.is_sign("Appears ill") and "test:vital_signs" in clinical.found_by("Appears ill")[0]
    assert not clinical.is_sign("Feeling ill")  # how the patient feels is asked


def test_a_note_in_the_results_is_not_a_test_to_order() -> None:
    case = _case(test_results={"Additional Tests > Suggestion": "An MRI could be considered.",
                               "Imaging > MRI Brain > Findings": "Normal"})
    criteria = [i.criterion for i in build_case_rubric(case).items]
    assert not any("Suggestion" in c for c in criteria) and any("MRI Brain" in c for c in criteria), criteria


# --------------------------------------------------------------------------- found on a dev set (2026-12-02, round 5)
@pytest.mark.parametrize(("stated", "right"), [
    ("Acute ischaemic stroke, left MCA occlusion, cardioembolic (AF, off anticoagulation)", True),  # an aside
    ("Acute ischaemic stroke (or intracerebral haemorrhage, hypoglycaemia)", False),  # a hedge inside brackets
    ("Acute ischaemic stroke, intracerebral haemorrhage", False),
])
def test_commas_inside_a_bracketed_aside_do_not_make_a_list(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Acute ischaemic stroke", diagnosis_synonyms=["stroke"],
                 differential=["Intracerebral haemorrhage", "Hypoglycaemia"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nThrombolysis."], "States the correct final diagnosis") is right


@pytest.mark.parametrize("plan", [
    "Plan: admit to step-down/ICU. Transfuse, IV PPI.", "Plan: admit, HDU. Transfuse.", "Plan: admit. O2. LMWH.",
    "The cath lab is ready for primary angioplasty.", "You're going straight to the heart lab to open the artery.",
    "Within window. Thrombolysis now. Straight to thrombectomy.", "We're giving you TNK now.",
])
def test_emergency_care_given_in_the_department_is_emergency_care_now(plan: str) -> None:
    case = _case(final_diagnosis="Acute ischaemic stroke", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute ischaemic stroke\n{plan}"], "Tells the patient to get emergency care now")


@pytest.mark.parametrize(("plan", "over_triage"), [
    ("Omeprazole 20 mg. Any chest pain with sweating or breathlessness - call 999.", False),  # clipped condition
    ("Omeprazole 20 mg. Any CP with exertion, SOB or sweating \u2014 call 911.", False),
    ("Nitrofurantoin. Go to urgent care or the ED same day for fever, flank pain or vomiting.", False),
    ("Constant vertigo, headache, weakness, can't walk - A&E.", False),
    ("Plan: admit.", True),  # admitting a routine problem is over-triage
    ("This is serious - call 999 now.", True),
])
def test_a_clipped_condition_before_a_dash_is_safety_netting_not_over_triage(plan: str, over_triage: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"],
                "Sends the patient for emergency care") is over_triage


@pytest.mark.parametrize(("question", "key"), [
    ("Any trouble getting food down, or feeling it stick?", "swallowing"),
    ("Any change in colour, black or sticky like tar?", "melaena"),
    ("So a new HA - when did it start?", "headache"),
    ("Goes where?", clinical.INTENT + "radiation"),
    ("Any blood or slime in it?", "mucus"), ("Urgency, mucus, tenesmus?", "mucus"),
    ("You've been feeling shivery and rough with it?", "unwell"),
])
def test_round_five_wordings_ask_what_they_mean(question: str, key: str) -> None:
    assert key in clinical.asked(question)
    assert "headache" not in clinical.asked("Has the pain gone?")  # "has" is not a plural of HA


@pytest.mark.parametrize(("stated", "right"), [
    ("Sciatica due to L4/5 disc prolapse", True),  # the presentation, with the diagnosis as its cause
    ("Lumbar radiculopathy from an L5-S1 disc herniation", True),
    ("Left L5/S1 disc herniation (sciatica)", True),  # a spinal level's slash is not a list
    ("Sciatica due to spinal stenosis", False),  # the cause is a rival
    ("Sciatica due to disc herniation or spinal stenosis", False),  # a hedge in the cause
    ("Migraine due to disc herniation", False),  # a rival condition stands first
])
def test_a_presentation_stated_with_the_diagnosis_as_its_cause_names_it(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Disc herniation", differential=["Spinal stenosis"])
    assert _met(case, [f"DIAGNOSIS: {stated}\nPhysiotherapy."], "States the correct final diagnosis") is right


# --------------------------------------------------------------------------- found on a dev set (2026-12-02, round 6)
def test_the_plan_is_read_in_the_final_message_not_in_the_history() -> None:
    case = _case(final_diagnosis="Streptococcal tonsillitis", disposition="routine")
    item = "Gives a clear management plan"
    assert _met(case, ["How many days? Any cough?", "DIAGNOSIS: Streptococcal tonsillitis\nPenicillin V, 10 days."], item)
    assert _met(case, ["DIAGNOSIS: Streptococcal tonsillitis\nLooked after at home: fluids and paracetamol."], item)
    # plan words in a history question are not a plan
    assert not _met(case, ["Have you had any treatment? Started any tablets?",
                           "DIAGNOSIS: Streptococcal tonsillitis\nIt is a common infection."], item)


@pytest.mark.parametrize(("plan", "prompt"), [
    ("Diclofenac injection now, then tamsulosin.", True),  # treated in the department now
    ("She needs to stay in hospital on oxygen.", True),
    ("Tamsulosin; the urology clinic will write with a date.", False),
])
def test_care_given_now_or_in_hospital_is_prompt_for_an_urgent_case(plan: str, prompt: bool) -> None:
    case = _case(final_diagnosis="Left ureteric stone", disposition="urgent")
    assert _met(case, [f"DIAGNOSIS: Left ureteric stone\n{plan}"], "Plans prompt (same-day) assessment") is prompt


def test_in_an_emergency_is_a_condition_and_an_accepted_bed_is_emergency_care() -> None:
    routine = _case(final_diagnosis="Depression", disposition="routine")
    assert not _met(routine, ["DIAGNOSIS: Depression\nSertraline. In an emergency, call 999 or go straight to A&E."],
                    "Sends the patient for emergency care")
    emergency = _case(final_diagnosis="Bacterial meningitis", disposition="emergency")
    assert _met(emergency, ["DIAGNOSIS: Bacterial meningitis\nCeftriaxone is running. MICU has accepted you."],
                "Tells the patient to get emergency care now")
    assert _met(emergency, ["DIAGNOSIS: Bacterial meningitis\nThe intensive care team are on their way down to take "
                            "you up now."], "Tells the patient to get emergency care now")


@pytest.mark.parametrize(("question", "asked"), [
    ("Fever since?", True), ("6 mo of cough and fevers - productive?", True), ("Fever and confusion x2 days?", True),
    ("Cough productive?", False),
])
def test_a_terse_or_restated_timeline_asks_the_onset(question: str, asked: bool) -> None:
    assert (clinical.INTENT + "onset" in clinical.intents(question)) is asked


def test_an_imported_painful_symptom_is_asked_about_as_pain() -> None:
    case = _case(secondary_symptoms=["Pain associated with the mass", "Mass in the neck", "Mass growing slowly"])
    item = "Before giving a diagnosis, asks about pain associated with the mass"
    assert _met(case, ["Does the lump hurt?", "DIAGNOSIS: Migraine\nRest."], item)
    assert not _met(case, ["Is the lump growing?", "DIAGNOSIS: Migraine\nRest."], item)


@pytest.mark.parametrize(("order", "label", "exam"), [
    ("TSH", "Blood Tests > Thyroid function", False),  # one member fills thyroid function
    ("Rapid antigen test for group A strep", "Rapid strep test", False),
    ("R 1st MTP exam", "Joint exam", True),
])
def test_round_six_orders_name_their_result(order: str, label: str, exam: bool) -> None:
    assert clinical.resolve(order, [label], exam=exam).named == (label,)


def test_a_long_order_is_read_up_to_its_colon() -> None:
    case = _case(final_diagnosis="Acute gout", recommended_tests=["Joint aspiration"])
    order = "REQUEST TEST: arthrocentesis R 1st MTP: synovial fluid crystal analysis under polarized light"
    assert _met(case, [order, "DIAGNOSIS: Acute gout\nColchicine."], "Orders the appropriate test: Joint aspiration")
    assert not _met(case, ["REQUEST TEST: X-ray of the foot: two views, weight bearing, both sides compared",
                           "DIAGNOSIS: Acute gout\nColchicine."], "Orders the appropriate test: Joint aspiration")


@pytest.mark.parametrize(("order", "label"), [
    ("US-guided core needle bx", "Biopsy > Microscopic Description"), ("utox", "Urine Toxicology"),
    ("pelvic/abd US", "Abdominal Ultrasound > Findings"),
    ("Excision biopsy of the chest lesion", "Skin Biopsy > Histopathology > Findings"),
])
def test_order_abbreviations_of_round_six(order: str, label: str) -> None:
    assert clinical.resolve(order, [label]).named == (label,)


def test_a_long_order_is_read_up_to_its_purpose() -> None:
    case = _case(final_diagnosis="Pyoderma gangrenosum", recommended_tests=["Skin biopsy"])
    order = "REQUEST TEST: Skin biopsy from the ulcer edge for histology and culture, please, today"
    assert _met(case, [order, "DIAGNOSIS: Pyoderma gangrenosum\nSteroids."], "Orders the appropriate test: Skin biopsy")


@pytest.mark.parametrize(("turns", "addressed"), [
    (["Where is the pain?", "DIAGNOSIS: Left ureteric stone\nNSAID now. Come straight back if the pain isn't "
      "controlled by the tablets or is uncontrolled overnight."], True),  # addressed in the safety-netting
    (["Is the pain controlled by painkillers?", "DIAGNOSIS: Left ureteric stone\nNSAID now."], True),  # asked
    (["Where is the pain?", "DIAGNOSIS: Left ureteric stone\nNSAID now. Drink plenty."], False),
])
def test_a_red_flag_is_asked_about_or_addressed(turns: list[str], addressed: bool) -> None:
    case = _case(final_diagnosis="Left ureteric stone", red_flags=["Uncontrolled pain"], disposition="urgent")
    assert _met(case, turns, "Asks about or addresses the red flag: Uncontrolled pain") is addressed
