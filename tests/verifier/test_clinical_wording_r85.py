"""Round 85 (data/natural/dev/*-r85.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. What has lasted since an event ("hanging around since the sinus
infection?") asks the onset; "postprandial" asks what brings it on; "I considered your heart" weighs angina; "Tell his
nurse right away for fever" is safety-netting; "please do not feel embarrassed" is empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Maybe this has been hanging around since the sinus infection?", True),  # agentclinic-0005, gp_lay
    ("Has it carried on since the sinusitis cleared?", True),  # agentclinic-0005, checklist
    ("Has he been hanging around with new friends?", False),
    ("Have you carried on with the tablets?", False),
])
def test_what_has_lasted_since_an_event_asks_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "triggers"), [
    ("Timing: postprandial, supine, exertional?", True),  # gerd, us_abbrev
    ("Timing: morning or evening?", False),
])
def test_postprandial_asks_what_brings_it_on(question: str, triggers: bool) -> None:
    assert ("intent:triggers" in clinical.intents(question)) is triggers


@pytest.mark.parametrize(("plan", "considered"), [
    ("I considered your heart, but the pain isn't brought on by exertion.", True),  # gerd, checklist
    ("I considered your diet, but the pain isn't brought on by food.", False),
])
def test_i_considered_your_heart_weighs_angina(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Angina"])
    assert _met(case, ["Any heartburn?", f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{plan}"],
                "Considers a relevant differential") is considered


@pytest.mark.parametrize(("advice", "netted"), [
    ("Tell his nurse right away for fever, more vomiting or a swollen tummy.", True),  # agentclinic-0014, us_abbrev
    ("Tell his nurse what he likes to eat.", False),
])
def test_tell_his_nurse_right_away_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Duodenal atresia")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Duodenal atresia\nSurgery tomorrow. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "empathic"), [
    ("This is common and treatable, please do not feel embarrassed.", True),  # agentclinic-0011, checklist
    ("This is common and treatable, please do not eat late.", False),
])
def test_do_not_feel_embarrassed_is_empathy(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic


@pytest.mark.parametrize(("question", "concept", "named"), [
    ("Blur?", "vision", True),  # agentclinic-0021, checklist and terse (the patient)
    ("Blue?", "vision", False),
    ("Not empty after?", "tenesmus", True),  # agentclinic-0024, terse (the patient)
    ("Is the bottle empty after?", "tenesmus", False),
])
def test_blur_and_not_empty_after_name_their_concepts(question: str, concept: str, named: bool) -> None:
    assert (concept in clinical.terms(question)) is named
