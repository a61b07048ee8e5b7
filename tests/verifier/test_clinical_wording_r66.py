"""Round 66 (data/natural/dev/*-r66.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. "Obstructing" before the diagnosis; a clipped
condition before a comma and the call ("Exertional CP, or CP with SOB or diaphoresis, call 911."); measured findings
before "admit"; "a hard start for you"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier.rule_grader import _recommends_emergency


@pytest.mark.parametrize(("diagnosis", "right"), [
    ("Obstructing 5 mm L ureteral stone at the UVJ with mild hydronephrosis", True),  # renal-colic, us_abbrev
    ("Obstructing left ureteric stone", True),
    ("Ureteric stone obstructing the left kidney", True),
    ("Obstructing pyelonephritis", False),
    ("Obstructing", False),
])
def test_obstructing_before_the_name_is_an_adjective(diagnosis: str, right: bool) -> None:
    case = _case(final_diagnosis="Left ureteric stone", diagnosis_synonyms=["Ureteric stone", "Renal colic"],
                 differential=["Pyelonephritis"])
    assert _met(case, [f"DIAGNOSIS: {diagnosis}"], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "now"), [
    # gerd, us_abbrev and checklist: over-triage on a routine case
    ("Exertional CP, or CP with SOB or diaphoresis, call 911.", False),
    ("Chest pain on exertion, or pain with sweating or breathlessness, call 999.", False),
    ("Suspected heart attack, call 999 now.", True),
    ("Crushing chest pain, call 999 now.", True),
    ("This is a heart attack, call 999.", True),
    # pulmonary-embolism, terse
    ("Sats 91%, pulse 118: admit.", True),
    ("BP 80/50, HR 130: admit for fluids.", True),
    ("Sats below 90: admit.", False),
    ("Worse breathing: admit.", False),
    ("Temp 39.2, HR 120: call 999.", False),
])
def test_a_condition_before_the_call_and_findings_before_admission(advice: str, now: bool) -> None:
    assert bool(_recommends_emergency(advice, unconditional=True)) is now


@pytest.mark.parametrize(("words", "empathic"), [
    ("Hard start for you; he should do well after repair.", True),  # agentclinic-0039, terse
    ("A hard start to the stream is typical of a large prostate.", False),
])
def test_plain_words_of_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic
