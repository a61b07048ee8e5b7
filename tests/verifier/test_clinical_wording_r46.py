"""Round 46 (data/natural/dev/*-r46.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. The onset asked as "from the first time, or is it new?", "just
tonight, or ... over the last few weeks?" and "since the operation?"; pain on a deep breath is chest pain; "a
sex-related infection", "gone up to them", "not septic" and "no pulsatile mass" weigh their rivals; "pain gets out of
hand"; safety-netting as "Back now: ...", "any X, ... and call 111" and "ED/111 now for ..."; "carrying a lot", "in a
proper state", "you didn't cause it". And "Any questions, call me" invites questions: it is no safety-net."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported

_ONSET = "Before giving a diagnosis, asks about when the symptoms started"


@pytest.mark.parametrize(("question", "asked"), [
    ("Has it been like this from the first time, or is it new?", True),
    ("Did this blow up just tonight, or has he been getting more on edge over the last few weeks?", True),
    ("Acute tonight or progressive over wks?", True),
    ("So it's the right ear that's giving you grief since the operation?", True),
    ("Is he coming tonight or tomorrow over the bridge?", False),
    ("Any pain since the operation, when you walk?", False),
])
def test_the_onset_as_a_choice_or_since_the_operation(question: str, asked: bool) -> None:
    assert _asked(_imported("Breathless on exertion"), question, _ONSET) is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("And this pain, is it sharp when you cough or take a deep breath?", True),
    ("Any cough or phlegm?", False),
])
def test_pain_on_a_deep_breath_is_chest_pain(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Community-acquired pneumonia", key_questions=["Any chest pain?"])
    assert _asked(case, question, "Before giving a diagnosis, asks: Any chest pain") is asked


@pytest.mark.parametrize(("final", "differential", "reasoning", "considered"), [
    ("Cystitis", ["Sexually transmitted infection"], "No discharge, so a sex-related infection is unlikely.", True),
    ("Cystitis", ["Acute pyelonephritis"], "No loin tenderness, so it hasn't gone up to them.", True),
    ("Acute gout", ["Septic arthritis"], "Crystals, no organisms: not septic.", True),
    ("Renal colic", ["Abdominal aortic aneurysm"], "I checked your aorta given the pain: no pulsatile mass.", True),
    ("Cystitis", ["Sexually transmitted infection"], "Nitrofurantoin for three days.", False),
])
def test_rivals_weighed_in_a_clinician_s_words(final: str, differential: list[str], reasoning: str,
                                               considered: bool) -> None:
    case = _case(final_diagnosis=final, differential=differential)
    assert _met(case, [f"DIAGNOSIS: {final}\n{reasoning} Plan as discussed."], "Considers a relevant differential") \
        is considered


@pytest.mark.parametrize(("advice", "addressed"), [
    ("Come straight back if you get a fever. Same if the pain gets out of hand.", True),
    ("Come straight back if you get a fever. Same if the swelling gets worse.", False),
])
def test_pain_out_of_hand_is_uncontrolled_pain(advice: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Renal colic", red_flags=["Uncontrolled pain"])
    turns = [f"DIAGNOSIS: Renal colic\nDiclofenac and tamsulosin. {advice}"]
    assert _met(case, turns, "Asks about or addresses the red flag: Uncontrolled pain") is addressed


_NET = "Gives safety-netting advice"


@pytest.mark.parametrize(("advice", "netted"), [
    ("Back now: hot swollen joint, fever, can't bear weight, black stools.", True),
    ("Until transfer: any apnea, cyanosis or limpness, stimulate him and call 111.", True),
    ("ED/111 now for cyanosis, apnea, increasing WOB, poor feeding.", True),
    ("Any redness spreading, call me.", True),
    ("Back now: the nurse will see you.", False),
    ("Any questions, call me.", False),
    ("Any further questions, ring us and we'll book you in.", False),
])
def test_back_now_any_then_call_and_a_help_number_after_a_slash(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan as discussed. {advice}"], _NET) is netted


@pytest.mark.parametrize(("words_", "kind"), [
    ("We'll also work on sleep and stress; you're carrying a lot.", True),
    ("It's harmless and not contagious, and you didn't cause it.", True),
    ("Oh my lover, you're in a proper state, can't keep still at all.", True),
    ("You're carrying a lot of fluid, so a water tablet.", False),
])
def test_carrying_a_lot_and_a_proper_state(words_: str, kind: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\nPlan: triptan. {words_}"], "Acknowledges the patient") is kind
