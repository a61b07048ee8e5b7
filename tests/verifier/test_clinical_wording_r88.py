"""Round 88 (data/natural/dev/*-r88.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "wi?" checks a start back, "making wet nappies" asks about two
things and not about "making", a terse "Eating?" asks the appetite, "nocturnal" asks about sleep, "cephalocaudal" about
the spread, "sexually active, any contraception?" the chance of pregnancy; a tag mid-sentence ("Bring him back the
same day, wi?, if ...") does not end the advice; "..., means he needs seeing the same day", "..., 999 or A&E now" and
"Worse ... - shout" are safety-netting; "Y'all did exactly right" is empathy. ("You're doing very well" is left out:
the examiners of rounds 9 to 88 split on such praise, and adding it moved as many items wrong as right.)"""

from __future__ import annotations

import pytest

from rubric_gen.case_rubric import question_groups
from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Yellow since yesterday, wi?", True),  # agentclinic-0073, terse
    ("So he's turned yellow over the last day, wi?", True),  # agentclinic-0073, gp_lay
    ("Any pain since yesterday?", False),
    ("A fever, wi?", False),
])
def test_wi_checks_a_start_back(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


def test_making_is_not_a_thing_asked_about() -> None:
    """acute-otitis-media's key question compiled a third group, "mak", that no question could meet."""
    assert question_groups("Is he drinking and making wet nappies?") == [["fluid_intake"], ["urine_output"]]


@pytest.mark.parametrize(("question", "appetite"), [
    ("Eating?", True),  # agentclinic-0080, terse
    ("Eatin'?", True),  # acute-appendicitis, terse
    ("Pain after eating?", False),
    ("Tummy pain, worse with food?", False),
])
def test_a_terse_eating_asks_the_appetite(question: str, appetite: bool) -> None:
    assert ("appetite" in clinical.asked(question)) is appetite


def test_a_heading_that_names_food_asks_nothing_of_its_own() -> None:
    """agentclinic-0080 (round 62): "Now, food." opens questions about what was eaten, not about the appetite."""
    assert "appetite" not in clinical.asked("Now, food.")


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("Bone pain: location, b/l, nocturnal?", "sleep", True),  # agentclinic-0068, us_abbrev
    ("Bone pain: location, b/l, bruising?", "sleep", False),
    ("Cephalocaudal progression: is it past the umbilicus?", "intent:radiation", True),  # agentclinic-0073, us_abbrev
    ("Is it itchy around the umbilicus?", "intent:radiation", False),
    ("Sexually active, using any contraception?", "intent:pregnancy_chance", True),  # ectopic-pregnancy, us_abbrev
    ("Any contraindications to the pill?", "intent:pregnancy_chance", False),
])
def test_the_questions_of_round_88(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks


@pytest.mark.parametrize(("advice", "netted"), [
    ("Bring him back the same day, wi?, if he becomes very sleepy or floppy.", True),  # agentclinic-0073, gp_lay
    ("A temperature of 38 or more, or him going off his feeds, means he needs seeing the same day.", True),  # 0071
    ("Voices telling you to self-harm, or suicidal thoughts, 999 or A&E now.", True),  # agentclinic-0064, terse
    ("Worse dizziness or pain before theatre - shout.", True),  # ectopic-pregnancy, terse
    ("Bring him back in a week, wi?, and we'll see.", False),
    ("His weight, his feeds and his nappies mean he needs seeing in a month.", False),
    ("Theatre - now.", False),
])
def test_the_safety_netting_of_round_88(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\nRest and fluids. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Y'all did exactly right bringing her.", True),  # bronchiolitis, checklist
    ("Y'all did the paperwork right.", False),
    ("Y'all come back in a week.", False),
])
def test_the_empathy_of_round_88(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
