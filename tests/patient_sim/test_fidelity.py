"""The patient-fidelity measures (``patient_sim.fidelity``) against numbers worked out by hand."""

from __future__ import annotations

import pytest

from patient_sim import fidelity as fd
from patient_sim.cases import find_case


def test_chart_phrases_are_found_in_the_record_and_the_first_person() -> None:
    assert fd.chart_phrases("No other significant medical history provided.") == [
        "significant medical history", "provided"]
    assert fd.chart_phrases("I deny any chest pain. I report a rash.") == ["i deny", "i report"]
    assert fd.chart_phrases("I've had no other health problems.") == []


def test_leaks_are_diagnosis_names_and_unordered_values_not_own_facts() -> None:
    case = find_case("acs-stemi")
    assert fd.leaks("Is it a heart attack?", case, "") == ["heart attack"]
    assert fd.leaks("My father had a heart attack.", case, "Father had a heart attack at 60") == []
    troponin = next(v for k, v in case.test_results.items() if "roponin" in k)
    assert fd.leaks(f"They said it was {troponin}.", case, "")  # a test value nobody ordered
    assert not fd.leaks(f"They said it was {troponin}.", case, "", ordered_keys=case.test_results)
    assert not fd.leaks("I smoke 20 a day.", case, "Smokes 20 cigarettes a day")  # the patient's own number
    assert fd.leaks(f"Is it {case.final_diagnosis.lower()}?", case, "")


def test_traceability_counts_clinical_terms_and_numbers() -> None:
    case = find_case("acs-stemi")
    sources = ["Smokes 20 cigarettes a day for 35 years"]
    # "smoke", "cigarettes" (both the token smoke) and 20 are in the source; "troponin" and 5 are not.
    traced = fd.trace("I smoke 20 cigarettes and my troponin was 5.", case, sources)
    assert (traced.total, traced.traced) == (5, 3)
    assert set(traced.untraced) == {"troponin", "5"}
    # The realizer's glue for the fact's topic ("an allergy to") is not a fact of its own.
    assert fd.trace("I have an allergy to penicillin.", case, ["Penicillin"], ["allergies"]).untraced == ()


def test_verbatim_repeats_ignore_case_and_punctuation() -> None:
    assert fd.verbatim_repeats(["I'm not sure.", "I take aspirin.", "i'm NOT sure!", "I take aspirin"]) == 2
    assert fd.verbatim_repeats(["Like I said, I take aspirin.", "I take aspirin."]) == 0


def test_surface_features_by_hand() -> None:
    features = dict(zip(fd.FEATURE_NAMES, fd.surface_features(["I smoke. I think about 20."]), strict=True))
    # words: i smoke i think about 20 (6); sentences 2; hedges "i think" and "about".
    assert features["words_per_sentence"] == 3.0
    assert features["hedge_rate"] == pytest.approx(2 / 6)
    assert features["number_rate"] == pytest.approx(1 / 6)
    assert features["first_person_rate"] == pytest.approx(2 / 6)
    assert features["type_token_ratio"] == pytest.approx(5 / 6)


def test_balanced_accuracy_and_the_classifier() -> None:
    assert fd.balanced_accuracy(["a", "a", "b", "b"], ["a", "b", "b", "b"]) == 0.75
    assert fd.balanced_accuracy(["a", "a", "a", "b"], ["a", "a", "a", "a"]) == 0.5  # majority guessing
    x = [[0.0, 1.0], [0.2, 0.9], [0.1, 1.2], [1.0, 0.0], [0.9, 0.2], [1.2, 0.1], [0.5, 5.0]]
    y = ["low", "low", "low", "high", "high", "high", "low"]
    model = fd.fit_classifier(x, y)
    assert model.predict([[0.05, 1.0], [1.1, 0.05]]) == ["low", "high"]
    with pytest.raises(ValueError, match="2 feature rows for 3 labels"):
        fd.fit_classifier(x[:2], y[:3])
