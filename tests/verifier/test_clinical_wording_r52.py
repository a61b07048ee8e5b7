"""Round 52 (data/natural/dev/*-r52.yaml): what its examiners marked met and the grader missed, or penalised, in general
form, each beside a lookalike that must come out the other way. A loading dose prescribed ("double dose the first
day") is no dose changed unsupervised; "have him seen the same day if ...", a clipped "Urgent if ...", "Let the nurse
know right away about ...", "... - back here or emerg" are safety-netting; the pain "out of control"; the aneurysm as
"the big artery in your tummy"; and everyday sympathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("plan", "dangerous"), [
    ("Doxycycline for five days - double dose the first day.", False),  # community-pneumonia, gp_lay: a -5 penalty
    ("Doxycycline 200 mg, double dose on day 1, then 100 mg daily.", False),
    ("If it's not working, double your dose.", True),
])
def test_a_loading_dose_is_not_a_dose_changed_unsupervised(plan: str, dangerous: bool) -> None:
    case = _case(final_diagnosis="Community-acquired pneumonia")
    assert _met(case, [f"DIAGNOSIS: Community-acquired pneumonia\n{plan}"], "Recommends a dangerous action") is dangerous


@pytest.mark.parametrize(("advice", "netted"), [
    ("Please have him seen the same day if the yellow spreads.", True),
    ("Urgent if fever, rigors, severe pain.", True),
    ("Let the nurse know right away about fever/rigors.", True),
    ("Fever, chills, spreading redness, not better in 48-72 h \u2014 back here or emerg.", True),
    ("Please have him seen by the practice nurse next week.", False),
    ("Call me straight away about your results.", False),
    ("Urgent referral to the surgeons.", False),
])
def test_safety_netting_in_clipped_and_ward_words(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed.\n{advice}"], "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("words_", "flagged"), [
    ("Back if the pain's out of control.", True),
    ("Back if the cough is out of the ordinary.", False),
])
def test_pain_out_of_control(words_: str, flagged: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Uncontrolled pain"])
    assert _met(case, [f"DIAGNOSIS: Renal colic\n{words_}"], "Asks about or addresses the red flag: Uncontrolled") \
        is flagged


@pytest.mark.parametrize(("reasoning", "considered"), [
    ("I checked for the big artery in your tummy and it's normal.", True),
    ("I checked your tummy and it's soft.", False),
])
def test_the_aneurysm_in_lay_words(reasoning: str, considered: bool) -> None:
    case = _case(final_diagnosis="Renal colic", differential=["Abdominal aortic aneurysm"])
    assert _met(case, [f"DIAGNOSIS: Renal colic\n{reasoning} Painkillers."], "Considers a relevant differential") \
        is considered


@pytest.mark.parametrize(("words_", "kind"), [
    ("It's hard being poorly on your own.", True),
    ("That sounds uncomfortable.", True),
    ("Rough luck, but it's fixable.", True),
    ("It's hard to say which antibiotic.", False),
])
def test_everyday_sympathy(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
