"""Round 83 (data/natural/dev/*-r83.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "Since one hour" (Indian English for "for an hour") asks the onset;
the Spanish "¿Fiebre?" asks about fever; "Vag d/c" is vaginal discharge; "Call the same day if ..." is safety-netting."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "onset"), [
    ("Pain since one hour itself?", True),  # acs-stemi, terse
    ("Since 2 days fever is there?", True),
    ("Since one of your tablets changed?", False),
    ("Pain in one hour?", False),
])
def test_since_a_duration_asks_the_onset(question: str, onset: bool) -> None:
    assert ("intent:onset" in clinical.intents(question)) is onset


@pytest.mark.parametrize(("question", "concept", "named"), [
    ("¿Fiebre?", "fever", True),  # cellulitis and strep-pharyngitis, terse
    ("¿Fuerte?", "fever", False),
    ("Vag d/c, itching?", "genital_discharge", True),  # cystitis, us_abbrev
    ("D/c home tomorrow?", "genital_discharge", False),
])
def test_the_words_of_round_83_name_their_concepts(question: str, concept: str, named: bool) -> None:
    assert (concept in clinical.terms(question)) is named


@pytest.mark.parametrize(("advice", "netted"), [
    ("Call the same day if the yellow reaches his legs, palms or soles, or he's very sleepy.", True),  # 0073, checklist
    ("Call the same day to book the scan.", False),
])
def test_call_the_same_day_if_is_safety_netting(advice: str, netted: bool) -> None:
    case = _case(final_diagnosis="Neonatal jaundice")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Neonatal jaundice\nFeed often. {advice}"],
                "Gives safety-netting advice") is netted


@pytest.mark.parametrize(("question", "open_"), [
    ("¿Algo más?", True),  # dka, us_abbrev (the patient)
    ("¿Nada más?", True),  # cellulitis, us_abbrev (the patient)
    ("¿Más agua?", False),
])
def test_algo_mas_asks_for_anything_else(question: str, open_: bool) -> None:
    assert ("intent:associated" in clinical.intents(question)) is open_
