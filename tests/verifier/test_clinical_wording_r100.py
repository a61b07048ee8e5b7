"""Round 100 (data/natural/dev/*-r100.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. The Cardiff "tamping" (furious) and "lashing out" ask about
agitation; "What do you usually eat?" asks about the diet; the German tag ", or?" makes a start checked back a question;
a terse "Started where? ... Moved?" asks where the pain went; "a hard year" is empathy; "...: come straight in" is
safety-netting."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("question", "asked"), [
    ("Has he been tamping with anyone, or lashing out?", True),  # agentclinic-0101, gp_lay
    ("Has he been tamping, any aggression or violence?", True),  # agentclinic-0101, us_abbrev
    ("Any violent vomiting?", False),
])
def test_tamping_and_lashing_out_ask_about_agitation(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Schizophreniform disorder", secondary_symptoms=["psychomotor agitation"],
                 source="agentclinic")
    turns = [question, "DIAGNOSIS: Schizophreniform disorder\nPsychiatry referral."]
    assert _met(case, turns, "Before giving a diagnosis, asks about psychomotor agitation") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("What do you usually eat?", True),  # iron-deficiency-anaemia, gp_lay
    ("Any pain after you eat?", False),
])
def test_what_you_usually_eat_is_the_diet(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Iron deficiency anaemia", key_questions=["What is your diet like?"])
    turns = [question, "DIAGNOSIS: Iron deficiency anaemia\nFerrous sulfate daily."]
    assert _met(case, turns, "Before giving a diagnosis, asks: What is your diet like?") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Rash since yesterday, or?", True),  # agentclinic-0106, terse (the German "oder?")
    ("Pain is there since two days, no?", True),  # the Kerala tag of the brief
    ("Rash on the arms, or?", False),
])
def test_a_start_checked_back_with_or_or_no_asks_it(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Erythema toxicum", secondary_symptoms=["rash"], source="agentclinic")
    turns = [question, "DIAGNOSIS: Erythema toxicum\nNo treatment needed."]
    assert _met(case, turns, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("turns", "asked"), [
    (["Since when? Started where?", "Moved? Worse walking, coughing?"], True),  # acute-appendicitis, terse
    (["Where did the pain begin, and where is it now?"], True),
    (["Since when?", "Moved house recently?"], False),
])
def test_where_it_started_and_went_asks_the_migration(turns: list[str], asked: bool) -> None:
    case = _case(final_diagnosis="Acute appendicitis", key_questions=["Where did the pain start and where is it now?"])
    assert _met(case, [*turns, "DIAGNOSIS: Acute appendicitis\nSurgeons now."],
                "Before giving a diagnosis, asks: Where did the pain start") is asked


@pytest.mark.parametrize(("plan", "empathic"), [
    ("This has been a hard year for you.", True),  # iron-deficiency-anaemia, gp_lay
    ("Tough year. This will improve.", True),  # terse
    ("You've pushed through a lot. This is very treatable.", True),  # checklist
    ("It's tiring when he's up in the night; this should settle soon.", True),  # acute-otitis-media, checklist
    ("We will review the bloods next year.", False),
])
def test_the_empathy_of_round_100(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic


@pytest.mark.parametrize(("advice", "netted"), [
    ("Fast breathing, sweating with feeds, blue, not feeding, fever: come straight in.", True),  # agentclinic-0008
    ("Come straight in to the clinic room now.", False),
])
def test_come_straight_in_after_what_to_watch_for_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted
