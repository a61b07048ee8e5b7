"""Round 42 (data/natural/dev/*-r42.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A bleeding disorder by name, the game or the match a pain began
in, a terse "When exactly?", the stroke scale as a neurological examination, the heart set aside ("so I'm not thinking
heart"), "Call sooner for new ...", a list that "means 111", and "Hard time" and "no surprise you" (not "you're in
the right place", which is reassurance)."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier import clinical


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Family history of similar bleeding problems and joint swelling",
     "FHx: the uncle, maternal or paternal side? Anyone formally dx'd w/ hemophilia or vWD?", True),
    ("Family history of similar bleeding problems and joint swelling", "FHx: the uncle, maternal or paternal side?",
     False),
    ("Pain started while playing football", "Any injury during the match?", True),
    ("Pain started while playing football", "Did you take any knock or kick down there in the game?", True),
    ("Pain started while playing football", "Any injury?", False),
])
def test_a_bleeding_disorder_by_name_and_the_game_it_began_in(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, "Before giving a diagnosis, asks about") is asked


def test_the_match_alone_is_no_sport() -> None:
    assert "sport" not in clinical.asked("Group and cross-match?")


def test_a_terse_when_exactly_asks_the_onset() -> None:
    case = _case(final_diagnosis="Mechanical low back pain", key_questions=["How did it start?"])
    item = "Before giving a diagnosis, asks: How did it start"
    assert _asked(case, "When exactly?", item)
    assert not _asked(case, "Where exactly?", item)


@pytest.mark.parametrize(("orders", "looked"), [
    ("REQUEST EXAM: HR, BP, glucose, NIHSS", True),
    ("REQUEST EXAM: HR, BP, glucose", False),
])
def test_the_stroke_scale_examines_speech(orders: str, looked: bool) -> None:
    case = _case(final_diagnosis="Ischaemic stroke", red_flags=["Speech disturbance"])
    turns = ["When did it start?", orders, "DIAGNOSIS: Ischaemic stroke\nThrombolysis now."]
    assert _met(case, turns, "Asks about or addresses the red flag: Speech disturbance") is looked


def test_the_stroke_scale_is_the_neurological_examination_for_the_responder_too() -> None:
    assert "site:nervous_system" in clinical.read_order("NIHSS", exam=True).sites


@pytest.mark.parametrize(("reasoning", "considered"), [
    ("Your heart tracing is normal and the pain isn't brought on by exertion, so I'm not thinking heart.", True),
    ("Your heart tracing is normal.", False),
])
def test_the_heart_set_aside(reasoning: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Angina"])
    turns = [f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{reasoning} Omeprazole."]
    assert _met(case, turns, "Considers a relevant differential") is considered


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call sooner for new fractures, severe pelvic pain, or low mood.", True),
    ("Call for new fracture, severe pelvic pain, or low mood on isotretinoin.", True),
    ("Safety: SI, choking or aspiration sx (fever, cough) mean 111 or the crisis team.", True),
    ("Call for your results on Friday.", False),
    ("Call us for a new appointment in six weeks.", False),
    ("The results mean 111 fewer questions for you.", False),
])
def test_call_sooner_for_new_and_a_list_that_means_111(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("words_", "kind"), [
    ("Hard time, my dear - treatable.", True),
    ("It's no surprise you've been exhausted.", True),
    ("This is serious, but you're in the right place.", False),  # reassurance (examiners split 1:1)
    ("Take the tablets at the right time.", False),
])
def test_a_hard_time_and_the_right_place(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
