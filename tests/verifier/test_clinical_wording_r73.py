"""Round 73 (data/natural/dev/*-r73.yaml): what its examiners marked met and the grader missed or wrongly penalised, in
general form, each beside a lookalike that must come out the other way. Lay words a barrage counted as about nothing
("Do parts move when you do not want them to?", "Is it harder to say words clearly?", "Did anyone see him hurt it?",
"Walking and talking normal for age?", "Show me with one finger."); the Doric "sair"; "pals"; a terse "Next day?";
"anyone ill around you" is a sick contact; "You'll be looked after in high dependency" is emergency care now; plain
words of empathy."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical


@pytest.mark.parametrize(("question", "key"), [
    ("Do parts move when you do not want them to?", "involuntary_movements"),  # agentclinic-0082, gp_lay
    ("Is it harder to say words clearly?", "speech"),  # agentclinic-0082, gp_lay
    ("Did anyone see him hurt it?", "injury"),  # agentclinic-0081, gp_lay
    ("A twist?", "injury"),  # agentclinic-0081, us_abbrev
    ("Walking and talking normal for age?", "development"),  # agentclinic-0081, us_abbrev
    ("Show me with one finger.", "gesture"),  # agentclinic-0081, gp_lay
    ("Does it ever get sair?", "pain"),  # agentclinic-0087, gp_lay (Doric)
    ("Who are your pals now?", "peers"),  # agentclinic-0089, gp_lay
    ("Any travel, or anyone ill around you?", "sick_contacts"),  # agentclinic-0080, gp_lay
    ("Maternal infection, then?", "chorioamnionitis"),  # agentclinic-0076, terse
])
def test_round_73s_words_reach_their_concept(question: str, key: str) -> None:
    assert key in clinical.terms(question)


@pytest.mark.parametrize(("question", "key"), [
    ("Does it hurt?", "injury"),  # hurting is pain, not an injury
    ("Any lumps or bumps?", "injury"),
    ("Do you move your bowels every day?", "involuntary_movements"),
    ("Is it harder to see clearly?", "speech"),
    ("Any travel?", "sick_contacts"),
    ("Feeling ill?", "sick_contacts"),
    ("Show me your tablets.", "gesture"),
])
def test_round_73s_lookalikes_do_not(question: str, key: str) -> None:
    assert key not in clinical.terms(question)


_HUNTINGTON = {"final_diagnosis": "Huntington disease", "source": "agentclinic", "chief_complaint": "Hearing voices",
               "secondary_symptoms": ["Involuntary movements", "Poor articulation"]}
# nine questions the record does not name, two of them its own findings in lay words (agentclinic-0082, gp_lay)
_ASKED = ["Any pets?", "In the last weeks?", "Why did it stop?", "Food or drink?", "How did he die?",
          "How old was he?", "Any tattoos?"]
_BARRAGE = "Fires a barrage of questions"


def test_the_record_s_findings_in_lay_words_are_not_a_barrage() -> None:
    case = _case(**_HUNTINGTON)
    lay = ["Is it harder to say words clearly?", "Do parts move when you do not want them to?"]
    assert not _met(case, [" ".join(_ASKED + lay), "DIAGNOSIS: Huntington disease"], _BARRAGE)
    unrelated = ["Any earache?", "Any nosebleeds?"]
    assert _met(case, [" ".join(_ASKED + unrelated), "DIAGNOSIS: Huntington disease"], _BARRAGE)


@pytest.mark.parametrize(("question", "asked"), [
    ("Next day?", True),  # agentclinic-0085, terse
    ("The next morning?", True),
    ("Next week?", False),
])
def test_a_terse_next_day_asks_what_follows_an_episode(question: str, asked: bool) -> None:
    case = _case(final_diagnosis="Sleep terror disorder", source="agentclinic", chief_complaint="Night episodes",
                 secondary_symptoms=["Temporary post-episode tiredness"])
    assert _met(case, [f"Screaming at night? {question}", "DIAGNOSIS: Sleep terror disorder"],
                "Before giving a diagnosis, asks about temporary post-episode tiredness") is asked


@pytest.mark.parametrize(("plan", "now"), [
    ("We're starting treatment now. You'll be looked after in high dependency.", True),  # dka, gp_lay
    ("You'll be cared for in intensive care tonight.", True),
    ("You'll be looked after by your GP.", False),
    ("You'll be looked after in clinic next week.", False),
])
def test_being_looked_after_in_high_dependency_is_emergency_care_now(plan: str, now: bool) -> None:
    case = _case(final_diagnosis="Diabetic ketoacidosis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Diabetic ketoacidosis\n{plan}"], "Tells the patient to get emergency care now") is now


@pytest.mark.parametrize(("plan", "empathic"), [
    ("You've done all the right things. These nights are hard work.", True),  # acute-otitis-media, checklist
    ("Rough in your line of work.", True),  # mechanical-low-back-pain, terse
    ("Do all the right things: rest and fluids.", False),
    ("Back to your line of work in a week.", False),
])
def test_plain_words_of_empathy_round_73(plan: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Migraine")
    assert _met(case, [f"DIAGNOSIS: Migraine\n{plan}"], "Acknowledges the patient's concerns") is empathic
