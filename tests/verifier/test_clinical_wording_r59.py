"""Round 59 (data/natural/dev/*-r59.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A slash between two words of one condition's names; the nurse
told or called at once, without an article; the emergency after a list of red flags; a plan's "Now:" and the
operation; the specialist a patient is sent to; plain words of empathy; "clumsier"; "any cut"."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported
from verifier.rule_grader import _recommends_emergency

_JERSEY = "Rupture of the flexor digitorum profundus tendon at its point of insertion"


@pytest.mark.parametrize(("diagnosis", "right"), [
    # agentclinic-0015, us_abbrev: "rupture" is a word of the condition's own names
    ("Jersey finger: FDP tendon avulsion/rupture at its insertion on the distal phalanx, R ring finger", True),
    ("FDP tendon avulsion/sprain", False),
    ("Jersey finger/mallet finger", False),
])
def test_a_slash_between_two_words_of_one_conditions_names_is_no_list(diagnosis: str, right: bool) -> None:
    case = _case(final_diagnosis=_JERSEY, source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {diagnosis}"], "States the correct final diagnosis") is right


@pytest.mark.parametrize(("advice", "netted"), [
    ("Tell nurses now if blood, fever, distension.", True),  # agentclinic-0017, terse
    ("Notify your nurse right away for blood in the stool, fever or belly pain.", True),  # us_abbrev
    ("Call staff straight away for pauses in breathing or blue lips.", True),  # bronchiolitis, us_abbrev
    ("Tell your RN right away if you feel lightheaded or the bleeding gets heavier.", True),  # ectopic-pregnancy
    ("Red flags - SOB, dysphagia, choking: that's possible myasthenic crisis, so 911 / straight to the ED.", True),
    ("Call us about a repeat prescription.", False),
    ("Tell your RN what you had for breakfast.", False),
])
def test_the_nurse_told_at_once_and_the_emergency_after_red_flags(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("plan", "now"), [
    ("Now: gynae, theatre, laparoscopy.", True),  # ectopic-pregnancy, terse
    ("Now: rest. Laparoscopy next month if the pain persists.", False),
])
def test_the_plans_now_and_the_operation_is_care_now(plan: str, now: bool) -> None:
    assert bool(_recommends_emergency(plan, unconditional=True)) is now


@pytest.mark.parametrize(("plan", "planned"), [
    ("Urgent neurology. Pyridostigmine; thymectomy to discuss.", True),  # agentclinic-0001, terse
    ("I'm sending you to a breast surgeon promptly.", True),  # agentclinic-0009, checklist
    ("It is a benign-looking thing.", False),
])
def test_the_specialist_the_patient_is_sent_to_is_a_plan(plan: str, planned: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Gives a clear management plan") is planned


@pytest.mark.parametrize(("words", "empathic"), [
    ("Double vision's no joke, so let's get to the bottom of it.", True),  # agentclinic-0001, gp_lay
    ("Tough spell, but it's treatable.", True),  # depression, terse
    ("It's hard seeing her like this, and you've done exactly the right thing.", True),  # bronchiolitis, gp_lay
    ("Take it as a joke.", False),
])
def test_plain_words_of_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{words}"], "Acknowledges the patient's concerns") is empathic


@pytest.mark.parametrize(("symptom", "question", "asked"), [
    ("Limb ataxia", "Is one arm or leg weaker or clumsier?", True),  # agentclinic-0002, checklist
    ("Limb ataxia", "Is one arm or leg weaker?", False),
])
def test_clumsier_is_limb_ataxia(symptom: str, question: str, asked: bool) -> None:
    assert _asked(_imported(symptom), question, f"Before giving a diagnosis, asks about {symptom.lower()}") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Any cut there?", True),  # cellulitis, terse
    ("Any cut down on drinking?", False),
])
def test_any_cut_is_a_break_in_the_skin(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["Any break in the skin?"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Any break in the skin?") is asked
