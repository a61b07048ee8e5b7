"""Round 72 (data/natural/dev/*-r72.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. A gloss between two spaced dashes is an aside,
as in brackets; a duration checked back with a tag and no "for" asks the onset; "SBR" is the serum bilirubin; parent
and teacher behaviour rating questionnaires are the behavioural checklists; "clot in lung" is a pulmonary embolism;
hearing them "when no one's there" is hallucinations; "LKW" is the time last known well."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_GCT = "Granulosa cell tumor"


@pytest.mark.parametrize(("diagnosis", "right"), [
    # agentclinic-0075, gp_lay
    ("Granulosa cell tumour of the left ovary — a hormone-making ovarian tumour — which has caused an early cancer in "
     "the lining of the womb", True),
    ("Granulosa cell tumour - a hormone-making tumour - of the left ovary", True),
    ("Granulosa cell tumour — or a Sertoli cell tumour — of the left ovary", False),
    ("Granulosa cell tumour — endometrial cancer", False),
    ("Endometrial cancer — a cancer of the womb lining — which has caused anaemia", False),
])
def test_a_gloss_between_two_dashes_is_an_aside(diagnosis: str, right: bool) -> None:
    case = _case(final_diagnosis=_GCT, source="agentclinic", differential=["Endometrial cancer"])
    assert _met(case, [f"DIAGNOSIS: {diagnosis}"], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("question", "asked"), [
    ("Five days of this tummy pain, right?", True),  # agentclinic-0060, gp_lay
    ("Five days, right?", True),  # terse
    ("Five days of antibiotics, right?", False),
    ("Two tablets, right?", False),
])
def test_a_duration_checked_back_with_a_tag_asks_the_onset(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Migraine", key_questions=["When did the symptoms start?"])
    assert _met(case, [question, "DIAGNOSIS: Migraine"], "Before giving a diagnosis, asks: When did") is asked


@pytest.mark.parametrize(("order", "labels", "named"), [
    ("SBR total + conjugated", ["Bilirubin Total"], True),  # agentclinic-0073, terse
    ("SBP check", ["Bilirubin Total"], False),
    ("Parent and teacher behaviour rating questionnaires", ["Parent and Teacher Behavioral Checklists"], True),  # 0057
    ("Parent and teacher meeting", ["Parent and Teacher Behavioral Checklists"], False),
])
def test_round_72s_test_names(order: str, labels: list[str], named: bool) -> None:
    assert bool(clinical.resolve(order, labels).named) is named


@pytest.mark.parametrize(("plan", "considered"), [
    ("Clot in lung? Considered. No: no calf swelling, sats fine.", True),  # community-pneumonia, terse
    ("Clot in the leg? Considered. No.", False),
])
def test_a_clot_in_lung_is_a_pulmonary_embolism(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Community-acquired pneumonia", differential=["Pulmonary embolism"])
    assert _met(case, ["Any cough?", f"DIAGNOSIS: Community-acquired pneumonia\n{plan}"],
                "Considers a relevant differential") is considered


@pytest.mark.parametrize(("question", "asked"), [
    ("You hear them when no one's there, right?", True),  # agentclinic-0064, gp_lay
    ("Do you hear things that aren't there?", True),
    ("Who looks after the kids when no one's home?", False),
])
def test_hearing_them_when_no_ones_there_is_hallucination(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Major depressive disorder with psychotic features",
                 key_questions=["Do you hear voices?"])
    assert _met(case, [question, "DIAGNOSIS: Major depressive disorder with psychotic features"],
                "Before giving a diagnosis, asks: Do you hear") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("LKW, what time?", True),  # ischaemic-stroke, us_abbrev
    ("LKS? LFTs?", False),
])
def test_lkw_asks_when_last_known_well(question: str, asked: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is asked
