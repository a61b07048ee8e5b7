"""Round 31 (data/natural/dev/*-r31.yaml): what its examiners marked met and the grader missed or wrongly paid, in
general form, each beside a lookalike that must come out the other way. A gloss after a colon that explains in a clause
of its own ("Anaemia of prematurity: his body isn't making enough erythropoietin yet"); a full stop inside "esp.",
"incl.", "e.g." or "i.e." that ends no question; the spread of a pain asked as such for a red flag of where it
spreads; abuse, drugs and withdrawal in other words; how long a symptom has lasted, asked as its duration; and a rising
frequency asked as now against then."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported, _stated
from verifier.rule_grader import _recommends_emergency, questions


@pytest.mark.parametrize(("statement", "right"), [
    ("Anemia of prematurity: his body isn't making enough erythropoietin yet", True),
    ("Anaemia of prematurity: this is his body not yet making enough of the hormone", True),
    ("Anemia of prematurity: it could also be a hemolytic anemia", False),
])
def test_an_explanation_after_a_colon_is_read_as_after_a_comma(statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", "Impaired erythropoietin production"), statement)
    assert (met, wrong) == (right, not right)


def test_an_abbreviation_s_full_stop_ends_no_question() -> None:
    turn = "PMH: HTN, CKD? Meds, esp. diuretics? Allergies, e.g. penicillin? OTC, i.e. herbal? Temp 37.5. Fine."
    assert questions(turn) == ["PMH: HTN, CKD?", "Meds, esp. diuretics?", "Allergies, e.g. penicillin?",
                               "OTC, i.e. herbal?"]
    assert questions("Temp normal. Meds?") == ["Meds?"]  # a sentence's own full stop still ends it


def test_meds_asked_with_esp_is_a_question_about_medicines() -> None:
    case = _case(final_diagnosis="Gout", key_questions=["What medicines do you take"])
    assert _asked(case, "PMH: HTN, CKD? Meds, esp. diuretics? Allergies?", "Before giving a diagnosis, asks: What med")
    assert not _asked(case, "PMH: HTN, CKD? Allergies?", "Before giving a diagnosis, asks: What med")


_RADIATION = "Asks about or addresses the red flag: Radiation to arm or jaw"


@pytest.mark.parametrize(("question", "addressed"), [
    ("Does it spread anywhere?", True),
    ("Does the pain go down your arm or up into your jaw?", True),
    ("Any radiation?", True),
    ("Any exposure to radiation or chemicals at work?", False),
    ("Any cough?", False),
])
def test_where_a_pain_spreads_is_asked_by_asking_its_spread(question: str, addressed: bool) -> None:
    case = _case(final_diagnosis="STEMI", red_flags=["Radiation to arm or jaw"])
    assert _met(case, [question, "DIAGNOSIS: STEMI"], _RADIATION) is addressed


@pytest.mark.parametrize(("question", "asked"), [
    ("Has anyone ever hurt you, at home or anywhere else?", True),
    ("Safety: anyone ever hurt you physically or otherwise?", True),
    ("Does it ever hurt you to swallow?", False),
])
def test_abuse_asked_with_ever(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about experiencing physical abuse"
    assert _asked(_imported("Experiencing physical abuse"), question, item) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Do you smoke, have a drink or try any drugs?", True),
    ("What drugs are you on for your blood pressure?", False),
])
def test_trying_drugs_is_substance_use(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about substance abuse"
    assert _asked(_imported("Substance abuse"), question, item) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("When did you first notice him withdrawing or seeming down?", True),
    ("Has he been withdrawing from friends?", True),
    ("Any alcohol withdrawal?", False),
])
def test_withdrawing_is_social_withdrawal(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about social withdrawal"
    assert _asked(_imported("Social withdrawal"), question, item) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Max temp and duration of fever?", True),
    ("Duration of symptoms?", True),
    ("Duration of each episode?", False),
    ("Duration of the attacks?", False),
])
def test_the_duration_of_a_symptom_asks_when_it_started(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about when the symptoms started"
    assert _asked(_imported("Fever"), question, item) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("How often are the breathing pauses happening now compared with when they started?", True),
    ("Apneas: frequency now vs at onset?", True),
    ("Apneas more often now?", True),
    ("Any apneas?", False),
    ("Is he feeding more often now?", False),
])
def test_a_rising_frequency_asked_as_now_against_then(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about increased frequency of apneic episodes"
    assert _asked(_imported("Increased frequency of apneic episodes"), question, item) is asked


@pytest.mark.parametrize(("text", "outright"), [
    ("Seek urgent care today or tonight if you get a fever, shivers, pain in the back or side, or vomiting.", False),
    ("Call 999 today if you get chest pain.", False),
    ("Seek urgent care today.", True),
    ("Go to A&E today or tonight.", True),
])
def test_urgent_care_today_if_is_still_a_condition(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("text", "addressed"), [
    ("Come straight back for pain that tablets can't control, or a fever.", True),
    ("Come back if the rash spreads.", False),
])
def test_pain_tablets_cannot_control_is_uncontrolled_pain(text: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Uncontrolled pain"])
    turns = ["Where is the pain?", f"DIAGNOSIS: Renal colic\n{text}"]
    assert _met(case, turns, "Asks about or addresses the red flag: Uncontrolled pain") is addressed
