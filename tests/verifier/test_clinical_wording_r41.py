"""Round 41 (data/natural/dev/*-r41.yaml): what its examiners marked met and the grader missed, or penalised, in
general form, each beside a lookalike that must come out the other way. A spoken "-in'" ("Vomitin' after feeds?"),
a baby's danger signs asked in a terse history that is no barrage, the answer's own kind of a presentation
("Dumping syndrome - late-dumping hypoglycaemia"), "how often now?" as a change, "How long have you been trying?",
muscles that tighten, "What exactly were you doing when it hit?", "911 / tell nurse for:", and "tough week for
you"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported, _stated
from verifier.diagnosis import words
from verifier.rule_grader import _recommends_emergency
from verifier.types import Demographics


@pytest.mark.parametrize(("text", "folded"), [
    ("Vomitin' after feeds?", ("vomiting", "after", "feed")),
    ("cryin', feedin'", ("crying", "feeding")),
    ("She said 'Robin' twice", ("she", "said", "robin", "twice")),  # a quoted name that ends in "in"
    ("in' the", ("in", "the")),
])
def test_a_spoken_dropped_g_is_the_word(text: str, folded: tuple[str, ...]) -> None:
    assert words(text) == folded


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Occasional vomiting", "Vomitin' after feeds?", True),
    ("Occasional vomiting", "Coughin' after feeds?", False),
])
def test_a_dropped_g_question_is_asked(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, "Before giving a diagnosis, asks about") is asked


_BARRAGE = "Fires a barrage of questions"
# a terse history of a baby's apnoeic spells: the danger signs of any unwell infant, which the record leaves out
_TERSE = ["Pauses - how long? Goes blue? Floppy? When did they start? How often now?",
          "Feeding OK? Gaining weight? Vomiting? Jerking? Blood in nappy? Yellow? Fever?",
          "Transfused? Meds, allergies?"]


def _apnoea(age: int) -> object:
    return _case(id="agentclinic-x", source="agentclinic", chief_complaint="Episodes of not breathing during sleep",
                 demographics=Demographics(age=age, sex="male"), final_diagnosis="Anemia of prematurity",
                 secondary_symptoms=["Increased frequency of apneic episodes", "Pale conjunctiva"])


def test_a_baby_s_danger_signs_are_no_barrage() -> None:
    assert not _met(_apnoea(0), [*_TERSE, "DIAGNOSIS: Anemia of prematurity"], _BARRAGE)


def test_the_same_questions_of_an_adult_s_record_still_make_one() -> None:
    assert _met(_apnoea(40), [*_TERSE, "DIAGNOSIS: Anemia of prematurity"], _BARRAGE)


@pytest.mark.parametrize(("final", "statement", "right"), [
    ("Dumping Syndrome", "Dumping syndrome post sleeve gastrectomy - late-dumping hypoglycaemia.", True),
    ("Dumping Syndrome", "Dumping syndrome, late dumping hypoglycemia", True),
    # a presentation whose cause names rivals lists them
    ("Dumping Syndrome", "Dumping syndrome, hypoglycaemia from an insulinoma and gastroparesis", False),
    ("Dumping Syndrome", "Dumping syndrome, hypoglycaemia from an insulinoma", False),
    ("Dumping Syndrome", "Dumping syndrome, late-dumping hypoglycaemia and gastroparesis", False),
])
def test_the_answer_s_own_kind_of_a_presentation_glosses_it(final: str, statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", final), statement)
    assert (met, wrong) == (right, not right)


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Increased frequency of apneic episodes", "When did you first notice them, and how often are they happening now?",
     True),
    ("Increased frequency of apneic episodes", "Onset, and how many/day now?", True),
    ("Increased frequency of apneic episodes", "When did you first notice them?", False),
    ("Difficulty conceiving for over 15 months", "Trying how long?", True),
    ("Difficulty conceiving for over 15 months", "How long have you been trying?", True),
    ("Difficulty conceiving for over 15 months", "Any pain during sex?", False),
    ("Pelvic floor muscle tension during sexual activity",
     "Does penetration happen fully, or does it stop because of pain or tightening?", True),
    ("Pelvic floor muscle tension during sexual activity", "Does penetration happen fully?", False),
])
def test_how_often_now_trying_and_muscles_that_tighten(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, "Before giving a diagnosis, asks about") is asked


def test_what_exactly_were_you_doing_when_it_hit_asks_the_onset() -> None:
    case = _case(final_diagnosis="Vestibular neuritis", key_questions=["When did it start?"])
    item = "Before giving a diagnosis, asks: When did it start"
    assert _asked(case, "What exactly were you doing when it hit?", item)
    assert not _asked(case, "What exactly do you do for work?", item)


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("911 / tell nurse for: sudden vision loss, confusion, severe HA, bleeding, weakness.", True),
    ("911 / call the nurse for: chest pain or fainting.", True),
    ("911 / tell nurse: he is in bed 4.", False),
])
def test_the_emergency_or_the_nurse_for_a_list(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


def test_the_emergency_or_the_nurse_for_a_list_is_not_care_now() -> None:
    assert _recommends_emergency("911 / tell nurse for: sudden vision loss, confusion.", unconditional=True) is None


@pytest.mark.parametrize(("words_", "kind"), [
    ("Good pick-up, Mum - tough week for you.", True),
    ("You did exactly right bringing her in.", True),
    ("You did right, cariad.", True),
    ("Good pick-up on the blood test.", False),
])
def test_a_tough_week_and_doing_right(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
