"""Round 47 (data/natural/dev/*-r47.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. What began it, dated ("When were the extractions done?");
"Born when?"; a teenager asked who gives her a hard time; a lesional biopsy is a skin biopsy; "Admit MICU";
safety-netting as "Back right away, hon, for ..." and "Back now or ED if: ..."; and "it hurts to watch", "It's not
anyone's fault", "we will work through it"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("question", "asked"), [
    ("When were the extractions done, and how much bleeding are we talking?", True),
    ("When were the teeth pulled?", True),
    ("Were the teeth pulled by a dentist?", False),
])
def test_what_began_it_dated_asks_the_onset(question: str, asked: bool) -> None:
    case = _imported("Persistent bleeding from the gums")
    assert _asked(case, question, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Born when?", True),
    ("Fed when?", False),
])
def test_born_when_asks_the_birth_history(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Bronchiolitis", key_questions=["Was she born early?"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Was she born early") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Anyone giving you a hard time, in person or online?", True),
    ("Is the schoolwork giving you a headache?", False),
])
def test_a_hard_time_from_others_is_her_social_situation(question: str, asked: bool) -> None:
    case = _imported("Expresses unhappiness with current social situation")
    assert _asked(case, question, "Before giving a diagnosis, asks about expresses unhappiness") is asked


@pytest.mark.parametrize(("order", "ordered"), [
    ("Lesional biopsy, perilesional DIF", True),
    ("Lymph node biopsy", False),
])
def test_a_lesional_biopsy_is_the_skin_biopsy(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Pemphigus vulgaris", test_results={"Skin Biopsy > Histopathology": "Acantholysis"})
    turns = [f"REQUEST TEST: {order}", "DIAGNOSIS: Pemphigus vulgaris"]
    assert _met(case, turns, "Orders the appropriate test: Skin Biopsy") is ordered


@pytest.mark.parametrize(("text", "outright"), [
    ("Plan: insulin infusion, fluids. Admit MICU; endo consult.", True),
    ("If the pH falls further we could admit MICU.", False),
])
def test_admit_micu(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back right away, hon, for rebleeding, lightheadedness, a hot swollen joint, or any head injury.", True),
    ("Back now or ED if: pale poos, dark wee, more yellow, sleepy, poor feeds.", True),
    ("Back right away, hon, for your results.", False),
    ("Back now to the waiting room for the nurse.", False),
])
def test_back_right_away_hon_for_and_back_now_if(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("words_", "kind"), [
    ("It is a normal part of growing up, even though it hurts to watch.", True),
    ("It's not anyone's fault, and it's treatable.", True),
    ("We always take this seriously, and we will work through it.", True),
    ("It's not anyone's job to chase the results.", False),
])
def test_it_hurts_to_watch_and_nobody_s_fault(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
