"""Rounds seventeen and eighteen (data/natural/dev/*-r17.yaml and *-r18.yaml, five new writers a round who saw the
project's case records without their key questions, recommended tests, red flags or synonyms; marked by five clinician
examiners before any fix): each good wording earns its item through the real grader, and a lookalike that does not do
the clinical work earns nothing."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_CORRECT = "States the correct final diagnosis"
_ASKS = "Before giving a diagnosis, asks"


@pytest.mark.parametrize(("stated", "right"), [
    # agentclinic-0015, us_abbrev: two words of one description, neither a condition
    ("Jersey finger - FDP tendon rupture/avulsion at its insertion on the distal phalanx, R ring finger", True),
    ("Jersey finger/mallet finger", False),  # two conditions
    ("Mallet finger/jersey finger", False),
])
def test_a_slash_inside_a_description_is_not_a_hedge(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Rupture of the flexor digitorum profundus tendon",
                 diagnosis_synonyms=["Jersey finger"], source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nHand surgery referral within the week."], _CORRECT) is right


@pytest.mark.parametrize(("stated", "right"), [
    # agentclinic-0058, gp_lay: what the tumour presses on is no part of its name
    ("Pancreatic adenocarcinoma (head of pancreas) blocking the bile duct - strongly suspected", True),
    ("Pancreatic adenocarcinoma obstructing the common bile duct", True),
    ("Pancreatic adenocarcinoma/cholangiocarcinoma", False),
])
def test_what_the_answer_presses_on_qualifies_it(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Pancreatic adenocarcinoma", source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nUrgent CT and hepatobiliary referral."], _CORRECT) is right


def _asks_about(symptom: str, question: str, final: str) -> bool:
    # an imported case: its recorded symptoms are its key questions
    case = _case(final_diagnosis=final, source="agentclinic", secondary_symptoms=[symptom, "Fever"])
    return _met(case, [question, f"DIAGNOSIS: {final}\nTreatment and review."], f"{_ASKS} about {symptom.lower()}")


@pytest.mark.parametrize(("question", "asks"), [
    ("Other sites?", True),  # agentclinic-0065, terse: all four registers asked "where else?"
    ("Is it anywhere else on you?", True),
    ("Any on your legs?", True),
    ("Any fever?", False),
])
def test_where_else_asks_about_a_finding_also_present_elsewhere(question: str, asks: bool) -> None:
    assert _asks_about("Itching also present on the left leg and right forearm", question, "Scabies") is asks


@pytest.mark.parametrize(("question", "asks"), [
    ("Triggers?", True),  # agentclinic-0062: every register asked what sets it off
    ("What sets them off?", True),
    ("Is it worse when he cries?", True),
    ("Any cough?", False),
])
def test_what_sets_it_off_asks_about_what_it_is_worse_with(question: str, asks: bool) -> None:
    assert _asks_about("Exacerbation during crying", question, "Laryngomalacia") is asks


def test_worsening_over_weeks_is_not_a_trigger() -> None:
    # "worsening vision over the past 3 weeks" is its course: a symptom question is still needed
    assert not _asks_about("Worsening vision over the past 3 weeks", "Triggers?", "Giant cell arteritis")


@pytest.mark.parametrize(("question", "addressed"), [
    ("How bad is the pain?", True),  # cellulitis, checklist: severity is how pain out of proportion is found
    ("Pain severe?", True),  # terse
    ("Any pain?", False),
])
def test_asking_how_bad_the_pain_is_addresses_pain_out_of_proportion(question: str, addressed: bool) -> None:
    case = _case(final_diagnosis="Cellulitis", red_flags=["Pain out of proportion"])
    turns = [question, "DIAGNOSIS: Cellulitis\nFlucloxacillin for a week."]
    assert _met(case, turns, "Asks about or addresses the red flag: Pain out of proportion") is addressed


def test_sick_after_feeds_is_vomiting() -> None:
    assert "vomiting" in clinical.asked("How often is he sick after feeds?")  # agentclinic-0062, checklist
    assert "vomiting" not in clinical.asked("How often is he off sick from school?")


@pytest.mark.parametrize(("order", "named"), [
    ("psych eval", True),  # agentclinic-0057, us_abbrev
    ("psychology assessment", True),
    ("EEG", False),
])
def test_a_psych_eval_orders_the_psychological_evaluation(order: str, named: bool) -> None:
    assert bool(clinical.resolve(order, ["Psychological Evaluation"]).named) is named


def test_alcohol_worsening_it_weighs_alcohol_misuse() -> None:
    case = _case(final_diagnosis="Major depressive disorder", differential=["Alcohol misuse", "Hypothyroidism"])
    turns = ["DIAGNOSIS: Major depressive disorder\nNot bipolar. Alcohol worsening it. Sertraline; review in 2 weeks."]
    assert _met(case, turns, "Considers a relevant differential")


# ------------------------------------------------------------------ round eighteen (data/natural/dev/*-r18.yaml)
_EMERGENCY = "Arranges immediate emergency assessment or admission"


@pytest.mark.parametrize(("plan", "arranged"), [
    ("You're getting IV ceftriaxone now, and the intensive care team is coming to see you.", True),  # gp_lay
    ("Ceftriaxone 2 g IV now; ICU consult for likely MICU admission.", True),  # bacterial-meningitis, us_abbrev
    ("Ceftriaxone now. If you get worse we will ask for an ICU review.", False),  # a condition, not an arrangement
])
def test_critical_care_called_in_now_is_emergency_care(plan: str, arranged: bool) -> None:
    case = _case(final_diagnosis="Bacterial meningitis", disposition="emergency")
    assert _met(case, [f"DIAGNOSIS: Bacterial meningitis\n{plan}"], _EMERGENCY) is arranged


@pytest.mark.parametrize(("advice", "net"), [
    ("Come back sooner for blood in the stool or unintentional weight loss.", True),  # agentclinic-0024, us_abbrev
    ("Alert staff immediately to any breathing difficulty.", True),  # agentclinic-0084, checklist
    ("Falls, choking, hallucinations, sudden confusion: call sooner.", True),  # agentclinic-0090, terse
    ("Tell the staff immediately if you feel more faint.", True),  # ectopic-pregnancy, checklist
    ("Come back for bloods on Monday.", False),  # a blood test, not blood in the stool
    ("Tell the staff your name at reception.", False),
])
def test_round_eighteen_s_safety_nets(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Irritable bowel syndrome", source="agentclinic")
    turns = [f"DIAGNOSIS: Irritable bowel syndrome\nFibre, peppermint oil and review in 6 weeks. {advice}"]
    assert _met(case, turns, "Gives safety-netting advice") is net


def test_trouble_getting_words_out_asks_about_speech() -> None:
    assert "speech" in clinical.asked("Trouble getting words out?")  # agentclinic-0082, us_abbrev
