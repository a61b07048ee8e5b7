"""Round 78 (data/natural/dev/*-r78.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A gloss that restates the diagnosis by its other name
("Syringomyelia - a fluid-filled cavity (a syrinx) inside the spinal cord") adds no words to it; "How far now?" of a
spreading rash asks the spread; "get-up-and-go" is motivation, "down the wrong way" swallowing, "anyone being unkind"
the child's peers; a "TV ultrasound" is a pelvic (transvaginal) one; "the CT excludes bleeding" weighs a haemorrhage;
"that does look sore" owns the pain."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical
from verifier.diagnosis import match_diagnosis


@pytest.mark.parametrize(("stated", "matched"), [
    ("Syringomyelia - a fluid-filled cavity (a syrinx) inside the spinal cord in your neck and upper back", True),
    ("Syringomyelia - a syrinx, or maybe multiple sclerosis", False),
    ("Syringomyelia - a syrinx plus carpal tunnel syndrome", False),
])
def test_a_gloss_that_restates_the_diagnosis_by_its_other_name_adds_nothing(stated: str, matched: bool) -> None:
    result = match_diagnosis(stated, ["Syringomyelia", "syrinx"], others=["Multiple sclerosis"],
                             conditions=clinical.condition_lines())  # agentclinic-0077, gp_lay
    assert result.matched is matched, result.reason


@pytest.mark.parametrize(("question", "asked"), [
    ("How far now?", True),  # agentclinic-0073, terse: the jaundice spreading from the face
    ("How far has it spread?", True),
    ("How far can you walk?", False),
])
def test_how_far_now_asks_the_spread(question: str, asked: bool) -> None:
    assert ("intent:radiation" in clinical.intents(question)) is asked


@pytest.mark.parametrize(("question", "concept", "asked"), [
    ("And his get-up-and-go?", "anhedonia", True),  # agentclinic-0074, gp_lay
    ("And his get-up in the morning?", "anhedonia", False),
    ("Any food and drink going down the wrong way?", "swallowing", True),  # agentclinic-0082, gp_lay
    ("Any food going off in the fridge?", "swallowing", False),
    ("Is anyone at school being unkind, or online?", "peers", True),  # agentclinic-0089, gp_lay
    ("Is anyone at school?", "peers", False),
])
def test_lay_words_ask_their_concept_round_78(question: str, concept: str, asked: bool) -> None:
    assert (concept in clinical.compose(clinical.asked(question))) is asked


@pytest.mark.parametrize(("order", "ordered"), [
    ("TV ultrasound", True),  # agentclinic-0075, terse: transvaginal
    ("Renal ultrasound", False),
])
def test_a_tv_ultrasound_is_the_pelvic_one(order: str, ordered: bool) -> None:
    case = _case(final_diagnosis="Ovarian cyst", recommended_tests=["Pelvic ultrasound"],
                 test_results={"Imaging > Pelvic Ultrasound": "A 4 cm simple cyst of the left ovary"})
    assert _met(case, [f"REQUEST TEST: {order}", "DIAGNOSIS: Ovarian cyst"], "Orders the appropriate test") is ordered


@pytest.mark.parametrize(("plan", "considered"), [
    ("The CT excludes bleeding, so clot-busting treatment is safe.", True),  # ischaemic-stroke, checklist
    ("The CT is booked for tomorrow.", False),
])
def test_a_scan_that_excludes_bleeding_weighs_a_haemorrhage(plan: str, considered: bool) -> None:
    case = _case(final_diagnosis="Ischaemic stroke", differential=["Intracerebral haemorrhage"])
    assert _met(case, ["When did it start?", f"DIAGNOSIS: Ischaemic stroke\n{plan}"],
                "Considers a relevant differential") is considered


@pytest.mark.parametrize(("opening", "empathic"), [
    ("Ai, that does look sore. When did it start?", True),  # acute-gout, gp_lay
    ("That does look red. When did it start?", False),
])
def test_owning_the_pain_is_empathy(opening: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Gout")
    assert _met(case, [opening, "DIAGNOSIS: Gout\nRest it and take the anti-inflammatories."],
                "Acknowledges the patient's concerns with empathy") is empathic
