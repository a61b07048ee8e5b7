"""Round 92 (data/natural/dev/*-r92.yaml): what its examiners marked met and the grader missed, in general form, each
beside a lookalike that must come out the other way. A Vietnamese-trained doctor's "You try for baby how long?" asks
about fertility and "try penetrate" about sex; "Why not PE?" asks about school activities; "what's coming up" asks
about the sputum; a conduct screen beside a defiant child's history ("Fights? Stealing? Hurting animals?") is about his
behaviour, not about nothing in the case."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "key", "asks"), [
    ("You try for baby how long?", "fertility", True),  # agentclinic-0042, gp_lay
    ("Try the inhaler, how long?", "fertility", False),
    ("Muscle tighten when try penetrate, yes or not?", "sexual_history", True),  # agentclinic-0042, checklist
    ("Muscle tighten when you try to walk?", "sexual_history", False),
    ("Why not PE?", "school_activities", True),  # agentclinic-0057, terse
    ("Any PE or DVT before?", "school_activities", False),
    ("What's coming up - colour, any blood?", "sputum", True),  # community-pneumonia, checklist
    ("Any blood in the urine?", "sputum", False),
    ("Fights? Stealing?", "behaviour", True),  # agentclinic-0057, terse
    ("Worse lying down?", "behaviour", False),
])
def test_the_questions_of_round_92(question: str, key: str, asks: bool) -> None:
    assert (key in clinical.asked(question)) is asks


def test_a_conduct_screen_beside_a_defiant_childs_history_is_no_barrage() -> None:
    """agentclinic-0057 (oppositional defiant disorder), terse: seven short conduct questions counted as about nothing."""
    case = _case(chief_complaint="Behaviour problems at school", final_diagnosis="Oppositional defiant disorder",
                 history_of_present_illness="Argues with teachers and refuses to follow instructions for a year.")
    turns = ["School problems? How long?", "Only with adults? Temper? Arguing? Blaming? Fights? Hurting animals? "
             "Stealing? Breaking things?", "Attention? Fidgety? Sad? Worried? Bullied? Hearing, eyes?",
             "DIAGNOSIS: Oppositional defiant disorder\nParent training."]
    assert not _met(case, turns, "Fires a barrage of questions")
    generic = ["School problems? How long?", "Weather? Holidays? Hobbies? Films? Music? Football? Cars? Cooking? "
               "Gardening? Books?", "DIAGNOSIS: Oppositional defiant disorder\nParent training."]
    assert _met(case, generic, "Fires a barrage of questions")
