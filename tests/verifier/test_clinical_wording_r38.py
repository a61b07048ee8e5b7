"""Round 38 (data/natural/dev/*-r38.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. Where a weakness is ("Weak where?"), gym against recess, loss of
interest in the family, how long each spell lasts, pain worse than the redness looks, fluid drawn off a joint, the help
heading its conditions ("Back or A&E if: ..."), the nurse flagged for a list of signs, the US crisis line, the team
paged at once or taking the patient to theatre, and empathy for news that is not easy."""

from __future__ import annotations

import pytest

from patient_sim.cases import project_cases
from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency
from verifier.types import Case


def _weak_shoulders() -> Case:
    """An imported case whose weakness is in several findings, so that "weakness in upper limbs" asks where it is."""
    return Case(id="agentclinic-x", chief_complaint="Weakness", history_of_present_illness="Two months of weakness.",
                secondary_symptoms=["Difficulty climbing stairs", "Weakness in upper limbs",
                                    "Improvement of symptoms after rest"],
                final_diagnosis="Myasthenia gravis", source="agentclinic")


@pytest.mark.parametrize(("question", "asked"), [
    ("Weak where?", True),
    ("Any weakness in your arms?", True),
    ("Any weakness?", False),  # the weakness, not where it is
    ("Where do you live?", False),
])
def test_where_a_weakness_is(question: str, asked: bool) -> None:
    assert _asked(_weak_shoulders(), question, "Before giving a diagnosis, asks about weakness in upper limbs") is asked


@pytest.mark.parametrize(("finding", "question", "asked"), [
    ("Reluctance to participate in certain school activities", "What's the story w/ gym vs recess?", True),
    ("Reluctance to participate in certain school activities", "Gym versus recess, why?", True),
    ("Reluctance to participate in certain school activities", "Energy drinks, gym supplements?", False),
    ("Apathy", "Less interest in family?", True),
    ("Apathy", "Interest in family?", True),
    ("Apathy", "Family history of heart disease?", False),
    ("Cramping relieved by diarrhea", "Pain better after opening your bowels?", True),
])
def test_school_activities_interest_and_relief_in_other_words(finding: str, question: str, asked: bool) -> None:
    assert _asked(_imported(finding), question, "Before giving a diagnosis, asks about") is asked


def _project(case_id: str) -> Case:
    return next(c for c in project_cases() if c.id == case_id)


@pytest.mark.parametrize(("question", "asked"), [
    ("Each spin lasts?", True),
    ("Each one lasts how long?", True),
    ("Did it last week?", False),
])
def test_how_long_each_spell_lasts(question: str, asked: bool) -> None:
    case = _project("bppv")
    assert _asked(case, question, "Before giving a diagnosis, asks: How long does each episode last?") is asked


@pytest.mark.parametrize(("question", "addressed"), [
    ("Is the pain much worse than the redness looks?", True),
    ("Is the redness worse than yesterday?", False),
])
def test_pain_worse_than_the_redness_looks(question: str, addressed: bool) -> None:
    case = _project("cellulitis")
    assert _asked(case, question, "Asks about or addresses the red flag: Pain out of proportion") is addressed


@pytest.mark.parametrize(("order", "ordered"), [
    ("Draw fluid off the left wrist joint for cell count, Gram stain and culture", True),
    ("Take some fluid from the wrist", True),
    ("Take fluid from the drip", False),
])
def test_fluid_drawn_off_a_joint_is_its_aspiration(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Septic arthritis", test_results={"Joint Aspiration Left Wrist": "Pus, 80,000 WBC"})
    item = "Orders the appropriate test: Joint Aspiration Left Wrist"
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Septic arthritis"], item) is ordered


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back or A&E if: less urine, swelling, breathless, vomiting.", True),
    ("Flag the RN right away for CP, palpitations, worsening HA.", True),
    ("Thoughts getting worse, any plan: 1-800-SUICIDE, 911 or emerg.", True),
    ("Back or A&E: we'll see.", False),
    ("Flag the RN for your discharge letter.", False),
])
def test_the_help_heading_its_conditions_and_the_nurse_flagged(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("text", "outright"), [
    ("Gyne paged stat for laparoscopy / likely L salpingectomy in the OR.", True),
    ("Now: two large IVs, fluids, crossmatch. NPO. Gyne to OR, laparoscopy.", True),
    ("Plan, now: 2 large-bore IVs, fluids, 2 units crossmatched.", True),
    ("Gyne to see you in clinic in six weeks.", False),
    ("If you bleed again, we'd put in two large-bore IVs.", False),
])
def test_the_team_paged_at_once_or_taking_the_patient_to_theatre(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


@pytest.mark.parametrize(("words", "kind"), [
    ("I'm afraid this isn't easy news, so I'll go through it slowly.", True),
    ("Rough timing after the hip, but very treatable.", True),
    ("The timing of the tablets is easy: once a day.", False),
])
def test_empathy_for_news_that_is_not_easy(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind
