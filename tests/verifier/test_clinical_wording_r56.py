"""Round 56 (data/natural/dev/*-r56.yaml) and the re-measure of every round: a stroke's signs asked together ask about
past strokes; a voice that "got quieter" is soft speech. Both were credited before only through a family question
beside them ("Anyone in the family with heart trouble or strokes?"), which a rule tried in stop 61 and taken back
(a question about the family's illnesses asks nothing about the patient) showed."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from tests.verifier.test_clinical_wording_r25 import _asked, _imported


@pytest.mark.parametrize(("question", "asked"), [
    ("Any weakness, numbness, face drooping or speech trouble, even briefly?", True),  # atrial-fibrillation, round 52
    ("Any sudden weakness in your face or arm, trouble speaking?", True),
    ("Did you ever have a weak arm or leg, face dropping, or trouble with speaking?", True),  # round 28
    ("Any weakness in your legs when you walk?", False),
])
def test_a_strokes_signs_asked_together_ask_about_past_strokes(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["Any history of stroke?"])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks: Any history of stroke?") \
        is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Has anyone said your voice has got quieter?", True),  # agentclinic-0090, round 13
    ("Has your voice softened?", True),  # round 25
    ("Has your voice gone croaky?", False),
])
def test_a_quieter_voice_is_soft_speech(question: str, asked: bool) -> None:
    assert _asked(_imported("Soft speech"), question, "Before giving a diagnosis, asks about soft speech") is asked
