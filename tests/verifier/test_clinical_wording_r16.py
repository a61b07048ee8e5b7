"""Round sixteen (data/natural/dev/*-r16.yaml, five new writers who saw the project's case records without their key
questions, recommended tests, red flags or synonyms; marked by five clinician examiners before any fix): each good
wording earns its item through the real grader, and a lookalike that does not do the clinical work earns nothing."""

from __future__ import annotations

import pytest

from tests.verifier.test_clinical_wording import _case, _met
from verifier import clinical

_CORRECT = "States the correct final diagnosis"
_ASKS = "Before giving a diagnosis, asks"
_NET = "Gives safety-netting advice"
_EMPATHY = "Acknowledges the patient's concerns with empathy"
_DIFFERENTIAL = "Considers a relevant differential"


@pytest.mark.parametrize(("stated", "right"), [
    ("Late dumping syndrome, hypoglycaemia post sleeve gastrectomy", True),  # agentclinic-0070, terse: what it caused
    ("Late dumping syndrome with hypoglycaemia after sleeve gastrectomy", True),
    ("Gastroparesis, dumping syndrome", False),  # a rival the data does not know, first or last, is still a list
    ("Dumping syndrome, gastroparesis", False),
    ("Anastomotic leak, dumping syndrome", False),
    ("Dumping syndrome, hypoglycaemia post op, insulinoma", False),
])
def test_what_the_answer_caused_is_not_a_rival_and_an_unknown_rival_is(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Dumping syndrome", source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nSmall frequent meals; dietitian review."], _CORRECT) is right


@pytest.mark.parametrize(("stated", "right"), [
    ("Pancreatic head adenocarcinoma, pending CT", True),  # the answer in other words, then what is pending
    ("Lung tumour, Pancoast tumour", True),  # the broad name, then the answer: one condition
    ("Mesothelioma, Pancoast tumour", False),
])
def test_a_first_part_in_other_words_restates_the_answer(stated: str, right: bool) -> None:
    case = _case(final_diagnosis="Pancoast tumour" if "Pancoast" in stated else "Pancreatic adenocarcinoma",
                 source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: {stated}\nUrgent oncology referral."], _CORRECT) is right


def _asks(key_question: str, turn: str, final: str = "Dumping syndrome") -> bool:
    case = _case(final_diagnosis=final, key_questions=[key_question], source="agentclinic")
    return _met(case, [turn, f"DIAGNOSIS: {final}\nSmall frequent meals."], _ASKS)


@pytest.mark.parametrize(("turn", "asks"), [
    # agentclinic-0070: the doctor recaps what was said, then asks about it
    ("You said she had tummy pain, runny poo and was sick after eating. How soon after food does it come on?", True),
    ("She had abd pain, diarrhea, fatigue and N/V x3 after eating. How long after meals?", True),
    ("You said she had runny poo. Any fever?", False),  # a question about something else
    ("Any fever?", False),
])
def test_a_question_that_points_back_to_a_recap_asks_about_it(turn: str, asks: bool) -> None:
    assert _asks("Any diarrhoea?", turn) is asks


@pytest.mark.parametrize(("turn", "asks"), [
    ("I hear you've had runny poo since the operation. How soon after food does it come on?", True),  # a report
    ("You said he's been getting runny poo. Tell me about the last week.", True),  # agentclinic-0099 (r13): go on
    # the doctor's own feelings recap nothing (the audit's stuffed exploits open with this sentence)
    ("I'm so sorry, I understand how worrying the diarrhoea must be. When did it start?", False),
])
def test_a_recap_is_what_the_patient_said_not_what_the_doctor_feels(turn: str, asks: bool) -> None:
    assert _asks("Any diarrhoea?", turn) is asks


def test_what_came_with_the_recapped_symptom_is_not_asked_about() -> None:
    # agentclinic-0079 (r11), us_abbrev: the follow-up is about the vertigo; the examiner did not credit the N/V
    turn = "So sudden vertigo at bedtime with N/V. Did it start as you lay down or rolled over?"
    assert _asks("Any dizziness?", turn, final="Benign paroxysmal positional vertigo")
    assert not _asks("Any nausea?", turn, final="Benign paroxysmal positional vertigo")


def test_a_recap_of_the_onset_does_not_ask_it() -> None:
    # agentclinic-0011 (r15): "2 wk of rectal bleeding. Every time you go?" knows the onset, it does not ask it
    case = _case(final_diagnosis="Internal haemorrhoids", source="agentclinic",
                 key_questions=["When did the symptoms start?"])
    turns = ["So 2 weeks of bright red bleeding with bowel movements. Is it every time you go?",
             "DIAGNOSIS: Internal haemorrhoids\nFibre and fluids."]
    assert not _met(case, turns, _ASKS)


@pytest.mark.parametrize(("question", "asks"), [
    ("Voids per day, per night?", True),  # agentclinic-0027, terse
    ("How many voids/day, and nocturia?", True),  # us_abbrev
    ("Any problems passing urine?", False),
])
def test_a_count_per_day_asks_how_often(question: str, asks: bool) -> None:
    assert _asks("Increased frequency of urination", question, final="Interstitial cystitis") is asks


@pytest.mark.parametrize(("question", "asks"), [
    ("Do you feel people are against you?", True),
    ("Anyone out to get you, or following you?", True),
    ("When did you first notice you were being monitored?", True),  # agentclinic-0101 (r13), us_abbrev
    ("You feel the NSA is watching you. How do you know that's happening?", True),  # agentclinic-0101, gp_lay
    ("Thoughts put in or taken out?", False),  # a delusion, but not one of persecution (r13, terse: not met)
    ("Any mental health problems?", False),
])
def test_persecution_is_asked_about_as_itself(question: str, asks: bool) -> None:
    assert _asks("Delusions of persecution", question, final="Schizophrenia") is asks


@pytest.mark.parametrize(("advice", "net"), [
    ("Voices telling you to harm yourself, or suicidal thoughts: crisis line, 999 or A&E immediately.", True),  # 0064
    ("Any sweating or confusion means giving sugar, and calling 999 if she doesn't recover quickly.", True),  # 0070
    ("Tell nursing right away about any worsening confusion.", True),  # agentclinic-0099, us_abbrev
    ("Seek urgent medical help for a temperature of 38C or above.", True),  # agentclinic-0106, checklist
    ("Rest well. Get urgent help for chest pain, fainting or black stools.", True),  # iron-deficiency-anaemia
    ("We will get urgent help for your housing from the social worker today.", False),
    ("I am calling 999 now.", False),
    ("Plan: crisis team assessment today.", False),
])
def test_round_sixteen_s_safety_nets(advice: str, net: bool) -> None:
    case = _case(final_diagnosis="Schizoaffective disorder", source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: Schizoaffective disorder\nPsychiatry review this week. {advice}"], _NET) is net


@pytest.mark.parametrize(("words", "empathic"), [
    ("This is a chronic, frustrating condition, but most people improve.", True),  # agentclinic-0027, checklist
    ("This is a lot of news at once, and the team will keep you updated.", True),  # agentclinic-0039
    ("It sounds like tonight has been really rough.", True),  # agentclinic-0059
    ("You've done the right thing bringing him in.", True),  # agentclinic-0073
    ("I get how wiped out you feel.", True),  # iron-deficiency-anaemia, us_abbrev
    ("Bloods and a urine test today; results on Friday.", False),
])
def test_round_sixteen_s_empathy(words: str, empathic: bool) -> None:
    case = _case(final_diagnosis="Interstitial cystitis", source="agentclinic")
    assert _met(case, [f"DIAGNOSIS: Interstitial cystitis\n{words} Bladder diary and review in 4 weeks."],
                _EMPATHY) is empathic


@pytest.mark.parametrize(("reasoning", "considered"), [
    ("I did think about your heart, but the pain isn't brought on by exertion.", True),  # gerd, gp_lay
    ("Heart pain is unlikely: no exertional symptoms and the ECG is normal.", True),  # gerd, checklist
    ("ECG normal, no exertional pain, so not cardiac.", True),  # gerd, terse
    ("Your heart rate and ECG are normal.", False),  # a finding, not a cause weighed
])
def test_the_heart_weighed_and_set_aside_considers_angina(reasoning: str, considered: bool) -> None:
    case = _case(final_diagnosis="Gastro-oesophageal reflux disease", differential=["Angina", "Peptic ulcer disease"])
    turns = [f"DIAGNOSIS: Gastro-oesophageal reflux disease\n{reasoning} Omeprazole for 8 weeks."]
    assert _met(case, turns, _DIFFERENTIAL) is considered


def test_cauda_equina_weighed_by_its_short_name() -> None:
    case = _case(final_diagnosis="Mechanical low back pain", differential=["Cauda equina syndrome", "Sciatica"])
    turns = ["DIAGNOSIS: Mechanical low back pain\nNo radiculopathy, no cauda equina sx. Keep active; physio."]
    assert _met(case, turns, _DIFFERENTIAL)


@pytest.mark.parametrize("held", ["Blood > HIV viral load", "Blood > HBV DNA"])
def test_a_bare_viral_load_is_the_one_the_case_holds(held: str) -> None:
    # agentclinic-0099, terse: "CD4, viral load" in a man with HIV
    assert list(clinical.resolve("viral load", [held]).labels) == [held]
    assert not clinical.resolve("viral load", ["Blood > Haemoglobin"]).labels


@pytest.mark.parametrize(("turn", "looks"), [
    ("Dizzy on standing?", True),  # agentclinic-0038, terse: the examiners credited it
    ("Do you feel faint or light-headed when you stand up?", True),
    ("REQUEST EXAM: Lying and standing blood pressure", True),
    ("Any dizziness?", False),  # dizziness is not orthostatic hypotension
])
def test_orthostatic_hypotension_is_looked_for_by_its_parts(turn: str, looks: bool) -> None:
    case = _case(final_diagnosis="Multiple system atrophy", source="agentclinic",
                 secondary_symptoms=["Orthostatic hypotension"])
    turns = [turn, "DIAGNOSIS: Multiple system atrophy\nNeurology referral."]
    assert _met(case, turns, "Before giving a diagnosis, looks for or recognises orthostatic hypotension") is looks
