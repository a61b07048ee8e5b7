"""Round 74 (data/natural/dev/*-r74.yaml): what its examiners marked met and the grader missed or wrongly credited, in
general form, each beside a lookalike that must come out the other way. "Wound-up" behaviour is agitation; pain that
came on "while you were playing" is the sport; pain "much worse than the leg looks" is out of proportion; "see double"
is diplopia; a medicine "started on" is no onset; "Any close contacts unwell?" is asked about others, not by
"Feeling unwell?"; plain empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "key", "named"), [
    ("When did this odd, wound-up behaviour start?", "confusion", True),  # agentclinic-0101, gp_lay
    ("How is the wound healing?", "confusion", False),
    ("Did the pain come on suddenly while you were playing?", "sport", True),  # agentclinic-0102, checklist
    ("Is he playing up at home?", "sport", False),
    ("Is the pain much worse than the leg looks?", "out_of_proportion", True),  # cellulitis, gp_lay
    ("Is the leg worse than yesterday?", "out_of_proportion", False),
    ("Do you see double?", "diplopia", True),  # agentclinic-0107, checklist
    ("Do you see the GP often?", "diplopia", False),
    ("Did you see a midwife at all?", "pregnancy", True),  # agentclinic-0008, gp_lay
    ("Are they fragile or tense?", "blister_roof", True),  # agentclinic-0098, us_abbrev
    ("Do they break easily?", "blister_roof", True),  # agentclinic-0098, checklist
    ("Are you tense?", "blister_roof", False),
])
def test_round_74s_words(question: str, key: str, named: bool) -> None:
    assert (key in clinical.terms(question)) is named


@pytest.mark.parametrize(("question", "asked"), [
    # the started-on medicine had credited round 69's AgentClinic 0103 onset; its examiner's evidence was this duration
    ("So a temperature, an itchy rash and achy joints for two days, is it?", True),
    ("Cough for three weeks now, yeah?", True),
    ("On the pill for two years, right?", False),
    ("You've smoked for twenty years, right?", False),
])
def test_a_duration_after_what_has_been_going_on_checked_back_asks_the_onset(question: str, asked: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("When did it start?", True),
    ("It started on Monday?", True),
    ("Med hx: she was started on an abx for sinusitis, right?", False),  # agentclinic-0103, us_abbrev
    ("When was she started on amoxicillin?", False),
])
def test_a_medicine_started_on_is_no_onset(question: str, asked: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Anyone else in the halls been unwell?", True),  # bacterial-meningitis, gp_lay
    ("Anyone at home unwell?", True),
    ("Any unwell contacts in your halls?", True),  # round 29's examiner credited it
    ("Is anyone else in the halls sick like this?", True),  # round 13's
    ("Any contact details for your GP?", False),
    ("Feeling unwell?", False),  # round 74's false credit: the patient's own malaise
    ("When did the headache start? Have you been unwell?", False),
])
def test_close_contacts_unwell_is_asked_about_others(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Bacterial meningitis", key_questions=["Any close contacts unwell?"])
    assert _met(case, [question, "DIAGNOSIS: Bacterial meningitis"], "Before giving a diagnosis, asks: Any close") is asked


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Please don't lose heart.", True),  # agentclinic-0005, checklist
    ("Tough going, mate, but the antibiotics went in early.", True),  # bacterial-meningitis, terse
    ("Tough stretch, mate - treatable.", True),  # depression, terse
    ("Going is tough on that knee: use a stick.", False),
])
def test_plain_words_of_empathy_round_74(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Acknowledges the patient's concerns") is empathic
