"""Questions the template patient left unanswered in rounds 82 to 102 (data/natural/dev/answerable/), on a made-up record
beside a lookalike: "what's goin' on?" is the open question "what's going on?", and "When he puts the head backward, it
is better?" asks about neck extension."""

from __future__ import annotations

import pytest

from tests.patient_sim.test_natural_questions_r16 import _case, _replies

STORY = "A 5-month history of worsening bladder discomfort, which is relieved by voiding"


@pytest.mark.parametrize(("question", "told"), [
    ("Hey there, what's goin' on?", True),  # bppv, us_abbrev (round 84)
    ("Goin' anywhere nice this summer?", False),
])
def test_a_dropped_g_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("When he puts the head backward, it is better?", True),  # agentclinic-0062, checklist (round 82)
    ("When he puts the head down, it is better?", False),
])
def test_the_head_backward_is_neck_extension(question: str, told: bool) -> None:
    case = _case(chief_complaint="Noisy breathing", secondary_symptoms=["Recurrent stridor", "Relief with neck extension"])
    assert any("neck extension" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("How's she goin', my son?", True),  # depression, us_abbrev (round 87: the Newfoundland greeting)
    ("Wha gwaan, mi bredda?", True),  # agentclinic-0055, gp_lay (round 87: the Jamaican "what's going on?")
    ("How's she going to get home?", False),
])
def test_a_greeting_of_round_87_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Ow am ya, bab?", True),  # agentclinic-0067, gp_lay (round 93: the Black Country "how are you?")
    ("Ow, am I pressing too hard?", False),
    ("Aw di bodi?", True),  # agentclinic-0107, gp_lay (round 95: the Krio "how is the body?", how are you?)
    ("How is the body today?", True),  # agentclinic-0107, gp_lay: its gloss
    ("How is the body of the womb on the scan?", False),
    ("You alright, babe?", True),  # ischaemic-stroke, gp_lay (round 96: the Essex "how are you?")
    ("Alright, butt?", True),  # agentclinic-0030, gp_lay (round 96: the South Wales "how are you?")
    ("Are you alright with the bladder tablets?", False),
])
def test_a_greeting_of_rounds_93_to_96_opens_the_story(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("bladder discomfort" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Does it blanch?", True),  # bacterial-meningitis, us_abbrev (round 93)
    ("Do they fade if you press a glass on them?", True),  # bacterial-meningitis, gp_lay
    ("Does it fade by the evening?", False),
])
def test_blanching_asks_about_the_spots(question: str, told: bool) -> None:
    case = _case(chief_complaint="Headache and fever", secondary_symptoms=["Purple spots on the legs"])
    assert any("Purple spots" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("Is it proper bad or little bit?", True),  # giant-cell-arteritis, gp_lay (round 93)
    ("Is it canny sore or just a bit?", True),  # the Geordie form (round 94's brief)
    ("Is it proper or not?", False),
])
def test_bad_or_a_little_asks_how_bad(question: str, told: bool) -> None:
    case = _case(chief_complaint="Headache", secondary_symptoms=["Severe throbbing headache"])
    # after the headache was named: the question asks how bad it is
    assert any("Severe" in fact for fact in _replies(case, "Is it all over your head?", question)[1]) is told


@pytest.mark.parametrize(("question", "told"), [
    ("When did it start, abi?", True),  # acute-gout, gp_lay (round 96: the Nigerian tag, not the ankle-brachial index)
    ("When did the ABI start?", False),
])
def test_the_tag_abi_asks_nothing_of_its_own(question: str, told: bool) -> None:
    case = _case(chief_complaint="Bladder discomfort", history_of_present_illness=f"{STORY}.")
    assert any("5-month" in fact for fact in _replies(case, question)[0]) is told


@pytest.mark.parametrize(("question", "fact", "told"), [
    ("He came early, no?", "born at 32 weeks", True),  # agentclinic-0067, gp_lay (round 98)
    ("Did the pain come early?", "born at 32 weeks", False),
    ("Did you stay anywhere, a hotel, down the shore, out of town?", "to Miami", True),  # agentclinic-0065
    ("Did you stay in bed?", "to Miami", False),
    ("Where's the mamae?", "pain in the right calf", True),  # pulmonary-embolism, terse: the Maori word for pain
    ("How long's it been peak like this?", "6-month history", True),  # agentclinic-0088 (round 99: the London "bad")
    ("Did it peak quickly?", "6-month history", False),
    ("How oona feel?", "Unwell", True),  # pulmonary-embolism, terse (round 101: the Gullah "how are you feeling?")
    ("Oh, let me hear about it, ya?", "6-month history", True),  # deep-vein-thrombosis, gp_lay (round 102)
    ("Let me hear your chest.", "6-month history", False),
])
def test_the_words_of_rounds_98_to_102(question: str, fact: str, told: bool) -> None:
    case = _case(chief_complaint="Unwell", history_of_present_illness="A 6-month history of fatigue.",
                 secondary_symptoms=["Sharp pain in the right calf"],
                 past_medical_history=["Premature, born at 32 weeks"],
                 social_history=["Recently travelled to Miami for a business conference"])
    assert any(fact in reply for reply in _replies(case, question)[0]) is told
