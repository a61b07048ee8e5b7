"""Round 49 (data/natural/dev/*-r49.yaml) and a review of the false credits of rounds 5 to 48: what the examiners
marked not met and the grader credited, and what they marked met and it missed, each beside a lookalike that must come
out the other way. The onset is not when something was last done, how long each attack lasts, a medicine's course, a
gestation or a sudden death in the family; a clause that opens with "When" is not a question; "earrings" are not the
ear, a face that shows less is not any question about the nerves, and only one kidney is not any kidney; a condition
and an arrow to the team is safety-netting, as is "... means come straight to the ER"; and the step after surgery done
now ("surgery now -> admit") is care now."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency

_ONSET = "Before giving a diagnosis, asks about when the symptoms started"


@pytest.mark.parametrize(("question", "asked"), [
    ("When did it start?", True),
    ("When did you last feel well?", True),
    ("How long have you had it?", True),
    ("Fatigue x 2 mo, progressive?", True),
    ("Did it come on suddenly?", True),
    ("When did you last eat or drink?", False),
    ("When did he last have a wet nappy?", False),
    ("How long each time?", False),
    ("How long per attack?", False),
    ("How long have you been on levofloxacin?", False),
    ("Born at 36 wks, any NICU stay?", False),
    ("Family history of sudden death?", False),
    ("Does he start breathing again on his own?", False),
])
def test_the_onset_is_when_the_illness_began(question: str, asked: bool) -> None:
    assert _asked(_imported("Fatigue"), question, _ONSET) is asked


def test_a_clause_that_opens_with_when_is_not_a_question() -> None:
    statement = "When that happens in both eyes together, I start thinking about thick blood."
    assert not _asked(_imported("Fatigue"), statement, _ONSET)
    assert _asked(_imported("Fatigue"), "When did that happen?", _ONSET)


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Discomfort when wearing earrings", "Any trouble when you wear earrings or other jewellery?", True),
    ("Discomfort when wearing earrings", "Which ear?", False),
    ("Reduced facial expressions", "Has your face become less expressive?", True),
    ("Reduced facial expressions", "Soft voice, masked face?", True),
    ("Reduced facial expressions", "Tremor: when, which side?", False),
])
def test_a_finding_is_not_any_question_about_its_neighbourhood(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Any kidney problems, or only one kidney?", True),
    ("Do you have two kidneys, as far as you know?", True),
    ("Anyone in the family had kidney stones?", False),
    ("Asthma, ulcers, kidney disease?", False),
])
def test_only_one_kidney_is_not_any_kidney(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Single kidney"])
    assert _met(case, [question, "DIAGNOSIS: Renal colic"], "Asks about or addresses the red flag: Single kidney") \
        is asked


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Pain worse, faint, more SOB \u2192 call us, right away.", True),
    ("Pain worse/spreading, faint, rigors \u2192 tell nurse now.", True),
    ("Fever, spreading red, not better 48-72 h \u2192 back same day.", True),
    ("\u2192 ED / 911 for CP, syncope, SOB at rest.", True),
    ("A fever, green vomit, or a floppy baby means come straight to the ER.", True),
    ("Blue lips, laboured breathing, floppy: triple zero.", True),
    ("Bloods \u2192 repeat tomorrow.", False),
    ("Results \u2192 call you tomorrow.", False),
    ("\u2192 ED for CT now.", False),
])
def test_a_condition_and_an_arrow_to_the_team(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], _NET) is netted


@pytest.mark.parametrize(("text", "outright"), [
    ("Plan: surgery now \u2192 admit, lap appy today.", True),
    ("- Surgery team seeing you now \u2192 admit, appendix out today.", True),
    ("Call triple zero now.", True),
    ("If worse \u2192 admit.", False),
    ("Worse \u2192 ED.", False),
    ("A fever, green vomit, or a floppy baby means come straight to the ER.", False),
])
def test_the_step_after_one_done_now_is_care_now(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("words_", "kind"), [
    ("Tough break for an athlete.", True),
    ("Pa p\u00e8, I've got you.", True),
    ("Poor bairn, he's had a rough couple of nights, and so have you.", True),
    ("Hard night, pet. Nearly there.", True),
    ("I've got you booked in for Tuesday.", False),
])
def test_everyday_sympathy(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind


@pytest.mark.parametrize(("order", "ordered"), [
    ("REQUEST TEST: Bone marrow aspirate and trephine", True),
    ("REQUEST TEST: BM aspirate", True),
    ("REQUEST EXAM: Musculoskeletal examination of the legs", False),
])
def test_an_examination_of_the_bones_is_not_the_marrow(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Acute lymphoblastic leukaemia",
                 test_results={"Bone Marrow Aspirate": "Lymphoblasts 80%"})
    assert _met(case, [order, "DIAGNOSIS: Acute lymphoblastic leukaemia"], "Orders the appropriate test: Bone Marrow") \
        is ordered
