"""ConsultationEnv's termination gate and bookkeeping, and the graph's orchestration.

These tests are about orchestration logic, so the patient model is a scripted ``ChatClient`` (a
deliberately leaky one: it always names the diagnosis, so every draft must be caught).
"""

from __future__ import annotations

import pytest

from patient_sim.cases import find_case
from patient_sim.env import ConsultationEnv
from patient_sim.graph import run_consultation, run_consultations
from patient_sim.personas import Persona
from verifier.llm import Completion
from verifier.types import Message

PERSONA = Persona(mbti="ISTJ")


class LeakyPatientModel:
    """A scripted model that always blurts out a diagnosis and a test value."""

    model = "scripted-leaky"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, messages: list[Message], **_: object) -> Completion:
        self.calls += 1
        return Completion(text="I have a heart attack, my troponin was 2.4.")


class ScriptedDoctor:
    model = "scripted-doctor"

    def __init__(self, turns: list[str]) -> None:
        self.turns = turns

    async def complete(self, messages: list[Message], **_: object) -> Completion:
        asked = sum(m.role == "assistant" for m in messages)
        return Completion(text=self.turns[min(asked, len(self.turns) - 1)])


async def test_diagnosis_ends_and_tests_are_answered_from_the_case() -> None:
    model = LeakyPatientModel()
    env = ConsultationEnv(find_case("acs-stemi"), PERSONA, model, max_turns=6)
    assert env.transcript == [Message(role="user", content=env.opening())]
    step = await env.step("When did the pain start?")
    assert step.source == "patient" and not step.done
    assert "heart attack" not in step.reply.lower() and "2.4" not in step.reply
    assert "an hour ago" in step.reply  # the template fallback states the selected fact
    assert env.leaks_caught == 2 and env.fallbacks == 1 and model.calls == 2  # first draft + one retry
    step = await env.step("REQUEST TEST: ECG\nREQUEST TEST: troponin")
    assert step.source == "measurement"
    assert "ST elevation" in step.reply and "2.4 ng/mL" in step.reply
    assert env.ordered_tests == ["ECG", "troponin"]
    step = await env.step("DIAGNOSIS: Inferior STEMI\nPlan: aspirin, urgent PCI.")
    assert step.done and step.reason == "diagnosis" and step.reply is None
    assert env.diagnosis == "Inferior STEMI"
    roles = [m.role for m in env.transcript]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert any("an hour ago" in fact for fact in env.revealed_facts)
    with pytest.raises(RuntimeError, match="over"):
        await env.step("Anything else?")


async def test_premature_diagnosis_is_configurable() -> None:
    case = find_case("migraine")
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), premature_diagnosis=True)
    step = await env.step("DIAGNOSIS: migraine")
    assert step.done and step.reason == "premature_diagnosis"
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), premature_diagnosis=False)
    assert (await env.step("DIAGNOSIS: migraine")).reason == "diagnosis"
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), premature_diagnosis=True)
    await env.step("How often do the headaches come?")
    assert (await env.step("DIAGNOSIS: migraine")).reason == "diagnosis"


async def test_turn_limit_and_patient_leaving() -> None:
    case = find_case("gerd")
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), max_turns=2)
    assert not (await env.step("What makes it worse?")).done
    last = await env.step("Any trouble swallowing?")
    assert last.done and last.reason == "turn_limit" and last.reply
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), max_turns=6)
    assert not (await env.step("Okay.")).done  # one void turn is tolerated
    left = await env.step("Hmm.")
    assert left.done and left.reason == "patient_left" and "go home" in left.reply


async def test_gate_then_respond_must_pair() -> None:
    env = ConsultationEnv(find_case("acute-gout"), PERSONA, LeakyPatientModel())
    assert env.gate("REQUEST TEST: urate") == "measurement"
    with pytest.raises(RuntimeError):
        await env.respond("patient")
    step = await env.respond("measurement")
    assert "0.56 mmol/L" in step.reply


async def test_graph_runs_turns_in_order_and_records_results() -> None:
    case = find_case("acs-stemi")
    doctor = ScriptedDoctor(["Do you smoke?", "REQUEST TEST: troponin", "DIAGNOSIS: STEMI\nPlan: PCI."])
    seen: list[Message] = []
    result = await run_consultation(case, PERSONA, doctor, LeakyPatientModel(), on_message=seen.append)
    assert result.termination_reason == "diagnosis" and result.diagnosis == "STEMI"
    assert result.turns == 3 and result.ordered_tests == ["troponin"]
    assert [m.role for m in result.transcript] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert seen == result.transcript
    assert result.patient_replies == 1 and result.fallbacks == 1
    results = await run_consultations(
        [case, find_case("migraine"), case], [PERSONA] * 3, ScriptedDoctor(["Anything else?"]),
        LeakyPatientModel(), concurrency=2, max_turns=2, progress=False,
    )
    assert [r.case_id for r in results] == ["acs-stemi", "migraine", "acs-stemi"]
    assert all(r.termination_reason == "turn_limit" and r.turns == 2 for r in results)
    with pytest.raises(ValueError, match="personas"):
        await run_consultations([case], [], doctor, LeakyPatientModel())
