"""The one diagnosis matcher: one specific condition, and the right one — hand-written answers."""

from __future__ import annotations

import pytest

from verifier.diagnosis import conditions_named, match_diagnosis

STEMI = ["Acute inferior ST-elevation myocardial infarction", "STEMI", "myocardial infarction", "heart attack"]
STEMI_DIFFERENTIAL = ["Aortic dissection", "Pulmonary embolism", "Pericarditis"]


@pytest.mark.parametrize(
    "stated",
    [
        "Acute inferior ST-elevation myocardial infarction",
        "STEMI",
        "Inferior STEMI (heart attack)",  # a bracketed alias is the same condition
        "probable STEMI of the inferior wall",
        "Heart-attack",
        "Myocardial infarction, acute inferior ST-elevation",  # inverted word order
        "STEMI, not aortic dissection. Call 911 now.",  # a negated rival and the plan after the sentence
        "STEMI - call an ambulance",
        "Myocardial infarction due to plaque rupture",  # a qualifier tail
        "STEMI, with no aortic dissection, pericarditis or pulmonary embolism",  # what it rules out, a list
        "STEMI - not pericarditis or a pulmonary embolism",
        "STEMI; no features of aortic dissection, PE or pericarditis",
    ],
)
def test_one_specific_right_condition_matches(stated: str) -> None:
    match = match_diagnosis(stated, STEMI, others=STEMI_DIFFERENTIAL)
    assert match.matched, match.reason
    assert match.single


@pytest.mark.parametrize(
    ("stated", "single"),
    [
        ("STEMI or aortic dissection", False),  # a hedge, even with the right answer first
        ("Aortic dissection or STEMI", False),
        ("STEMI / pericarditis", False),
        ("STEMI, pulmonary embolism, pneumonia", False),  # a comma list of conditions
        ("myocardial infarction pulmonary embolism pneumonia stroke", False),  # a run of names
        ("infection", False),  # a category
        ("acute", False),
        ("a heart problem", False),  # a place, not a condition
        ("Aortic dissection", True),  # one condition, the wrong one
        ("stable angina", True),
        ("NSTEMI", True),
        ("STEMI massive terrible horrible dreadful awful sudden crushing", True),  # vocabulary, not a diagnosis
        ("STEMI with anxiety depression migraine asthma gout sepsis shingles croup", False),  # a list in a tail
        ("STEMI, not excluding aortic dissection or pericarditis", False),  # a hedge keeps its rivals
        ("STEMI, cannot rule out pulmonary embolism", False),
        ("Aortic dissection, not STEMI", True),  # the exclusion is not the answer
    ],
)
def test_hedges_categories_and_wrong_answers_do_not_match(stated: str, single: bool) -> None:
    match = match_diagnosis(stated, STEMI, others=STEMI_DIFFERENTIAL)
    assert not match.matched, match.reason
    assert match.single is single, match.reason


def test_a_rival_condition_that_shares_a_word_is_not_the_answer() -> None:
    diabetes = ["Type 2 diabetes mellitus", "diabetes", "T2DM"]
    assert not match_diagnosis("Type 1 diabetes", diabetes, others=["Type 1 diabetes"]).matched
    assert not match_diagnosis("Type 1 diabetes", diabetes).matched  # a built-in rival, no differential needed
    assert match_diagnosis("Diabetes mellitus type 2", diabetes).matched
    tonsillitis = ["Streptococcal tonsillitis", "tonsillitis", "pharyngitis"]
    assert not match_diagnosis("Viral pharyngitis", tonsillitis, others=["Viral pharyngitis"]).matched
    assert match_diagnosis("Strep tonsillitis", tonsillitis).matched


def test_spelling_accents_possessives_and_abbreviations() -> None:
    assert match_diagnosis("Iron deficiency anemia", ["Iron deficiency anaemia from heavy menstrual bleeding"]).matched
    assert match_diagnosis("Hirschsprung disease", ["Hirschsprung’s disease"]).matched
    assert match_diagnosis("Legg-Calve-Perthes disease", ["Legg-Calvé-Perthes disease (LCPD)"]).matched
    assert match_diagnosis("BPPV", ["Benign Paroxysmal Positional Vertigo (BPPV)"]).matched
    assert not match_diagnosis("vertigo", ["Benign Paroxysmal Positional Vertigo (BPPV)"]).matched  # less specific


def test_several_different_statements_are_a_list() -> None:
    match = match_diagnosis("STEMI", STEMI, extra_statements=1)
    assert not match.matched and "2 different diagnoses" in match.reason


def test_generic_only_accepted_names_are_ignored() -> None:
    assert not match_diagnosis("infection", ["Urinary tract infection", "infection"]).matched
    assert not match_diagnosis(None, STEMI).matched and not match_diagnosis("  ", STEMI).matched


def test_conditions_named_counts_distinct_conditions_once() -> None:
    text = "It is a heart attack (STEMI, a myocardial infarction), not pneumonia or a stroke."
    assert sorted(conditions_named(text, STEMI)) == ["answer", "pneumonia", "stroke"]


def test_a_condition_after_post_qualifies_the_diagnosis() -> None:
    """"post-influenza pneumonia" is a pneumonia, as "pneumonia following influenza" is; a list stays a list."""
    pneumonia = ["Community-acquired pneumonia", "pneumonia"]
    for stated in ("Post-influenza pneumonia", "Left lower lobe pneumonia (CAP), post-influenza",
                   "post influenza pneumonia"):
        match = match_diagnosis(stated, pneumonia)
        assert match.matched and match.single, (stated, match.reason)
    assert conditions_named("Post-influenza pneumonia", pneumonia) == ["answer"]
    for stated in ("Influenza, pneumonia", "influenza or pneumonia", "pneumonia with influenza and sepsis"):
        assert not match_diagnosis(stated, pneumonia).matched, stated
    assert not match_diagnosis("Influenza", pneumonia).matched  # the qualifier alone is not the diagnosis
    # names that begin with "post" are read whole
    assert match_diagnosis("Post-traumatic stress disorder", ["PTSD", "post-traumatic stress disorder"]).matched
    assert match_diagnosis("Postherpetic neuralgia", ["Postherpetic neuralgia"]).matched


JERSEY = ["Rupture of the flexor digitorum profundus tendon at its point of insertion", "jersey finger", "FDP avulsion"]


@pytest.mark.parametrize(("stated", "matched"), [
    # round 21, agentclinic-0015: the name, then what it is in plain words
    ("Jersey finger, the deep flexor tendon (FDP) torn off where it attaches at the fingertip", True),
    ("Jersey finger - the tendon that bends the fingertip has pulled off the bone", True),
    ("Finger injury, the deep flexor tendon torn off where it attaches at the fingertip", False),  # no name
    ("Jersey finger, a tendon rupture or a fracture of the bone at the tip", False),  # a hedge
    ("Jersey finger/mallet finger", False),  # two conditions
])
def test_a_plain_words_appositive_restates_the_diagnosis(stated: str, matched: bool) -> None:
    assert match_diagnosis(stated, JERSEY).matched is matched
