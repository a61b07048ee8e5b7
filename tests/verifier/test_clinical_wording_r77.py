"""Round 77 (data/natural/dev/*-r77.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A "?" inside brackets keeps its question whole ("timing (worse on
waking?)?"); a baby's "Feeding?" asks the appetite; "bring up feeds" is vomiting and "the runs" diarrhoea; "when the
teacher asks you to do something" asks about defiance; "Any spread?" and "distribution" of a rash ask where else it
is; "have you only got the one?" of the kidneys asks about a single kidney; "Let nursing know right away for ..." is
safety-netting; "I don't think it's your heart" weighs angina."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.rule_grader import questions


def _asks(question: str) -> frozenset[str]:
    return clinical.compose(clinical.asked(question))


def test_a_mark_inside_brackets_keeps_its_question_whole() -> None:
    turn = "When did it start? Location, distribution, timing (worse on waking?)? Any spread?"  # agentclinic-0065
    assert questions(turn) == ["When did it start?", "Location, distribution, timing (worse on waking?)?", "Any spread?"]
    assert questions("Any pain (yes or no?) Where?") == ["Any pain (yes or no?)", "Where?"]


@pytest.mark.parametrize(("question", "concept", "asked"), [
    ("Feeding?", "appetite", True),  # agentclinic-0052, terse: a baby's appetite
    ("Breast or bottle?", "appetite", False),
    ("Does he bring up feeds?", "vomiting", True),  # agentclinic-0062, checklist
    ("Does he bring up phlegm?", "vomiting", False),
    ("Did the tummy pain, runs and being sick come on straight after eating?", "diarrhoea", True),  # agentclinic-0070
    ("Does the pain run down your leg?", "diarrhoea", False),
    ("What happens when the teacher asks you to do something?", "defiance", True),  # agentclinic-0057, gp_lay
    ("What does your teacher say about him?", "defiance", False),
    ("Which teachers, which activities?", "school_activities", True),  # agentclinic-0057, terse
    ("Which teachers?", "school_activities", False),
    ("Any problems with your kidneys, or have you only got the one?", "solitary_kidney", True),  # renal-colic, gp_lay
    ("Have you only got the one child?", "solitary_kidney", False),
    ("Any problems with your kidneys?", "solitary_kidney", False),
    ("Born term?", "birth_history", True),  # agentclinic-0052, terse
])
def test_lay_and_clipped_words_ask_their_concept_round_77(question: str, concept: str, asked: bool) -> None:
    assert (concept in _asks(question)) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Any spread?", True),  # agentclinic-0065, us_abbrev: a rash elsewhere
    ("Location, distribution, timing?", True),
    ("Any itch?", False),
    ("Where does it itch most?", False),
])
def test_spread_and_distribution_ask_where_else(question: str, asked: bool) -> None:
    assert ("intent:elsewhere" in _asks(question)) is asked


@pytest.mark.parametrize(("question", "previous"), [
    ("Past liver or pancreas trouble?", True),  # agentclinic-0058, terse
    ("Any past surgery?", True),
    ("Pain in the past few days?", False),
    ("Worse in the past 24 hours?", False),
])
def test_past_as_a_word_asks_the_history(question: str, previous: bool) -> None:
    assert ("intent:previous" in clinical.intents(question)) is previous


@pytest.mark.parametrize(("plan", "netted"), [
    ("Let nursing know right away for chest pain, seizure, rising temp.", True),  # agentclinic-0059, us_abbrev
    ("Let nursing know your diet preferences.", False),
])
def test_telling_nursing_what_to_watch_for_is_safety_netting(plan: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "considered"), [
    ("Your tracing is normal and it never comes on with exertion, so I don't think it's your heart.", True),  # gerd
    ("I'll listen to your heart and chest before you go.", False),
])
def test_setting_the_heart_aside_weighs_angina(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Angina"])
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"],
                "Considers a relevant differential") is considered


@pytest.mark.parametrize(("plan", "considered"), [
    ("Nothing points to a bleeding ulcer.", True),  # gerd, gp_lay
    ("Nothing points to anything more sinister.", False),
])
def test_a_bleeding_ulcer_is_peptic_ulcer_disease(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Peptic ulcer disease"])
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"],
                "Considers a relevant differential") is considered
