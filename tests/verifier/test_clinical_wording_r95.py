"""Round 95 (data/natural/dev/*-r95.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. "US-guided core needle bx" is a biopsy, not an ultrasound; "Any
chance there's a wean on the way?" asks about pregnancy; "biting your tongue?" about an injury; "Nae wonder you've been
greetin'" is empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


def test_a_guided_biopsy_is_a_biopsy_not_an_ultrasound() -> None:
    labels = ["Biopsy Microscopic Description", "Breast Ultrasound"]
    biopsy, ultrasound = ("Biopsy Microscopic Description",), ("Breast Ultrasound",)
    assert clinical.resolve("US-guided core needle bx of the left breast mass", labels).named == biopsy  # 0009, us_abbrev
    assert clinical.resolve("CT-guided lung biopsy", labels).named == biopsy
    assert clinical.resolve("US of the left breast", labels).named == ultrasound


@pytest.mark.parametrize(("order", "ordered"), [
    ("US-guided core needle bx of the left breast mass", True),  # agentclinic-0009, us_abbrev: a long order line
    ("US-guided drainage of the left breast collection", False),
])
def test_a_guided_biopsy_ordered_at_length_is_credited(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Phyllodes tumour", recommended_tests=["Breast biopsy"])
    turns = [f"REQUEST TEST: {order}", "DIAGNOSIS: Phyllodes tumour\nWide local excision."]
    assert _met(case, turns, "Orders the appropriate test: Breast biopsy") is ordered


@pytest.mark.parametrize(("question", "asked"), [
    ("Any chance there's a wean on the way?", True),  # cystitis, gp_lay
    ("Any chance there's a baby on the way?", True),
    ("Is the ambulance on the way?", False),
])
def test_a_wean_on_the_way_is_a_pregnancy(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Uncomplicated cystitis", key_questions=["Could you be pregnant?"])
    turns = [question, "DIAGNOSIS: Uncomplicated cystitis\nNitrofurantoin."]
    assert _met(case, turns, "Before giving a diagnosis, asks: Could you be pregnant?") is asked


@pytest.mark.parametrize(("question", "asked"), [
    ("Biting your tongue?", True),  # agentclinic-0007, checklist
    ("Biting your nails?", False),
])
def test_biting_the_tongue_is_an_injury(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Vasovagal syncope", secondary_symptoms=["no bite marks or injuries"],
                 source="agentclinic")
    turns = [question, "DIAGNOSIS: Vasovagal syncope\nReassure."]
    assert _met(case, turns, "Before giving a diagnosis, asks about bite marks or injuries") is asked


@pytest.mark.parametrize(("plan", "empathic"), [
    ("Nae wonder you've been greetin' with it.", True),  # strep-pharyngitis, gp_lay
    ("Nae antibiotics needed; come back in a week.", False),
])
def test_the_empathy_of_round_95(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, ["Any vomiting?", f"DIAGNOSIS: Migraine\n{plan}"],
                "Acknowledges the patient's concerns with empathy") is empathic
