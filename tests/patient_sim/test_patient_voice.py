"""The template patient on real cases: plain speech, no repeats, ordinary questions answered from the right
facts, and a persona that shows without changing any fact (no model: every draft fails, so every reply
is the grounded template)."""

from __future__ import annotations

import asyncio
import re

import pytest

from patient_sim import fidelity as fd
from patient_sim import text as tx
from patient_sim.cases import find_case, import_agentclinic, project_cases
from patient_sim.doctors import GENERIC_QUESTIONS, reference_history
from patient_sim.facts import FactIndex, case_facts
from patient_sim.patient import SimulatedPatient
from patient_sim.personas import Persona, sample_persona
from verifier.llm import LLMError
from verifier.types import Case, Message

CONFUSED = Persona(mbti="ENFP", language="B", recall="low", confusion="high", bias="tends to play symptoms down")


class NoModel:
    """The patient without a model: the template answers."""

    async def complete(self, messages: list[Message], **_: object):  # noqa: ANN201
        raise LLMError("no model in this test")


def _patient(case: Case, persona: Persona | None = None, seed: int = 0) -> SimulatedPatient:
    return SimulatedPatient(case, persona or sample_persona(seed, case), NoModel(), seed=seed)  # type: ignore[arg-type]


def _ask(patient: SimulatedPatient, questions: list[str]):  # noqa: ANN202
    revealed = {patient.facts[0].text}

    async def run():  # noqa: ANN202
        replies = []
        for question in questions:
            reply = await patient.reply(question, revealed=revealed)
            revealed.update(f.text for f in reply.facts)
            replies.append(reply)
        return replies

    return asyncio.run(run())


def test_plain_speech_drops_the_records_words_and_keeps_the_facts() -> None:
    assert tx.plain_speech("Patient denies experiencing any chest pain, palpitations") == "No chest pain, palpitations"
    assert tx.plain_speech("No other significant medical history provided") == "No other past medical problems"
    assert tx.plain_speech("The patient reports a 1-month history of double vision") == "A 1-month history of double vision"
    assert tx.plain_speech("She notes that it is worse after 2 hours of activity") == "It is worse after 2 hours of activity"
    assert tx.plain_speech("Smokes 20 cigarettes a day") == "Smokes 20 cigarettes a day"


def test_no_fact_of_any_case_is_voiced_in_chart_language(agentclinic_path) -> None:  # noqa: ANN001
    cases = project_cases() + import_agentclinic(agentclinic_path)
    voiced = [(case.id, patient.voice(f)) for case in cases for patient in [_patient(case)] for f in patient.facts]
    assert len(voiced) > 1500
    assert [(case_id, text) for case_id, text in voiced if fd.chart_phrases(text)] == []
    myasthenia = _patient(import_agentclinic(agentclinic_path)[0])
    texts = [myasthenia.voice(f) for f in myasthenia.facts]
    assert "No chest pain, palpitations, shortness of breath, or recent infections" in texts  # "Patient denies ..."
    assert any(t.startswith("I've had a 1-month history of experiencing double vision") for t in texts)


def test_ordinary_questions_are_not_taken_for_a_diagnosis_probe() -> None:
    ordinary = ["Can you describe the pain?", "What is the pain like?", "How long have you had it?",
                "What do you think brought it on?", "Have you had this before?", *GENERIC_QUESTIONS]
    for case in project_cases():
        patient = _patient(case)
        misread = [q for q in ordinary + reference_history(case) if patient.probe_kind(q)]
        assert misread == [], case.id
        assert patient.probe_kind("What is my diagnosis?") == "diagnosis"
        assert patient.probe_kind(f"Do I have {case.final_diagnosis.lower()}?") == "diagnosis"
        assert patient.probe_kind("What did the tests show?") == "tests"
    reply = _ask(_patient(find_case("acs-stemi")), ["Can you describe the pain?"])[0]
    assert reply.kind == "facts" and any("pain" in f.text for f in reply.facts), reply.text


def test_the_right_facts_are_selected() -> None:
    def texts(case_id: str, question: str) -> list[str]:
        return [f.text for f in FactIndex(case_facts(find_case(case_id))).select(question)]

    assert texts("pulmonary-embolism", "What do you do for work?") == ["I work as a marketing manager"]
    assert texts("pulmonary-embolism", "How old are you?") == ["I am 34 years old"]
    onset = texts("acute-appendicitis", "When did it start?")  # story sentences that date it
    assert onset and all(any(w in f for w in ("yesterday", "Overnight", "since")) for f in onset), onset
    assert texts("acute-appendicitis", "Any family history of illness?") == ["Nothing significant"]
    # Nothing in the appendicitis case is about the chest: the tummy pain does not answer "any chest pain?".
    assert texts("acute-appendicitis", "Any chest pain?") == []
    assert texts("acute-appendicitis", "Have you noticed any rash?") == []


def test_a_repeated_question_is_acknowledged_not_copied() -> None:
    case = find_case("acs-stemi")
    patient = _patient(case, seed=3)
    first, again, third = _ask(patient, ["Do you take any medications?"] * 3)
    assert first.facts == again.facts == third.facts and first.facts  # the same facts...
    assert len({fd.normalised(r.text) for r in (first, again, third)}) == 3  # ...never the same words
    for reply in (again, third):  # the fact restated in full (a hedge may add "about"), after an acknowledgement
        assert all(set(tx.tokens(patient.voice(f))) <= set(tx.tokens(reply.text)) for f in reply.facts), reply.text
        assert any(w in reply.text.lower() for w in ("said", "told", "before", "again")), reply.text
    # "Don't know" and refusals are not said twice either.
    replies = _ask(_patient(case, seed=4), ["Any rash?", "Any nosebleeds?", "Any ringing in your ears?", "Any rash?",
                                            "What is my diagnosis?", "What do you think you have?",
                                            "What is my diagnosis?", "What is wrong with me?"])
    assert [r.kind for r in replies] == ["unsure"] * 4 + ["refusal"] * 4
    assert fd.verbatim_repeats([r.text for r in replies]) == 0


@pytest.mark.parametrize("case_id", ["acs-stemi", "croup", "upper-gi-bleed"])
def test_the_persona_never_changes_a_fact(case_id: str) -> None:
    case = find_case(case_id)
    questions = ["What brings you in today?", "When did it start?", "Do you take any medications?", "Do you smoke?",
                 "Do you drink alcohol?", "Any allergies?", "Can you describe the pain?", "Any rash?"]
    for seed in range(6):
        replies = _ask(_patient(case, CONFUSED, seed), questions)
        assert replies == _ask(_patient(case, CONFUSED, seed), questions)  # deterministic given the seed
        for reply in replies:
            stated = [f.text for f in reply.facts]
            traced = fd.trace(reply.text, case, stated, [f.topic for f in reply.facts])
            assert traced.untraced == (), (reply.text, traced.untraced)  # no clinical word or number added
            assert tx.numbers(reply.text) == tx.numbers(" ".join(stated))  # hedged values are the exact values
            assert not fd.chart_phrases(reply.text)


def test_personas_sound_different() -> None:
    case = find_case("acs-stemi")
    question = ["Do you smoke?"]
    basic = Persona(mbti="ISTJ", language="A")
    articulate = Persona(mbti="ISTJ", language="C")
    worried = Persona(mbti="ESFJ", bias="worries that every symptom means something very serious")
    replies = {name: [_ask(_patient(case, p, seed), question)[0].text for seed in range(8)]
               for name, p in [("basic", basic), ("articulate", articulate), ("worried", worried)]}
    words = {name: sum(len(r.split()) for r in texts) / len(texts) for name, texts in replies.items()}
    assert words["basic"] < words["articulate"]
    assert sum(any(w in r.lower() for w in ("scared", "worry", "frightened", "what if")) for r in replies["worried"]) >= 3
    assert len({fd.normalised(r) for texts in replies.values() for r in texts}) >= 10


def test_the_template_voice_answers_from_the_record_without_a_model() -> None:
    """``patient.model: template`` (training's default): the grounded template is the reply, no draft is asked for,
    and it tells the facts a model-voiced patient falls back to (the manner is drawn at random, so its words may
    differ)."""
    from patient_sim.patient import TemplateVoice
    from policy.stage_config import PatientConfig, default_patient

    case = find_case("acute-appendicitis")
    persona = sample_persona(3, case)
    voice = default_patient(PatientConfig(model="template"))
    assert isinstance(voice, TemplateVoice)
    template = SimulatedPatient(case, persona, voice, seed=3)
    fallback = SimulatedPatient(case, persona, NoModel(), seed=3)  # type: ignore[arg-type]
    questions = ["Have you been sick at all?", "Any burning when you pee?", "What's the diagnosis, doctor?"]
    replies, same = _ask(template, questions), _ask(fallback, questions)
    assert [[f.text for f in r.facts] for r in replies] == [[f.text for f in r.facts] for r in same]
    assert [r.kind for r in replies] == ["facts", "facts", "refusal"] and all(r.rejections == [] for r in replies)
    assert "Vomited once" in {f.text for f in replies[0].facts}


@pytest.mark.parametrize(("question", "consents"), [
    ("Would it be alright if I ask you a few questions about it?", True),  # round 27: asked leave, not asked about
    ("Now then, may I run through some questions with you?", True),
    ("Few questions, is that alright?", True),
    ("Let me ask some questions together, is OK?", True),  # round 90: a Romanian-trained doctor's English
    ("I need to screen for safety, is routine, is OK?", True),
    ("Questions about the chest pain, is OK?", False),  # names the pain: asks about it
    ("Let me ask a few things, ya?", True),  # round 102: an Indonesian-trained doctor's tag
    ("Important questions, ya?", True),
    ("Any night sweats, ya?", False),  # a question with the same tag
    ("Would you mind stepping out so I can talk with her one-on-one?", True),
    ("Can I check: any allergies?", False),  # a question about allergies, in the form of a request
    ("Any night sweats?", False),
])
def test_a_request_for_leave_is_agreed_to_and_nothing_more(question: str, consents: bool) -> None:
    from patient_sim.patient import TemplateVoice

    case = Case(id="t", chief_complaint="Unwell", history_of_present_illness="Unwell for a week.",
                final_diagnosis="Something")
    reply = asyncio.run(SimulatedPatient(case, sample_persona(3, case), TemplateVoice(), seed=3)
                        .reply(question, revealed=set()))
    assert (reply.kind == "consent") is consents
    assert not reply.facts
    if consents:
        assert re.search(r"\b(?:yes|sure|okay|fine|of course|certainly|by all means)\b", reply.text, re.IGNORECASE)
