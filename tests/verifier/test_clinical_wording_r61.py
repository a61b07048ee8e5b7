"""Round 61 (data/natural/dev/*-r61.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. The cath lab called with the team; "yell out" as the help;
"worse with use or with rest"; milk that comes back up; how often now compared with before; plain words of
empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("plan", "now"), [
    ("I'm calling the cardiology team and the cath lab this minute.", True),  # acs-stemi, gp_lay
    ("I'm calling the cardiology team about a clinic appointment.", False),
])
def test_the_cath_lab_called_with_the_team_is_care_now(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("advice", "netted"), [
    ("If the pain ramps up, you feel lightheaded or more SOB, yell out.", True),  # acs-stemi, us_abbrev
    ("If you like, we can talk it out.", False),
])
def test_yell_out_is_the_help(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Symptoms improve with rest", "Worse with use or with rest?", True),  # agentclinic-0048, terse
    ("Symptoms improve with rest", "Worse with use?", False),
    ("Occasional vomiting post-feeding", "Does milk come back up?", True),  # agentclinic-0062, gp_lay
    ("Occasional vomiting post-feeding", "Does milk come out of his nose?", False),
    ("Increased frequency of apneic episodes", "How often now, compared with a week or two ago?", True),  # 0067
    ("Increased frequency of apneic episodes", "Frequency and trend over the past wk?", True),  # us_abbrev
    ("Increased frequency of apneic episodes", "How long does each one last?", False),
])
def test_history_in_plain_and_chart_words(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("words", "empathic"), [
    ("Five months is a long time to itch.", True),  # agentclinic-0047, terse
    ("Oh my lover, you do sound rough.", True),  # community-pneumonia, gp_lay
    ("The cream takes a long time.", False),
])
def test_plain_words_of_empathy_r61(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic
