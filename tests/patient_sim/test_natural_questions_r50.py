"""Questions the template patient answered wrongly in round 50 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: "Still on the azithro and Bactrim prophylaxis?" was answered "No" by a patient whose record lists
azithromycin and trimethoprim-sulfamethoxazole, because the clipped and brand names were not antibiotics."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies


@pytest.mark.parametrize(("question", "told"), [
    ("Still on the azithro and Bactrim prophylaxis?", True),  # agentclinic-0021 (r50), us_abbrev
    ("Still taking Septra?", True),
    ("Still on the nitro spray?", False),
])
def test_antibiotics_by_their_brand_and_clipped_names(question: str, told: bool) -> None:
    case = _case(chief_complaint="Black spots in the right eye",
                 medications=["Azithromycin", "Trimethoprim-sulfamethoxazole"])
    assert bool({"Azithromycin", "Trimethoprim-sulfamethoxazole"} & set(_replies(case, question)[0])) is told
