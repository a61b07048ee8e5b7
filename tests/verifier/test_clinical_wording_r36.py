"""Round 36 (data/natural/dev/*-r36.yaml): what its examiners marked met and the grader missed or wrongly penalised,
in general form, each beside a lookalike that must come out the other way. Causes joined by a slash before "-related",
the emergency help in brackets before its conditions, a nurse called for a list of signs, a first step before the
emergency, the lay "were you sick", the mother's type and screen. The differentials weighed in lay words are in
round 34's table (`test_clinical_wording_r34.py`)."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported, _stated
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("statement", "right"), [
    ("Upper GI bleed secondary to duodenal ulcer (visible vessel), NSAID/ASA-related", True),
    ("Upper GI bleed/varices", False),
    ("Duodenal ulcer/oesophageal varices-related bleed", False),
])
def test_causes_joined_by_a_slash_before_related_are_one_cause(statement: str, right: bool) -> None:
    met, wrong, _ = _stated(("agentclinic-x", "Upper gastrointestinal bleed"), statement)
    assert (met, wrong) == (right, not right)


@pytest.mark.parametrize(("text", "outright"), [
    ("Seek urgent help (999 or A&E) for chest pain, fainting, breathlessness at rest, or black stools.", False),
    ("Seek urgent help (call 999) for any chest pain.", False),
    ("Seek urgent help (999) now.", True),
])
def test_the_help_in_brackets_before_its_conditions(text: str, outright: bool) -> None:
    assert (_recommends_emergency(text, unconditional=True) is not None) is outright


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call nurse for more drowsiness, seizure, new deficits.", True),
    ("Shaky, sweaty, confused again: juice, then 911.", True),
    ("Call nurse for a wash and a change of sheets.", False),
    ("Breakfast: juice, then toast.", False),
])
def test_a_nurse_called_for_signs_or_a_first_step_before_the_emergency(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("finding", "question", "asked"), [
    ("Vomiting", "Were you sick?", True),
    ("Occasional vomiting post-feeding", "Does he bring his milk back up after feeds?", True),
    ("Vomiting", "Were you well?", False),
    ("Paranoid and agitated behavior", "And the suspiciousness and restlessness - when did that start?", True),
    ("Paranoid and agitated behavior", "And the forgetfulness - when did that start?", False),
])
def test_lay_and_clinical_words_for_findings(finding: str, question: str, asked: bool) -> None:
    criterion = f"Before giving a diagnosis, asks about {finding[0].lower()}{finding[1:]}"
    assert _asked(_imported(finding), question, criterion) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Has it always been this way?", True),
    ("Has it always hurt on the left?", False),
])
def test_lifelong_or_acquired_asks_the_onset(question: str, asked: bool) -> None:
    case = _imported("Pain")
    assert _asked(case, question, "Before giving a diagnosis, asks about when the symptoms started") is asked


@pytest.mark.parametrize(("order", "ordered"), [
    ("maternal type & screen", True),
    ("maternal type", True),
    ("maternal age", False),
])
def test_the_mother_s_type_and_screen_is_her_blood_group(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Neonatal jaundice", test_results={"Maternal Blood Group": "O positive"})
    item = "Orders the appropriate test: Maternal Blood Group"
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Neonatal jaundice"], item) is ordered


@pytest.mark.parametrize(("words", "kind"), [
    ("Not your doing, my dear.", True),
    ("You've done everything right.", True),
    ("You're doing all the right things.", True),
    ("Do everything the leaflet says.", False),
])
def test_empathy_that_lifts_the_blame(words: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words}"], "Acknowledges the patient") is kind
