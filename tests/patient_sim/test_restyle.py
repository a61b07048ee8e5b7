"""The patient model only restyles the grounded reply: what it sees, what it may change, what it must keep.

The model here is scripted: it reads the reply it was asked to say from its system prompt and returns a
given rewrite of it, so each test decides exactly what the "model" does to the facts.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

from patient_sim import text as tx
from patient_sim.cases import find_case
from patient_sim.checker import LeakChecker
from patient_sim.patient import SimulatedPatient
from patient_sim.personas import Persona
from verifier.llm import Completion
from verifier.types import Message

PERSONA = Persona(mbti="ESTJ", language="B", recall="high", confusion="normal")
_ASKED = re.compile(r'What you want to say: "(.*)"\Z', re.DOTALL)


class Restyler:
    """Returns ``rewrite(reply it was asked to say)``; keeps every prompt it saw."""

    model = "scripted-restyle"

    def __init__(self, rewrite: Callable[[str], str]) -> None:
        self.rewrite = rewrite
        self.prompts: list[list[Message]] = []

    async def complete(self, messages: list[Message], **_: object) -> Completion:
        self.prompts.append(messages)
        asked = _ASKED.search(messages[0].content)
        assert asked, messages[0].content
        return Completion(text=self.rewrite(asked.group(1)))


def _reply(rewrite: Callable[[str], str], question: str = "Do you smoke?", case_id: str = "acs-stemi"):  # noqa: ANN202
    model = Restyler(rewrite)
    patient = SimulatedPatient(find_case(case_id), PERSONA, model, seed=5)  # type: ignore[arg-type]
    reply = asyncio.run(patient.reply(question, revealed={patient.facts[0].text}))
    return reply, model


def test_a_reworded_reply_that_keeps_every_fact_is_said() -> None:
    reply, model = _reply(lambda asked: "Honestly, doctor, " + tx.lower_first(asked))
    assert not reply.fallback and not reply.copied
    assert reply.text.startswith("Honestly, doctor,") and "20 cigarettes" in reply.text
    # The model saw only the grounded reply: no hidden fact, examination finding, test or diagnosis word.
    system = model.prompts[0][0].content
    case = find_case("acs-stemi")
    for hidden in ["troponin", "ST elevation", case.final_diagnosis, *case.physical_exam.values()]:
        assert hidden.lower() not in system.lower()


def test_a_copy_is_accepted_and_counted_as_a_copy() -> None:
    reply, _ = _reply(lambda asked: asked)
    assert not reply.fallback and reply.copied


def test_a_draft_that_drops_a_number_or_a_term_falls_back_to_the_grounded_reply() -> None:
    asked: list[str] = []

    def without_numbers(text: str) -> str:
        asked.append(text)
        return re.sub(r"\d+", "many", text)

    reply, model = _reply(without_numbers)
    assert reply.fallback and reply.rejections == ["dropped", "dropped"]  # first draft and the retry
    assert reply.text == asked[0]  # the fallback is the very reply the model was asked to restyle
    reply, _ = _reply(lambda text: text.replace("Amlodipine", "something").replace("amlodipine", "something"),
                      question="Do you take any medications?")
    assert reply.fallback and "dropped" in reply.rejections and "amlodipine" in reply.text.lower()


def test_a_restyle_cannot_add_a_clinical_word_or_a_number() -> None:
    reply, _ = _reply(lambda text: text + " My chest has been tight too.")
    assert reply.fallback and "chest" not in reply.text.lower()
    reply, _ = _reply(lambda text: text.replace("a day", "a day, 3 packs at weekends"))
    assert reply.fallback and reply.rejections[0] == "number"


def test_a_restyle_in_the_doctors_voice_or_stuck_in_a_loop_is_refused() -> None:
    # seen from the embedded model: the system prompt echoed, the fact told in the second person, a loop
    for draft in ("You're a patient talking to a doctor. You're told that you smoke 20 cigarettes a day for 35 years.",
                  "You smoke 20 cigarettes a day for 35 years.", "Well. You have smoked 20 cigarettes a day for 35 years.",
                  "I'm not sure, I'm not sure, I'm not sure, I smoke 20 cigarettes a day for 35 years."):
        reply, _ = _reply(lambda asked, draft=draft: draft)
        assert reply.fallback and reply.rejections[0] in ("role", "repetitive"), (draft, reply.rejections)
    # the template's own "You are the doctor." is the grounded reply's words, not a slip
    reply, _ = _reply(lambda asked: asked, question="What is my diagnosis?")
    assert reply.copied


def test_dont_know_and_refusals_are_restyled_under_the_same_checks() -> None:
    reply, _ = _reply(lambda asked: "Sorry, " + tx.lower_first(asked), question="Any rash?")
    assert reply.kind == "unsure" and not reply.fallback and reply.text.startswith("Sorry,")
    reply, _ = _reply(lambda asked: "I think it's a heart attack.", question="What is my diagnosis?")
    assert reply.kind == "refusal" and reply.fallback and "heart attack" not in reply.text.lower()


def test_the_checker_keeps_numbers_and_terms_of_what_it_is_told_to_keep() -> None:
    checker = LeakChecker(find_case("acs-stemi"))
    fact = ["Smokes 20 cigarettes a day for 35 years"]
    keep = ["I smoke 20 cigarettes a day for 35 years"]

    def reason(reply: str) -> str | None:
        return checker.check(reply, allowed="\n".join(fact + keep), selected=fact, keep=keep).reason

    assert reason("Well, I smoke about 20 cigarettes a day, and have done for 35 years.") is None
    assert reason("I smoke 20 cigarettes a day.") == "dropped"  # the 35 years are gone
    assert reason("I smoke 20 cigarettes a day for 35.") == "dropped"  # a number without its unit
    assert reason("I smoke 20 cigarettes a day for 35 days.") == "dropped"  # ...or with another one
    meds = ["I take amlodipine 5 mg once daily"]
    assert checker.check("I take something, 5 mg once daily.", allowed=meds[0], selected=meds, keep=meds).reason \
        == "dropped"  # the drug is gone
    assert checker.check("I smoke 20 a day.", allowed=fact[0], selected=fact).ok  # without keep: as before


def test_the_grounded_reply_passes_its_own_check_on_every_case(agentclinic_path) -> None:  # noqa: ANN001
    """A model that copies what it was asked to say is never refused: the checker's rules (polarity, kind,
    kept terms and units) hold for the template's hedges, self-corrections, drift and acknowledgements."""
    from patient_sim.cases import import_agentclinic, project_cases
    from patient_sim.personas import sample_persona

    questions = ["What brings you in today?", "When did it start?", "Can you describe it?", "Any nausea or vomiting?",
                 "Do you take any medications?", "Any allergies?", "Do you smoke?", "Do you drink alcohol?",
                 "Any family history of similar problems?", "Any rash?", "What is my diagnosis?",
                 "Do you take any medications?"]
    cases = project_cases() + import_agentclinic(agentclinic_path)[::10]
    refused = []

    async def run() -> int:
        count = 0
        for i, case in enumerate(cases):
            for seed in (i, i + 1000):
                patient = SimulatedPatient(case, sample_persona(seed, case), Restyler(lambda a: a), seed=seed)  # type: ignore[arg-type]
                revealed = {patient.facts[0].text}
                for question in questions:
                    reply = await patient.reply(question, revealed=revealed)
                    revealed.update(f.text for f in reply.facts)
                    count += 1
                    if not reply.copied:
                        refused.append((case.id, question, reply.text, reply.rejections))
        return count

    count = asyncio.run(run())
    assert count > 1000 and not refused, refused[:5]
