"""Personas, fact selection, the leak checker and the measurement responder (no model)."""

from __future__ import annotations

import pytest

from patient_sim.cases import find_case
from patient_sim.checker import LeakChecker
from patient_sim.facts import FactIndex, case_facts
from patient_sim.measurement import MeasurementResponder
from patient_sim.patient import SimulatedPatient, heard_question
from patient_sim.personas import Persona, sample_persona, sample_personas


def test_persona_sampling_is_reproducible_and_follows_the_case() -> None:
    case = find_case("pulmonary-embolism")
    assert sample_persona(7) == sample_persona(7)
    assert sample_personas(5, seed=3) == sample_personas(5, seed=3)
    assert len({p.model_dump_json() for p in sample_personas(10, seed=0)}) > 5
    persona = sample_persona(7, case)
    assert (persona.age, persona.sex, persona.occupation) == (34, "female", "marketing manager")
    assert persona.mbti == sample_persona(7).mbti  # the style comes from the seed, not the case
    cases = [case, find_case("croup")]
    personas = sample_personas(4, seed=1, cases=cases)
    assert [p.age for p in personas] == [34, 3, 34, 3]
    text = Persona(mbti="ENFP", language="A", recall="low", confusion="high", bias="tends to play symptoms down").describe()
    assert "ENFP" in text and "vague" in text and "muddled" in text and "play symptoms down" in text


def test_fact_selection_matches_stems_and_synonyms() -> None:
    index = FactIndex(case_facts(find_case("acs-stemi")))

    def texts(question: str) -> list[str]:
        return [f.text for f in index.select(question)]

    assert any("Smokes 20" in t for t in texts("Are you a smoker?"))
    assert any("spreads to the left arm" in t for t in texts("Does it hurt anywhere else, does it spread?"))
    assert texts("Do you have any allergies?") == ["No known drug allergies"]
    assert any("Father" in t for t in texts("Any heart problems in your family?"))
    assert any("pints of beer" in t for t in texts("How much alcohol do you drink?"))
    assert texts("Have you noticed any rash?") == []
    # Examination findings and test results are never facts.
    assert not any("ST elevation" in f.text or "104/min" in f.text for f in index.facts)


def test_checker_rejects_leaks_and_contradictions() -> None:
    checker = LeakChecker(find_case("acs-stemi"))
    smoking = ["Smokes 20 cigarettes a day for 35 years"]
    allowed = "\n".join(smoking)

    def reason(reply: str, kind: str = "facts") -> str | None:
        return checker.check(reply, allowed=allowed, selected=smoking, kind=kind).reason

    assert reason("Yes, I smoke 20 cigarettes a day.") is None
    assert reason("I think it's a heart attack, I smoke 20 a day.") == "diagnosis"
    assert reason("I smoke 20 a day, could it be pericarditis?") == "diagnosis"
    assert reason("I smoke 30 cigarettes a day.") == "number"
    assert reason("I smoke, and my troponin was raised.") == "hidden"
    assert reason("I do not smoke at all.") == "contradiction"
    assert reason("As an AI language model I cannot smoke.") == "role"
    assert reason("The weather is lovely today.") == "off_task"
    # A diagnosis word the patient's own facts contain is allowed (family history of a heart attack).
    family = ["Father died of a heart attack at 55"]
    assert checker.check(
        "My father died of a heart attack at 55.", allowed=family[0], selected=family
    ).ok


def test_measurement_answers_from_the_case() -> None:
    responder = MeasurementResponder(find_case("acs-stemi"))
    text, findings = responder.respond(["ECG", "troponin level", "abdominal exam", "MRI brain", "vitals"])
    assert "ST elevation in leads II, III and aVF" in text
    assert "2.4 ng/mL" in text
    statuses = {f.request: f.status for f in findings}
    assert statuses["abdominal exam"] == "normal" and statuses["MRI brain"] == "not available".replace(" ", "_")
    assert sum(f.request == "vitals" for f in findings) == 5
    assert "Chest X-ray" not in text  # only what was ordered


def test_template_voice_is_first_person_and_grounded() -> None:
    case = find_case("acs-stemi")
    patient = SimulatedPatient(case, Persona(mbti="ISTJ"), client=None)  # type: ignore[arg-type]
    voiced = {f.topic: patient.voice(f) for f in patient.facts}
    assert voiced["social"].startswith("I ")
    assert voiced["medications"] == "I take amlodipine 5 mg once daily"
    assert patient.opening().startswith("Hello doctor. I've been having crushing chest pain")
    child = SimulatedPatient(find_case("croup"), Persona(mbti="ESFP"), client=None)  # type: ignore[arg-type]
    assert child.opening() == (
        "Hello doctor. My son has a barking cough and makes a noise when he breathes in. I'm quite worried about it."
    )  # ESFP: an extravert who speaks about feelings


def test_patient_model_hears_the_doctors_questions() -> None:
    rambling = (
        "I'm sorry to hear that. Chest pain can have many causes.\n\nWhen did it start? "
        "Some causes are harmless. Does it spread to your arm?\nPlease take care."
    )
    assert heard_question(rambling) == "When did it start? Does it spread to your arm?"
    assert heard_question("Hello. Tell me about the pain. Then we will see.") == "Tell me about the pain. Then we will see."
    assert heard_question("What brings you in today?") == "What brings you in today?"
    long = "Is it " + "very " * 100 + "bad?"
    assert len(heard_question(long)) <= 300 and heard_question(long).endswith("very bad?")


@pytest.mark.parametrize("request_", ["everything", "all your results", "whatever you have", "xyzzy"])
def test_an_order_that_names_no_test_is_told_nothing(request_: str) -> None:
    """Before stop 59 an order in words the clinical layer does not know touched every result, and the responder told
    them all: a doctor could skip the work-up by ordering "everything"."""
    text, findings = MeasurementResponder(find_case("acs-stemi")).respond([request_])
    assert [f.status for f in findings] == ["not_available"]
    assert "2.4 ng/mL" not in text and "ST elevation" not in text
