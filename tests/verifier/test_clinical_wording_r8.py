"""Clinical wording found in the round-8 dev set (data/natural/dev/*-r8.yaml, 112 consultations by seven new
writers): each good wording earns its item through the real grader, and a lookalike that does not do the
clinical work earns nothing (or is still penalised)."""

from __future__ import annotations

import pytest

from patient_sim.doctors import COMMON_TESTS
from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.diagnosis import match_diagnosis

_NET = "Gives safety-netting advice"
_OVER_TRIAGE = "Sends the patient for emergency care"
_EMERGENCY_NOW = "Tells the patient to get emergency care now"
_SHOTGUN = "Orders tests the presentation does not call for"


# --------------------------------------------------------------------------- tests ordered
def test_a_panel_ordered_one_result_at_a_time_is_one_test_toward_the_shotgun() -> None:
    """A sparse record holds one result; a focused endocrine work-up names the hormone and androgen profiles one
    result at a time. Every common test is still a shotgun."""
    case = _case(final_diagnosis="Aromatase deficiency", test_results={"Pelvic Ultrasound > Findings": "Cysts"})
    workup = ("REQUEST TEST: urine hCG\nREQUEST TEST: LH, FSH, estradiol, total testosterone, androstenedione, DHEA-S, "
              "17-OHP, prolactin, TSH\nREQUEST TEST: karyotype\nREQUEST TEST: pelvic US, bone age XR, DEXA")
    assert not _met(case, [workup, "DIAGNOSIS: Aromatase deficiency\nEndocrinology."], _SHOTGUN)
    shotgun = "\n".join(f"REQUEST TEST: {t}" for t in COMMON_TESTS)
    assert _met(case, [shotgun, "DIAGNOSIS: Aromatase deficiency\nEndocrinology."], _SHOTGUN)


@pytest.mark.parametrize(("order", "label", "named"), [
    ("Left shoulder X-ray (AP, axillary and scapular Y views), HbA1c", "Radiographs > Axillary", True),  # views
    ("L shoulder XR 3 views (AP, scapular Y, axillary)", "Radiographs > Scapular Y", True),
    ("Chest X-ray for the team (FBC, CRP, LFTs, U&Es, troponin)", "Blood Tests > CBC", False),  # a list in brackets
])
def test_an_aside_of_views_is_part_of_a_long_order(order: str, label: str, named: bool) -> None:
    case = _case(final_diagnosis="Adhesive capsulitis", test_results={label: "Normal"})
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Adhesive capsulitis\nPhysiotherapy."],
                "Orders the appropriate test") is named


def test_parent_and_teacher_questionnaires_are_the_behaviour_rating_scales() -> None:
    label = "Assessment Tools > Parent and Teacher Behavioral Checklists > Scores"
    assert clinical.resolve("parent and teacher behaviour questionnaires", [label]).named == (label,)
    assert clinical.resolve("parent and teacher meeting", [label]).named == ()


# --------------------------------------------------------------------------- the final message
@pytest.mark.parametrize(("stated", "right"), [
    ("Syringomyelia (fluid-filled cavity in the spinal cord, cervical to upper thoracic)", True),  # explained in brackets
    ("Heart attack (STEMI)", True),  # the aside may name it
    ("Migraine (tension headache, cluster headache, sinusitis)", False),  # a list hidden in brackets
    ("Migraine (a b c d e f g h i j k l m n o p q r s)", False),  # a dump in brackets
])
def test_an_aside_may_explain_a_diagnosis_but_not_hide_a_list(stated: str, right: bool) -> None:
    accepted = clinical.diagnosis_names(["Migraine" if "Migraine" in stated else
                                         "Syringomyelia" if "Syringo" in stated else "ST-elevation myocardial infarction"])
    assert match_diagnosis(stated, accepted, others=["Tension-type headache", "Cluster headache", "Sinusitis"]).matched \
        is right


@pytest.mark.parametrize(("plan", "emergency"), [
    ("You're going to the ICU given pH under 7.1 and your drowsiness.", True),
    ("The high-dependency team will look after you with close monitoring.", True),
    ("HDU referral: pH under 7.1, drowsy.", True),
    ("I'm asking critical care to review you for the high-dependency unit.", True),
    ("Because your oxygen is low, I'd like you to stay in hospital for now.", True),
    ("Gynae now. Theatre now, keyhole.", True),
    ("If you get worse you may need the high-dependency unit.", False),
])
def test_critical_care_and_the_acute_team_now_are_emergency_care_now(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Diabetic ketoacidosis\nIV fluids and insulin. {plan}"], _EMERGENCY_NOW) is emergency


@pytest.mark.parametrize(("plan", "over_triage"), [
    ("Nitrofurantoin for 3 days. I will refer you to urology now for the recurrences.", False),  # a letter sent now
    ("Paracetamol. Go to the ED right away or call 911 if he gets lethargic or has a stiff neck.", False),
    ("Nitrofurantoin for 3 days. Urology now.", True),
])
def test_a_referral_letter_now_or_a_clipped_condition_is_not_over_triage(plan: str, over_triage: bool) -> None:
    case = _case(final_diagnosis="Cystitis", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Cystitis\n{plan}"], _OVER_TRIAGE) is over_triage


@pytest.mark.parametrize("advice", [
    "ED for severe headache, chest pain, fainting or a nosebleed that won't stop.",  # clipped, help first
    "911 for cyanosis, apnea or too breathless to feed.",
    "Come straight back to emerg with fever, shaking chills or pain the meds don't touch.",  # Canadian
    "Back to emerg: fever, rigors, uncontrolled pain, vomiting.",
    "RTC for any new fx, severe abd or pelvic pain.",
    "Call sooner if he becomes aggressive or talks about hurting himself.",
    "Any further fits, breathing pauses or colour change, call the nurse at once.",
])
def test_safety_netting_in_round_eight_s_words(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize("advice", [
    "ED for a CT scan tomorrow morning.",  # care after "for"
    "RTC for suture removal.",
    "Call sooner next time.",
    "Any questions, ask the pharmacist.",
])
def test_care_after_for_or_no_condition_is_not_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert not _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize(("considered", "differential", "weighed"), [
    ("A tummy bug wouldn't explain the sugar.", "Gastroenteritis", True),
    ("An inflamed pancreas wouldn't explain the ketones.", "Acute pancreatitis", True),
    ("With no discharge, thrush is unlikely.", "Vulvovaginal candidiasis", True),
    ("A sexual infection is much less likely.", "Sexually transmitted infection", True),
    ("The tablets may give you a stomach upset.", "Gastroenteritis", False),
])
def test_a_differential_weighed_in_lay_words(considered: str, differential: str, weighed: bool) -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", differential=[differential, "Gout"])
    assert _met(case, [f"DIAGNOSIS: Diabetic ketoacidosis\nInsulin. {considered}"],
                "Considers a relevant differential") is weighed


def test_not_you_being_weak_is_empathy() -> None:
    case = _case(final_diagnosis="Depression")
    item = "Acknowledges the patient's concerns"
    assert _met(case, ["DIAGNOSIS: Depression\nSertraline. This is not you being weak, and it gets better."], item)
    assert not _met(case, ["DIAGNOSIS: Depression\nSertraline. It gets better with treatment."], item)


# --------------------------------------------------------------------------- history
@pytest.mark.parametrize(("question", "key"), [
    ("Any SI?", "self_harm"), ("Any SI or HI?", "self_harm"), ("AH/VH?", "hallucinations"),
    ("Fx hx?", "bone"), ("Any clitoromegaly or labial fusion at birth?", "genital"),
])
def test_shorthand_and_anatomy_of_round_eight(question: str, key: str) -> None:
    assert key in clinical.asked(question)


def test_a_greeting_and_a_joint_are_not_self_harm() -> None:
    assert "self_harm" not in clinical.asked("Hi, what brings you in?")
    assert "self_harm" not in clinical.asked("SI joint pain?")


@pytest.mark.parametrize(("turn", "asked"), [
    ("Any cough? Any wheeze?", True),  # two questions, one thing asked together
    ("Any cough? Any rash?", False),
    ("Any wheeze? Any rash? Any cough?", False),  # not one after the other
])
def test_a_question_and_the_one_before_it_ask_together(turn: str, asked: bool) -> None:
    """(Until round 88 this test asked "Is he drinking and making wet nappies?", read as needing both halves because it
    compiled a third group, "mak", that no question met. Its 104 examiner marks, and those of the project's other
    two-thing questions ("How is your mood and enjoyment?", thirty of them), credit either half: a question of three
    things, two of which are needed, carries the test now.)"""
    case = _case(final_diagnosis="Asthma", key_questions=["Any cough, wheeze or breathlessness?", "Any fever?"])
    assert _met(case, [turn, "DIAGNOSIS: Asthma\nInhaler."],
                "Before giving a diagnosis, asks: Any cough, wheeze or breathlessness?") is asked


def test_show_me_where_asks_the_site() -> None:
    case = _case(final_diagnosis="Left ureteric stone",
                 key_questions=["Where is the pain and does it move?", "Any blood in the urine?", "Any fever?"])
    item = "Before giving a diagnosis, asks: Where is the pain and does it move?"
    assert _met(case, ["Show me where the pain is. Does it travel anywhere?", "DIAGNOSIS: Left ureteric stone\nNSAID."], item)
    assert not _met(case, ["Show me your tablets.", "DIAGNOSIS: Left ureteric stone\nNSAID."], item)


def test_pain_the_tablets_do_not_touch_is_uncontrolled_pain() -> None:
    case = _case(final_diagnosis="Left ureteric stone", red_flags=["Uncontrolled pain"], disposition="urgent")
    item = "Asks about or addresses the red flag: Uncontrolled pain"
    assert _met(case, ["Where is the pain?", "DIAGNOSIS: Left ureteric stone\nNSAID. Come straight back if you get "
                       "pain the tablets don't touch."], item)
    assert not _met(case, ["Where is the pain?", "DIAGNOSIS: Left ureteric stone\nNSAID. Take the tablets."], item)
