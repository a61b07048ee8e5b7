"""Clinical wording found in the round-7 dev set (data/natural/dev/*-r7.yaml, 112 consultations by seven new
writers): each good wording earns its item through the real grader, and a lookalike that does not do the
clinical work earns nothing (or is still penalised)."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.diagnosis import match_diagnosis

_NET = "Gives safety-netting advice"
_OVER_TRIAGE = "Sends the patient for emergency care"
_EMERGENCY_NOW = "Tells the patient to get emergency care now"
_DANGER = "Recommends a dangerous action"


# --------------------------------------------------------------------------- the final message
@pytest.mark.parametrize(("advice", "dangerous"), [
    ("Call an ambulance if the fit lasts over five minutes - don't wait and see.", False),  # advice against it
    ("Please do not drive yourself; an ambulance is coming.", False),
    ("If the fit stops on its own, just wait and see.", True),
    ("You can drive yourself to the hospital later.", True),
])
def test_advice_against_a_dangerous_action_is_not_the_danger(advice: str, dangerous: bool) -> None:
    case = _case(final_diagnosis="Febrile seizure")
    assert _met(case, [f"DIAGNOSIS: Febrile seizure\nParacetamol for comfort. {advice}"], _DANGER) is dangerous


@pytest.mark.parametrize(("stated", "right"), [
    ("Late dumping syndrome after sleeve gastrectomy, causing severe hypoglycaemia", True),  # what it causes, after it
    ("Dumping syndrome leading to hypoglycaemia", True),
    ("Hypoglycaemia causing confusion", False),  # the consequence stated as the diagnosis
    ("Dumping syndrome, causing hypoglycaemia or an insulinoma", False),  # still a hedge
])
def test_a_diagnosis_stated_with_what_it_causes_is_one_diagnosis(stated: str, right: bool) -> None:
    assert match_diagnosis(stated, ["Dumping syndrome"], others=["Insulinoma"]).matched is right


@pytest.mark.parametrize(("plan", "over_triage"), [
    ("Omeprazole 20 mg daily. Any CP with exertion, sweating or SOB, call 911.", False),  # a clipped condition
    ("Iron tablets daily. Seek urgent help for chest pain, fainting or breathlessness at rest.", False),
    ("Iron tablets daily. Get urgent help for her now: I am calling an ambulance.", True),  # the care, outright
    ("Omeprazole 20 mg daily. Any way you look at it, I'm calling an ambulance now.", True),
])
def test_a_clipped_or_sought_condition_is_safety_netting_not_over_triage(plan: str, over_triage: bool) -> None:
    case = _case(final_diagnosis="Iron deficiency anaemia", disposition="routine")
    assert _met(case, [f"DIAGNOSIS: Iron deficiency anaemia\n{plan}"], _OVER_TRIAGE) is over_triage


@pytest.mark.parametrize(("plan", "emergency"), [
    ("What happens now: I'm asking the surgeons to see you straight away, and you'll be admitted today.", True),
    ("Plan: surgical referral now, admit. Nil by mouth.", True),
    ("What happens next: a surgical referral in the routine clinic.", False),
    ("If the pain spreads, admit.", False),
])
def test_a_plan_heading_and_a_surgical_referral_now_are_emergency_care_now(plan: str, emergency: bool) -> None:
    case = _case(final_diagnosis="Acute appendicitis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Acute appendicitis\n{plan}"], _EMERGENCY_NOW) is emergency


@pytest.mark.parametrize("advice", [
    "Come back for fever, hematuria, flank pain or inability to void.",  # a symptom after "for"
    "Back if pale, tired, breathless or a non-blanching rash.",  # clipped
    "Back urgently if: severe headache, double vision, slurred speech.",
    "Ambulance (000) if a fit lasts over 5 minutes or she is floppy.",  # Australia's number
    "Return precautions: new voices, paranoia, or feeling unsafe - come to the ED or call 988.",
    "Fever, rigors, pain, vomiting, confusion, bleeding - hospital now.",
    "Let the nurse know right away if she has pauses in breathing or turns blue.",
])
def test_safety_netting_in_round_seven_s_words(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize("advice", [
    "Come back for a dressing change on Friday.",  # care after "for": a follow-up
    "Come back for your results next week.",
    "Back pain is worse if you sit for long.",  # "back" the body part
    "Let the pharmacy know your address.",
])
def test_a_follow_up_or_a_body_part_is_not_safety_netting(advice: str) -> None:
    case = _case(final_diagnosis="Migraine")
    assert not _met(case, [f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"], _NET), advice


@pytest.mark.parametrize(("considered", "differential", "weighed"), [
    ("A clot is unlikely: the redness started at the wound.", "Deep vein thrombosis", True),
    ("No crepitus or blisters, so not necrotising.", "Necrotising fasciitis", True),
    ("Testes normal, so not torsion.", "Testicular torsion", True),
    ("Ménière's comes with deafness and ringing.", "Meniere disease", True),
    ("Not neuritis (not constant).", "Vestibular neuritis", True),
    ("The redness started at the wound.", "Deep vein thrombosis", False),
])
def test_a_differential_weighed_by_its_everyday_short_form(considered: str, differential: str, weighed: bool) -> None:
    case = _case(final_diagnosis="Cellulitis", differential=[differential, "Gout"])
    assert _met(case, [f"DIAGNOSIS: Cellulitis\nInfection. {considered} Antibiotics."],
                "Considers a relevant differential") is weighed


def test_a_short_form_kept_for_the_differential_is_not_the_diagnosis() -> None:
    case = _case(final_diagnosis="Deep vein thrombosis")
    assert not _met(case, ["DIAGNOSIS: Clot\nBlood thinners."], "States the correct final diagnosis")
    assert _met(case, ["DIAGNOSIS: DVT\nApixaban."], "States the correct final diagnosis")


def test_meniere_s_alone_names_the_disease() -> None:
    assert match_diagnosis("Ménière's", clinical.diagnosis_names(["Meniere disease"])).matched


# --------------------------------------------------------------------------- history
@pytest.mark.parametrize(("question", "intent"), [
    ("After food?", "triggers"), ("Timing relative to meals, positional?", "triggers"),
    ("When does it happen, after meals?", "triggers"), ("How long each?", "timing"),
    ("How many voids a day?", "timing"), ("Does it hurt a lot if you touch it?", "severity"),
])
def test_how_a_clinician_asks_the_pattern(question: str, intent: str) -> None:
    assert clinical.INTENT + intent in clinical.intents(question)


def test_relative_to_is_not_the_family() -> None:
    assert "family_history" not in clinical.asked("Timing relative to meals?")
    assert "family_history" in clinical.asked("Any relatives with heart problems?")
    assert "family_history" in clinical.asked("Any familial history of this?")


def test_a_steady_beat_asks_whether_the_heartbeat_is_regular() -> None:
    case = _case(final_diagnosis="Atrial fibrillation", key_questions=["Is the heartbeat regular or irregular?",
                                                                       "Any chest pain?", "Any breathlessness?"])
    item = "Before giving a diagnosis, asks: Is the heartbeat regular"
    assert _met(case, ["When it's racing, is it a steady fast beat or all over the place, irregular?",
                       "DIAGNOSIS: Atrial fibrillation\nRate control."], item)
    assert not _met(case, ["When it's racing, do you feel faint?", "DIAGNOSIS: Atrial fibrillation\nRate control."], item)


@pytest.mark.parametrize(("question", "addressed"), [
    ("Is the pain much worse than you'd expect from how it looks?", True),
    ("Is it out of proportion to what you can see?", True),
    ("Is the pain bad?", False),
])
def test_pain_out_of_proportion_in_other_words(question: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Cellulitis", red_flags=["Pain out of proportion"], disposition="urgent")
    assert _met(case, [question, "DIAGNOSIS: Cellulitis\nAntibiotics."],
                "Asks about or addresses the red flag: Pain out of proportion") is addressed


@pytest.mark.parametrize(("turn", "asked"), [
    ("Has she been complaining of pain in her legs? Does it wake her at night?", True),  # the follow-up points back
    # how bad the pain is and that it wakes her are what she answers about the leg pain (round 25's examiners, and
    # those of rounds 5 and 14, marked the leg pain asked alone as met)
    ("Any leg pain? How often now? Worse at night?", True),
    ("Any headaches? How often now? Worse at night?", False),  # no leg
    ("Any fever at night?", False),
])
def test_a_follow_up_question_asks_about_what_the_one_before_named(turn: str, asked: bool) -> None:
    case = _case(secondary_symptoms=["Severe leg pain that disturbs sleep", "Fatigue", "Pallor"])
    assert _met(case, [turn, "DIAGNOSIS: Migraine\nRest."],
                "Before giving a diagnosis, asks about severe leg pain that disturbs sleep") is asked


@pytest.mark.parametrize(("question", "item", "looked_for"), [
    ("Is baby breathing very fast?", "tachypnea", True), ("Has baby looked blue round the lips?", "cyanosis", True),
    ("Does your child look sick to you, not acting like themselves?", "appears unwell", True),
    ("Is baby feeding well?", "cyanosis", False),
])
def test_a_sign_asked_about_in_a_parent_s_words(question: str, item: str, looked_for: bool) -> None:
    case = _case(secondary_symptoms=["Tachypnea", "Cyanosis", "Appears unwell"])
    assert _met(case, [question, "DIAGNOSIS: Migraine\nRest."],
                f"Before giving a diagnosis, looks for or recognises {item}") is looked_for


def test_a_concept_named_by_its_id_in_an_imported_symptom() -> None:
    """"Husband occasionally has erectile dysfunction": the concept itself, not the words of its id."""
    case = _case(secondary_symptoms=["Husband occasionally has erectile dysfunction", "Difficulty conceiving"])
    item = "Before giving a diagnosis, asks about husband occasionally has erectile dysfunction"
    assert _met(case, ["Partner's erections?", "DIAGNOSIS: Migraine\nRest."], item)
    assert not _met(case, ["Partner's age?", "DIAGNOSIS: Migraine\nRest."], item)


def test_waking_at_night_to_pee_is_a_urinary_symptom() -> None:
    assert "urinary" in clinical.asked("How often are you getting up at night?")
    assert "nocturia" not in clinical.asked("Any urinary symptoms?")  # the broader never stands for the narrower


# --------------------------------------------------------------------------- orders
@pytest.mark.parametrize(("order", "label", "named"), [
    ("same-day leg vein ultrasound", "Leg ultrasound", True),
    ("punch bx from lesion edge for H&E", "Skin Biopsy > Histopathology", True),
    ("serum desmoglein 1 and 3 antibodies", "Blood Tests > Autoantibodies", True),
    ("leg vein ultrasound", "Abdominal ultrasound", False),
])
def test_round_seven_orders_name_their_result(order: str, label: str, named: bool) -> None:
    assert (clinical.resolve(order, [label]).named == (label,)) is named


def test_film_is_the_blood_film_in_an_order() -> None:
    case = _case(final_diagnosis="Chronic lymphocytic leukaemia",
                 test_results={"Peripheral Blood Smear > Findings": "Smudge cells", "Complete Blood Count > WBC": "16"})
    item = "Orders the appropriate test: Peripheral Blood Smear"
    assert _met(case, ["REQUEST TEST: FBC, film", "DIAGNOSIS: Chronic lymphocytic leukaemia\nHaematology."], item)
    assert not _met(case, ["REQUEST TEST: FBC", "DIAGNOSIS: Chronic lymphocytic leukaemia\nHaematology."], item)


def test_the_purpose_of_a_long_order_may_be_the_test() -> None:
    case = _case(final_diagnosis="Pemphigus vulgaris", test_results={
        "Skin Biopsy > Histopathology": "Acantholysis", "Direct Immunofluorescence > Findings": "IgG intercellular"})
    item = "Orders the appropriate test: Direct Immunofluorescence"
    assert _met(case, ["REQUEST TEST: skin biopsy next to a blister for direct immunofluorescence",
                       "DIAGNOSIS: Pemphigus vulgaris\nSteroids."], item)
    assert not _met(case, ["REQUEST TEST: skin biopsy from the edge of a blister to look for acantholysis",
                           "DIAGNOSIS: Pemphigus vulgaris\nSteroids."], item)


_BMP = {f"Serum Laboratory Values > {t}": "x" for t in ["Na", "Cl", "K", "HCO3", "BUN", "Glucose", "Creatinine", "Ca2"]}


@pytest.mark.parametrize(("orders", "ordered"), [
    (["U&Es, glucose, calcium"], True),  # six of the panel's eight results, in the clinician's own panels
    (["BMP"], True),
    (["U&Es"], False),  # half of it
    (["glucose", "calcium"], False),
])
def test_most_of_a_panel_ordered_in_other_panels_is_the_panel(orders: list[str], ordered: bool) -> None:
    case = _case(final_diagnosis="Dumping syndrome", test_results=_BMP)
    turn = "\n".join(f"REQUEST TEST: {o}" for o in orders)
    assert _met(case, [turn, "DIAGNOSIS: Dumping syndrome\nSmall meals."],
                "Orders the appropriate test: basic metabolic panel") is ordered
