"""Round 53 (data/natural/dev/*-r53.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A terse "Light?" after a headache asks about photophobia; a
"psychological eval" is the psychological evaluation."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met


@pytest.mark.parametrize(("question", "asked"), [
    ("Headache: when, how fast? Fever? Vomiting? Light? Neck?", True),  # bacterial-meningitis, terse
    ("Headache: when, how fast? Fever? Vomiting? Light-headed?", False),
])
def test_a_terse_light_asks_about_photophobia(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Something specific", key_questions=["Any dislike of light?"])
    assert _met(case, [question, "DIAGNOSIS: Something specific"], "Before giving a diagnosis, asks: Any dislike of light?") \
        is asked


@pytest.mark.parametrize(("order", "ordered"), [
    ("REQUEST TEST: Parent and teacher rating scales, psychological eval to r/o ADHD", True),  # agentclinic-0057
    ("REQUEST TEST: Parent and teacher rating scales", False),
])
def test_a_psychological_eval_is_the_psychological_evaluation(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Oppositional defiant disorder", recommended_tests=["Psychological Evaluation"])
    assert _met(case, [order, "DIAGNOSIS: Oppositional defiant disorder"],
                "Orders the appropriate test: Psychological Evaluation") is ordered
