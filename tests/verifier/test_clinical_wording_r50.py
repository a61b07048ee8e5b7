"""Round 50 (data/natural/dev/*-r50.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A shoulder X-ray's views listed after commas; a screen with its
tests named in brackets; "How much are you drinking?" asked of an adult; "BGs", "Hip done when?", "Mobile?", a baby's
"How much is she taking?"; "Each spin - how long?"; "Back here or to the ED for ..."; Australia's Lifeline; the
gynaecologists called and theatre for keyhole surgery; and "You've been great advocates for him"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.markers import parse_orders
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("order", "views"), [
    ("REQUEST TEST: Left shoulder X-ray, AP, scapular Y, and axillary views", {"AP", "Scapular Y", "Axillary"}),
    ("REQUEST TEST: Left shoulder X-ray", {"AP"}),
])
def test_the_views_of_an_x_ray_listed_after_commas(order: str, views: set[str]) -> None:
    case = _case(final_diagnosis="Adhesive capsulitis",
                 test_results={f"Radiographs > {v}": "Normal" for v in ("AP", "Scapular Y", "Axillary")})
    turns = [order, "DIAGNOSIS: Adhesive capsulitis"]
    assert {v for v in ("AP", "Scapular Y", "Axillary") if _met(case, turns, f"Orders the appropriate test: Radiographs {v}.")} \
        == views


def test_a_screen_with_its_tests_named_orders_each_of_them() -> None:
    line = "REQUEST TEST: liver autoimmune screen (ANA, anti-mitochondrial antibody, smooth muscle antibody), IgG"
    assert [name for _, name in parse_orders(line)][1:4] == ["ANA", "anti-mitochondrial antibody", "smooth muscle antibody"]
    case = _case(final_diagnosis="Primary biliary cholangitis", test_results={"Antimitochondrial Antibodies": "Positive"})
    assert _met(case, [line, "DIAGNOSIS: Primary biliary cholangitis"], "Orders the appropriate test: Antimitochondrial")
    # a list that is not of tests stays one order ("Troponin (high-sensitivity, 0 and 3 h)")
    assert parse_orders("REQUEST TEST: Troponin (high-sensitivity, 0 and 3 h)") == [
        ("test", "Troponin (high-sensitivity, 0 and 3 h)")]


@pytest.mark.parametrize(("question", "key_question", "asked"), [
    ("How much are you drinking, and any drugs?", "How much alcohol do you drink?", True),
    ("How much is she drinking compared with usual?", "How much alcohol do you drink?", False),
    ("How've your BGs been at home?", "Do you have diabetes?", True),
    ("How've your bowels been at home?", "Do you have diabetes?", False),
    ("Hip done when? Mobile?", "Any recent surgery or immobility?", True),
    ("Hip sore when?", "Any recent surgery or immobility?", False),
    ("How much is she taking compared with usual?", "How much is she feeding?", True),
    ("Each spin \u2014 how long?", "How long does each episode last?", True),
    ("Spinning since when?", "How long does each episode last?", False),
])
def test_history_in_chart_and_everyday_words(question: str, key_question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=[key_question])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], f"Before giving a diagnosis, asks: {key_question}") \
        is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Duration and rate of growth?", True),
    ("Rate of growth?", False),
    ("Duration, and any prior episodes?", False),  # how long each lasts (round 22's examiner)
    ("Do you ever leak, or have a sudden rush where you cannot hold on?", False),  # an urge, not an onset
])
def test_the_duration_asked_first_is_the_onset(question: str, asked: bool) -> None:
    assert _asked(_imported("Fatigue"), question, "Before giving a diagnosis, asks about when the symptoms started") \
        is asked


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back here or to the ED for fever, spreading redness, or pain.", True),
    ("Thoughts get stronger, any plan - Lifeline 13 11 14, 000 or ED.", True),
    ("Back here for your results next week.", False),
])
def test_back_here_or_to_the_ed_and_the_australian_crisis_line(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], _NET) is netted


@pytest.mark.parametrize(("text", "outright"), [
    ("Gynae called, theatre for keyhole surgery.", True),
    ("We'll get you a date in theatre for keyhole surgery next month.", False),
])
def test_theatre_for_an_operation_now(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("words_", "kind"), [
    ("You've been great advocates for him, Mom.", True),
    ("I'll advocate for a physio referral.", False),
])
def test_everyday_sympathy(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind


def test_the_tests_inside_a_screen_are_not_more_unindicated_tests() -> None:
    """The shipped agentclinic-0033 consultation: its hepatitis screen's bracketed tests, read as orders of their own
    for the credit above, were counted as four more unindicated tests and fired the penalty (9 of 15)."""
    case = _case(final_diagnosis="Acute liver failure", test_results={"Full Blood Count": "Normal"})
    turns = ["REQUEST TEST: Ammonia, paracetamol level, urine drug screen, HIV, ultrasound liver, ECG, lipase",
             "REQUEST TEST: Viral hepatitis screen (hepatitis A IgM, hepatitis B surface antigen, hepatitis E IgM, CMV IgM)",
             "DIAGNOSIS: Acute liver failure"]
    assert not _met(case, turns, "Orders tests the presentation does not call for")
    turns[1] = "REQUEST TEST: Viral hepatitis screen, hepatitis A IgM, hepatitis B surface antigen, hepatitis E IgM, CMV IgM"
    assert _met(case, turns, "Orders tests the presentation does not call for")


@pytest.mark.parametrize(("question", "asked"), [
    ("Any numbing or tingling in the hand?", True),
    ("Gone numb anywhere?", True),
    ("Number of episodes per day?", False),  # "number" stemmed to "numb"
])
def test_a_number_is_not_numbness(question: str, asked: bool) -> None:
    assert _asked(_imported("Numbness in the right hand"), question,
                  "Before giving a diagnosis, asks about numbness in the right hand") is asked
