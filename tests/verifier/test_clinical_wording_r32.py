"""Round 32 (data/natural/dev/*-r32.yaml): what its examiners marked met and the grader missed or wrongly paid, in
general form, each beside a lookalike that must come out the other way. The questions a doctor asks aloud after
stating the diagnosis ("Baker's cyst? Scan says no. Cellulitis? No fever.") are reasoning, not history: they do not
make a barrage. Safety-netting and care now in a ward's and a clinic's words; a week's drinking; walking much; a
duration checked back."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency

_BARRAGE = "Fires a barrage of questions"
_ASIDES = ("Baker's cyst? Scan says no. Cellulitis? No fever. Muscle strain? Doesn't fit. PE? Sats fine. Gout? No. "
           "Lymphoedema? No. Heart failure? No. Kidney trouble? No.")
_HISTORY = "Onset? Getting worse? Injury? Hot, red? Breathless, chest pain, coughing blood?"


def test_questions_asked_aloud_after_the_diagnosis_are_no_barrage() -> None:
    case = _case(final_diagnosis="Deep vein thrombosis", primary_symptoms=["Swollen left calf"])
    assert not _met(case, [_HISTORY, f"DIAGNOSIS: Deep vein thrombosis\n{_ASIDES}\nPlan: apixaban."], _BARRAGE)


def test_the_same_questions_asked_before_the_diagnosis_still_count() -> None:
    case = _case(final_diagnosis="Deep vein thrombosis", primary_symptoms=["Swollen left calf"])
    assert _met(case, [_HISTORY, _ASIDES, "DIAGNOSIS: Deep vein thrombosis\nPlan: apixaban."], _BARRAGE)
    # and in the diagnosis turn itself, before its DIAGNOSIS line
    assert _met(case, [_HISTORY, f"{_ASIDES}\nDIAGNOSIS: Deep vein thrombosis\nPlan: apixaban."], _BARRAGE)


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call nurse now if CP, seizure, confusion, or hard to wake.", True),
    ("Glucose gel or juice, fast sugar, 999 if slow to recover.", True),
    ("Review in four weeks, or sooner, kindly, if episodes increase.", True),
    ("Drowsier, fitting, rash spreading - hit the bell straight away.", True),
    ("If the redness spreads beyond the line... come straight back.", True),
    ("Review in four weeks. The nurse will call you with results.", False),
    ("The bell by your bed works. 999 is the number we use here.", False),
])
def test_safety_netting_in_a_ward_s_and_a_clinic_s_words(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("text", "outright"), [
    ("Plan, now: 2 large-bore IVs, insulin gtt. ICU admit, endo consult, DM education.", True),
    ("You'll be in high dependency, and the diabetes team will see you.", True),
    ("Gynae, theatre now, laparoscopy.", True),
    ("Past: asthma. ICU, intubated 2019.", False),
    ("Surgery next month; theatre list in March.", False),
    ("If you get worse you will be in intensive care.", False),
])
def test_care_now_in_a_ward_s_words(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("question", "asked"), [
    ("How much are you drinking in a typical week?", True),
    ("How much is he drinking?", False),
])
def test_a_week_s_drinking_is_alcohol(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Depression", key_questions=["How much alcohol do you drink"])
    assert _asked(case, question, "Before giving a diagnosis, asks: How much alcohol") is asked


@pytest.mark.parametrize(("question", "asked"), [("Hip done when? Walking much?", True), ("Hip sore?", False)])
def test_walking_much_asks_about_immobility(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Deep vein thrombosis", key_questions=["Any recent surgery or immobility"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Any recent surgery") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Three weeks?", True),
    ("About 6 months now?", True),
    ("Three weeks ago, you said.", False),
    ("Three tablets?", False),
])
def test_a_duration_checked_back_asks_when_it_started(question: str, asked: bool) -> None:
    item = "Before giving a diagnosis, asks about when the symptoms started"
    assert _asked(_imported("Fatigue"), question, item) is asked
