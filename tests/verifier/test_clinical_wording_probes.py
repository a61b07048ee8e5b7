"""Plans a clinician would write that the grader missed when tried by hand (stop 48), each beside a lookalike that
does not do the clinical work: admitted to a team or a ward, "straight to casualty", "A and E", EMS, a blue-light
transfer, a hospital that is expecting the patient now; and "not settling" as a safety net's condition."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met

_ARRANGES = "Arranges immediate emergency assessment or admission"
_TELLS = "Tells the patient to get emergency care now"
_OVER_TRIAGE = "Sends the patient for emergency care"


@pytest.mark.parametrize("plan", [
    "I'm sending you straight up to the hospital; they'll put a tube in to reinflate the lung.",
    "You'll need to be admitted today so the lung can be re-expanded.",
    "The medical registrar will see you shortly, and you'll stay in overnight.",
    "You need to go straight to casualty.",
    "I've rung the hospital, they're expecting you; please go now, don't drive.",
    "You'll need a chest drain in hospital today - I'll arrange blue-light transfer.",
    "We'll admit you under the respiratory team and place a chest drain now.",
    "Needle aspiration now, then admit for observation.",
    "Chest drain now; admit to the respiratory ward.",
    "You need to be seen in hospital urgently today - go straight there.",
    "Go to A and E now.",
    "Admit to medicine, telemetry.",
    "Calling EMS now.",
    "Direct admit to the ward tonight.",
    "I want you in hospital tonight.",
    "Let's get you over to the hospital right now.",
    "You need an urgent hospital assessment today.",
])
def test_an_admission_or_the_emergency_department_in_other_words_is_emergency_care(plan: str) -> None:
    case = _case(final_diagnosis="Primary spontaneous pneumothorax", disposition="emergency")
    turns = [f"DIAGNOSIS: Primary spontaneous pneumothorax\n{plan}"]
    assert _met(case, turns, _ARRANGES)
    assert _met(case, turns, _TELLS)


@pytest.mark.parametrize("plan", [
    "Call an ambulance if you get more breathless.",  # a condition, not an arrangement
    "You can't go home yet; we'll talk again at your next appointment.",
    "The hospital is expecting you in the morning for your scan.",  # expected later
    "You'll be seen in the hospital clinic in six weeks.",  # in hospital, but not now
])
def test_a_plan_that_does_not_send_the_patient_now_is_not_emergency_care(plan: str) -> None:
    case = _case(final_diagnosis="Primary spontaneous pneumothorax", disposition="emergency")
    assert not _met(case, [f"DIAGNOSIS: Primary spontaneous pneumothorax\n{plan}"], _TELLS)


@pytest.mark.parametrize("plan", [
    "You won't need to go into hospital.",
    "You don't need to be admitted.",
    "You won't need admitting.",
    "No need for A and E.",
    "Did you go to casualty last time?",
    "The hospital will send you an appointment.",
    "I'll write to the hospital team for a routine appointment.",
])
def test_saying_no_hospital_is_not_over_triage(plan: str) -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition="routine")
    assert not _met(case, [f"DIAGNOSIS: Tension-type headache\n{plan}"], _OVER_TRIAGE)


def test_admitting_a_routine_problem_is_over_triage() -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition="routine")
    assert _met(case, ["DIAGNOSIS: Tension-type headache\nWe'll admit you under the medical team tonight."],
                _OVER_TRIAGE)


@pytest.mark.parametrize(("advice", "net"), [
    ("If it's not settling in a week, book another appointment.", True),
    ("If it hasn't settled by Friday, give us a ring.", True),
    ("It should settle in a week.", False),  # a prognosis, with no when-to-come-back
])
def test_not_settling_is_a_safety_net_s_condition(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition="routine")
    turns = [f"DIAGNOSIS: Tension-type headache\nPlan: regular exercise and fluids. {advice}"]
    assert _met(case, turns, "Gives safety-netting advice") is net


def _key_item(case, index: int) -> str:  # noqa: ANN001
    from rubric_gen.case_rubric import build_case_rubric

    wanted = case.key_questions[index].lower()
    return next(i.criterion for i in build_case_rubric(case).items if wanted in i.criterion.lower())


@pytest.mark.parametrize(("case_id", "index", "question", "asks"), [
    ("small-bowel-obstruction", 1, "Is the sick green?", True),  # the sick: the vomit, in lay words
    ("small-bowel-obstruction", 1, "Do you feel sick?", False),  # nausea, not the vomit's colour
    ("renal-colic", 1, "Any pink or red pee?", True),
    ("renal-colic", 1, "Any pain when you pee?", False),
    ("gerd", 3, "Does it come on when you walk uphill?", True),
    ("gerd", 3, "Does it come on after a big meal?", False),
    ("hypothyroidism", 0, "Always feeling chilly?", True),
    ("hypothyroidism", 0, "Any chills or fever?", False),
    ("croup", 2, "Could he have choked on a small toy?", True),
    ("migraine", 0, "How many headaches a month?", True),
    ("migraine", 0, "How bad are the headaches?", False),  # the headaches, but not how often
    ("generalised-anxiety", 0, "What sorts of things go round in your head?", True),
    ("generalised-anxiety", 0, "Any headaches?", False),
])
def test_lay_words_for_key_questions(case_id: str, index: int, question: str, asks: bool) -> None:
    from patient_sim.cases import project_cases

    case = next(c for c in project_cases() if c.id == case_id)
    turns = [question, f"DIAGNOSIS: {case.final_diagnosis}\nTreatment and review."]
    assert _met(case, turns, _key_item(case, index)) is asks


@pytest.mark.parametrize(("words", "empathic"), [
    ("It makes sense that you were scared.", True),
    ("Sounds like it's been a tough few weeks.", True),
    ("Anyone would be worn out by this.", True),
    ("This is hard to diagnose without a scan.", False),
    ("It makes sense to start with ibuprofen.", False),
])
def test_empathy_in_everyday_words(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition="routine")
    turns = [f"DIAGNOSIS: Tension-type headache\n{words} Plan: regular exercise and fluids."]
    assert _met(case, turns, "Acknowledges the patient's concerns") is empathic


@pytest.mark.parametrize(("final", "stated", "right"), [
    ("Acute appendicitis", "Acute appy", True),
    ("Acute cholecystitis", "Gallbladder infection", True),
    ("Acute cholecystitis", "Acute chole", True),
    ("Acute pyelonephritis", "Pyelo", True),
    ("Acute pyelonephritis", "Cystitis", False),
    ("Acute calculous cholecystitis", "Gallstones", False),  # the cause, not the infection
])
def test_ward_shorthand_for_a_diagnosis(final: str, stated: str, right: bool) -> None:
    from patient_sim.doctors import dialogue
    from verifier.rule_grader import final_diagnosis_match

    case = _case(final_diagnosis=final)
    assert final_diagnosis_match(dialogue(case, [f"DIAGNOSIS: {stated}"]), case).matched is right


def _asks_about_symptom(symptom: str, question: str, item_end: str | None = None) -> bool:
    """Whether ``question`` meets the item of an imported case with ``symptom`` on record whose criterion ends with
    ``item_end`` (by default the symptom itself: asked about, or looked for)."""
    from rubric_gen.case_rubric import build_case_rubric

    case = _case(final_diagnosis="Migraine", source="agentclinic", secondary_symptoms=[symptom, "Fever"])
    end = (item_end or symptom).lower()
    criterion = next(i.criterion for i in build_case_rubric(case).items if i.criterion.lower().endswith(end))
    return _met(case, [question, "DIAGNOSIS: Migraine\nTreatment and review."], criterion)


@pytest.mark.parametrize(("symptom", "question", "asks"), [
    ("Hematochezia", "Any bright red blood when you go to the toilet?", True),
    ("Hematochezia", "Any bright red blood in your vomit?", False),
    ("Memory loss", "Any trouble remembering things?", True),
    ("Memory loss", "Any trouble sleeping?", False),
    ("Difficulty walking", "Any problems walking?", True),
    ("Difficulty walking", "Any problems with your eyes?", False),
    ("Apathy", "Does he seem not to care about anything?", True),
    ("Apathy", "Does he care for himself at home?", False),
])
def test_lay_words_for_a_record_s_symptoms(symptom: str, question: str, asks: bool) -> None:
    assert _asks_about_symptom(symptom, question) is asks


@pytest.mark.parametrize(("order", "label", "named"), [
    ("U/A", "Urinalysis", True),
    ("DVT scan", "Leg ultrasound", True),
    ("DVT scan", "Abdominal ultrasound", False),  # the leg's, not any ultrasound
    ("U/A", "Urine culture", False),
])
def test_orders_tried_by_hand(order: str, label: str, named: bool) -> None:
    from verifier.clinical.orders import resolve

    assert (label in resolve(order, [label]).named) is named


_HISTORY = "Any history of asthma, stroke, a hernia, diabetes, COPD, epilepsy, gout, lupus or gallstones?"


@pytest.mark.parametrize(("plan", "considered"), [
    # the history's conditions are asked about, not listed as diagnoses (round 15's renal colic, with "pyelo" and "appy")
    ("Ddx included AAA, pyelo, appy and diverticulitis; the CT doesn't support any of those.", True),
    # a list stated outright is still a list
    ("It could be AAA, pyelonephritis, appendicitis, diverticulitis, cholecystitis, pancreatitis, gastroenteritis, "
     "bowel obstruction, an ovarian cyst, endometriosis or a hernia.", False),
])
def test_a_differential_beside_a_long_history(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Renal colic", differential=["Pyelonephritis", "Abdominal aortic aneurysm"])
    turns = [_HISTORY, f"DIAGNOSIS: Renal colic\n{plan}"]
    assert _met(case, turns, "Considers a relevant differential") is considered


@pytest.mark.parametrize(("question", "asked"), [
    ("Are you on anything regularly?", True),
    ("Is there anything you can't take?", True),
    ("Any problems with penicillin?", True),
    ("Do you take sugar in your tea?", False),
    ("Are you on the waiting list?", False),
])
def test_medicines_and_allergies_in_a_gp_s_words(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition="routine")
    turns = [question, "DIAGNOSIS: Tension-type headache\nIbuprofen 400 mg three times a day."]
    assert _met(case, turns, "Asks about allergies or current medications") is asked


def test_a_history_question_naming_many_conditions_does_not_consider_the_differential() -> None:
    case = _case(final_diagnosis="Renal colic", differential=["Pyelonephritis", "Abdominal aortic aneurysm"])
    stuffed = ("Any history of asthma, stroke, a hernia, diabetes, COPD, epilepsy, gout, lupus, gallstones, "
               "pyelonephritis or an aortic aneurysm?")
    assert not _met(case, [stuffed, "DIAGNOSIS: Renal colic\nPainkillers and review."], "Considers a relevant differential")
    # under the cap, a question that weighs a rival still considers it
    assert _met(case, ["Could this be a kidney infection?", "DIAGNOSIS: Renal colic\nPainkillers and review."],
                "Considers a relevant differential")


@pytest.mark.parametrize(("plan", "prompt"), [
    ("First dose of flucloxacillin before you leave, review in two days.", True),
    ("I'd like the hospital's ambulatory care unit to see you this afternoon.", True),
    ("Come back first thing tomorrow so I can check it.", True),
    ("Flucloxacillin for a week, see me in a fortnight.", False),
    ("Rest and elevate the leg; routine review in a month.", False),
])
def test_a_prompt_review_in_a_gp_s_words(plan: str, prompt: bool) -> None:
    case = _case(final_diagnosis="Cellulitis", disposition="urgent")
    assert _met(case, [f"DIAGNOSIS: Cellulitis\n{plan}"], "Plans prompt (same-day)") is prompt


def test_saying_an_emergency_cannot_wait_is_not_reassurance() -> None:
    case = _case(final_diagnosis="Primary spontaneous pneumothorax", disposition="emergency")
    reassures = "Reassures the patient that this emergency"
    assert not _met(case, ["DIAGNOSIS: Primary spontaneous pneumothorax\nIt's not something that can wait - you need "
                           "to go to A&E now."], reassures)
    assert _met(case, ["DIAGNOSIS: Primary spontaneous pneumothorax\nIt's nothing serious and can wait until Monday."],
                reassures)


@pytest.mark.parametrize(("disposition", "dangerous"), [("routine", False), ("urgent", True), ("emergency", True)])
def test_waiting_and_seeing_is_dangerous_only_where_the_problem_cannot_wait(disposition: str, dangerous: bool) -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition=disposition)
    turns = ["DIAGNOSIS: Tension-type headache\nWait and see for a week, and come back if not settling."]
    assert _met(case, turns, "Recommends a dangerous action") is dangerous


def test_driving_yourself_stays_dangerous_for_a_routine_problem() -> None:
    case = _case(final_diagnosis="Tension-type headache", disposition="routine")
    assert _met(case, ["DIAGNOSIS: Tension-type headache\nDrive yourself to the pharmacy and double the dose."],
                "Recommends a dangerous action")


@pytest.mark.parametrize(("order", "label", "named"), [
    ("scrotal exam", "Genital exam", True),
    ("examine the testicles", "Genital exam", True),
    ("scrotal exam", "Abdominal exam", False),
])
def test_an_examination_of_a_part_of_the_genitalia(order: str, label: str, named: bool) -> None:
    from verifier.clinical.orders import resolve

    assert (label in resolve(order, [label], exam=True).named) is named


@pytest.mark.parametrize(("question", "asks"), [
    ("Has it been weeks or months?", True),
    ("When did it kick off?", True),
    ("When is your next appointment?", False),
])
def test_how_long_it_has_been_going_on(question: str, asks: bool) -> None:
    assert _asks_about_symptom("Photophobia", question, "when the symptoms started") is asks


def _addresses_red_flag(case_id: str, flag: str, question: str) -> bool:
    from patient_sim.cases import project_cases

    case = next(c for c in project_cases() if c.id == case_id)
    turns = [question, f"DIAGNOSIS: {case.final_diagnosis}\nTreatment and review."]
    return _met(case, turns, f"Asks about or addresses the red flag: {flag}")


@pytest.mark.parametrize(("case_id", "flag", "question", "addressed"), [
    ("upper-gi-bleed", "Black stools", "Any dark, tarry poo?", True),
    ("upper-gi-bleed", "Black stools", "Any tummy pain?", False),
    ("renal-colic", "Uncontrolled pain", "Is the pain under control with what you've taken?", True),
    ("gerd", "Difficulty swallowing", "Does food get stuck?", True),
    ("subarachnoid-haemorrhage", "Thunderclap onset", "Did it hit you like a blow to the head?", True),
    ("knee-osteoarthritis", "Night pain", "Does it keep you up at night?", True),
    ("knee-osteoarthritis", "Night pain", "Does it keep you from walking far?", False),
])
def test_red_flags_in_everyday_words(case_id: str, flag: str, question: str, addressed: bool) -> None:
    assert _addresses_red_flag(case_id, flag, question) is addressed


def test_kept_up_at_night_is_sleep_not_nocturia() -> None:
    from verifier import clinical

    assert "sleep" in clinical.concepts("Does it keep you up at night?")
    assert "nocturia" not in clinical.concepts("Does it keep you up at night?")
    assert "nocturia" in clinical.concepts("Are you up at night to pee?")
