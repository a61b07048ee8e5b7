"""Round 68 (data/natural/dev/*-r68.yaml): what its examiners marked met and the grader missed, beside lookalikes. The
bronchiolitis case's swab result is labelled by what it tests for, so an RSV order ("NPA for RSV") names it, as the
measurement responder already answered."""

from __future__ import annotations

import pytest

from patient_sim.cases import project_cases
from tests.verifier.test_clinical_wording import _met
from verifier import clinical


@pytest.mark.parametrize(("order", "named"), [
    ("NPA for RSV", True),  # bronchiolitis, terse
    ("RSV swab", True),
    ("Nasopharyngeal swab", True),
    ("Throat swab", False),
    ("FBC", False),
])
def test_an_rsv_order_names_the_bronchiolitis_swab(order: str, named: bool) -> None:
    case = next(c for c in project_cases() if c.id == "bronchiolitis")
    assert bool(clinical.resolve(order, list(case.test_results)).named) is named
    assert _met(case, ["How is she feeding?", f"REQUEST TEST: {order}", "DIAGNOSIS: Bronchiolitis"],
                "Orders the appropriate test: Nasopharyngeal swab") is named
