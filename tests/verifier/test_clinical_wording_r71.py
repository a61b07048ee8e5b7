"""Round 71 (data/natural/dev/*-r71.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A confusion red flag is addressed by measuring the conscious
level; a stubbed or twisted toe is an injury; "TTC" is trying to conceive; "short-windedness" is breathlessness; plain
words of empathy; "sooner if" after the review heads what to come back for; asking leave for personal questions asks
about nothing."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _irrelevant


@pytest.mark.parametrize(("order", "addressed"), [
    ("Obs incl GCS", True),  # bacterial-meningitis, terse
    ("Glasgow Coma Scale", True),
    ("Obs incl BP", False),
])
def test_a_confusion_red_flag_is_addressed_by_the_conscious_level(order: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Bacterial meningitis", red_flags=["Confusion"])
    turns = ["Any neck stiffness?", f"REQUEST EXAM: {order}", "DIAGNOSIS: Bacterial meningitis"]
    assert _met(case, turns, "Asks about or addresses the red flag: Confusion") is addressed


@pytest.mark.parametrize(("question", "key", "asked"), [
    ("Did you bump, stub or twist it?", "Any injury?", True),  # acute-gout, checklist
    ("Any stubborn pain elsewhere?", "Any injury?", False),
    ("How long have you been TTC?", "Have you had difficulty conceiving?", True),  # agentclinic-0042, us_abbrev
    ("Any TTE before?", "Have you had difficulty conceiving?", False),
    ("Any short-windedness walking up the holler or doing chores?", "Are you short of breath?", True),  # 0040
    ("Any wheeze when you run?", "Are you short of breath?", False),
])
def test_lay_words_and_abbreviations_of_round_71(question: str, key: str, asked: bool) -> None:
    case = _case(final_diagnosis="Migraine", key_questions=[key])
    assert _met(case, [question, "DIAGNOSIS: Migraine"], f"Before giving a diagnosis, asks: {key[:12]}") is asked


@pytest.mark.parametrize(("plan", "empathic"), [
    ("It's understandably wearing to live with an itch this long.", True),  # agentclinic-0047, checklist
    ("You did everything right.", True),  # agentclinic-0046, checklist
    ("Did everything go right with the delivery?", False),
    ("It's a nuisance, but it's benign.", False),  # agentclinic-0054 (r71) and 0041 (r57): the examiners split
])
def test_plain_words_of_empathy_round_71(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Acknowledges the patient's concerns") is empathic


@pytest.mark.parametrize(("advice", "netted"), [
    # agentclinic-0048, checklist
    ("Review in six weeks, sooner if a joint turns hot, red and swollen, you get fever, or you can't walk on it.", True),
    ("Follow-up in a month, earlier if the pain wakes you or you get a fever.", True),
    ("We'll review sooner if the results are abnormal.", False),
    ("I'll see you in six weeks.", False),
])
def test_sooner_if_after_the_review_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine", disposition="routine")
    turns = [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"]
    assert _met(case, turns, "Gives safety-netting advice") is netted
    assert not _met(case, turns, "Sends the patient for emergency care")


@pytest.mark.parametrize(("question", "about_nothing"), [
    ("Is it OK if I ask some questions, some of them personal?", False),  # depression, us_abbrev
    ("Any hearing loss?", True),
])
def test_asking_leave_for_personal_questions_asks_about_nothing(question: str, about_nothing: bool) -> None:
    assert bool(_irrelevant([question], frozenset({"mood", "sleep"}))) is about_nothing
