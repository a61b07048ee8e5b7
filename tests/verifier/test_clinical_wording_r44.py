"""Round 44 (data/natural/dev/*-r44.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A duration checked back with a tag ("For three weeks now, is
it?"), "VB?", "the muddle"; care now as the team already called, the operation today and
admission to a closely monitored bed; safety-netting as "Return to clinic or ED right away for ...", a list then
"back quick" or "call or text 9-8-8"; and Scots and Yorkshire sympathy ("a lot tae take in", "bless her")."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Confusion and disorientation", "When did the muddle start?", True),
    ("Confusion and disorientation", "When did the tremor start?", False),
])
def test_the_muddle(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, "Before giving a diagnosis, asks about " + symptom.lower()) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("For three weeks now, is it?", True),
    ("For three weeks, the tablets, is it?", False),
])
def test_a_duration_checked_back_with_a_tag_asks_the_onset(question: str, asked: bool) -> None:
    case = _imported("Breathless on exertion")
    assert _asked(case, question, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("VB, how much, color, clots?", True),
    ("BP, how high?", False),
])
def test_vb_is_vaginal_bleeding(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Ectopic pregnancy", key_questions=["Any vaginal bleeding?"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Any vaginal bleeding") is asked


@pytest.mark.parametrize(("text", "outright"), [
    ("I've already called the gynaecology team. This needs an operation today, urgently.", True),
    ("We've just paged the surgical registrar.", True),
    ("You'll be admitted to a closely monitored bed, and we're starting insulin right now.", True),
    ("I've called the surgery to book your review next week.", False),
    ("I've contacted the orthopaedic team, fracture clinic on Monday.", False),
    ("If the operation is ever needed, the gynaecology team will see you in clinic.", False),
])
def test_the_team_already_called_and_the_operation_today(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Return to clinic or ED right away for fever >38, rigors, infections.", True),
    ("Falls, chokin', hallucinations, sudden confusion: back quick.", True),
    ("Thoughts worse, any plan: call or text 9-8-8, or 911, or ED now.", True),
    ("Return to clinic in six weeks for the results.", False),
    ("Sertraline, sleep hygiene, exercise: back to work on Monday.", False),
])
def test_return_for_back_quick_and_9_8_8(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("words_", "kind"), [
    ("It's a lot tae take in.", True),
    ("It's no easy news, an' yer wife's been a great support.", True),
    ("She does look like she's working hard, bless her.", True),
    ("Hard few months. Treatable.", True),
    ("A few months of tablets.", False),
])
def test_scots_and_yorkshire_sympathy(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
