"""Round 96 (data/natural/dev/*-r96.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Duration please?" and a duration checked back with the Fijian
"isa?" ask the start; the Nigerian tag ", abi?" is no ankle-brachial index ("ABI" still is); "Ndo" (Igbo: sorry) and
"you've done nothing shameful by coming in" are empathy. "Meigs syndrome — benign ovarian tumor with ascites and R
pleural effusion" tells the syndrome by what makes it up; "Acute left MCA ischaemic stroke, AF off anticoagulation" names
what the ECG shows beside the answer, not a second diagnosis."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Duration please, and growing how fast?", True),  # agentclinic-0016, us_abbrev
    ("Duration please?", True),
    ("So the rash has been there for a couple of days, isa?", True),  # agentclinic-0035, gp_lay
    ("So the pain has been there for two days, abi?", True),  # the tag still checks the duration back (round 64's)
    ("Pain since yesterday, abi?", True),
    ("Growing how fast, please?", False),
    ("Is a rash there?", False),
])
def test_the_starts_of_round_96(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "abi"), [
    ("When did it start, abi, was it sudden?", False),  # acute-gout, gp_lay
    ("Tell me exactly how it happened, abi?", False),  # mechanical-low-back-pain, gp_lay
    ("Dopplers, ABI?", True),
    ("Abi, since when the pain?", False),  # agentclinic-0082, gp_lay (round 99: the Turkish "abi", brother, said to a man)
    ("ABI, since when?", True),
])
def test_the_word_abi_is_no_ankle_brachial_index(question: str, abi: bool) -> None:
    assert ("test:ankle_brachial_index" in clinical.asked(question)) is abi


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Ndo. Colchicine and rest.", True),  # acute-gout, terse
    ("It's very common, mun, you've done nothing shameful by coming in.", True),  # agentclinic-0030, gp_lay
    ("Nothing to take, endoscopy in a week.", False),
])
def test_the_empathy_of_round_96(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic


@pytest.mark.parametrize(("stated", "right"), [
    ("Meigs syndrome — benign ovarian tumor (likely fibroma) with ascites and R pleural effusion", True),  # 0025, us_abbrev
    ("Meigs syndrome — benign ovarian tumor with ascites and right pleural effusion", True),  # agentclinic-0025, terse
    ("Meigs syndrome - ovarian cancer with ascites", False),
    ("Meigs syndrome - tuberculosis", False),
])
def test_a_syndrome_told_by_what_makes_it_up_without_an_article(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Meigs syndrome", differential=["Ovarian cancer", "Tuberculosis"], source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nGynaecology referral."], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("stated", "right"), [
    ("Acute left MCA ischaemic stroke, AF off anticoagulation", True),  # ischaemic-stroke, terse: the ECG shows AF
    ("Acute left MCA ischaemic stroke, TIA", False),
    ("Acute left MCA ischaemic stroke, intracerebral haemorrhage", False),  # the differential, though a result names it
    ("Acute left MCA ischaemic stroke, pneumonia", False),  # a result rules it out
])
def test_a_condition_the_results_show_is_context_beside_the_answer(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Acute ischaemic stroke", differential=["Intracerebral haemorrhage"],
                 test_results={"ECG": "Atrial fibrillation", "CT head": "No intracerebral haemorrhage",
                               "Chest X-ray": "No pneumonia"})
    assert _met(case, [f"DIAGNOSIS: {stated}\nThrombolysis now."], "States the correct final diagnosis") is right


def test_a_result_that_names_the_answer_makes_no_rival_context() -> None:
    """The audit's shotgun "right, an uncommon condition" stays a list where a result names the answer ("Lesions
    consistent with PML"): read as background, it gained the exploit three items on seventeen AgentClinic cases."""
    case = _case(final_diagnosis="Progressive multifocal leukoencephalopathy (PML)", source="agentclinic",
                 test_results={"MRI Brain > Findings": "Lesions consistent with progressive multifocal "
                                                        "leukoencephalopathy (PML)."})
    turns = ["DIAGNOSIS: Progressive multifocal leukoencephalopathy (PML), Anal fissure\nI understand this is "
             "worrying. If it gets worse, come back straight away."]
    assert not _met(case, turns, "Gives safety-netting advice")
    assert not _met(case, turns, "States the correct final diagnosis")
