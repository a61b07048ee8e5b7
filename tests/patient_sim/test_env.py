"""ConsultationEnv's termination gate and bookkeeping, and the consultation loop's orchestration.

These tests are about orchestration logic, so the patient model is a scripted ``ChatClient`` (a
deliberately leaky one: it always names the diagnosis, so every draft must be caught).
"""

from __future__ import annotations

import pytest

from patient_sim.cases import find_case
from patient_sim.env import ConsultationEnv
from patient_sim.loop import SamplingConfig, consult, consult_many, new_env, run_consultation
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
    step = await env.env_response("When did the pain start?")
    assert step.source == "patient" and not step.done
    assert "heart attack" not in step.reply.lower() and "2.4" not in step.reply
    assert "an hour ago" in step.reply  # the template fallback states the selected fact
    assert env.leaks_caught == 2 and env.fallbacks == 1 and model.calls == 2  # first draft + one retry
    step = await env.env_response("REQUEST TEST: ECG\nREQUEST TEST: troponin")
    assert step.source == "measurement"
    assert "ST elevation" in step.reply and "2.4 ng/mL" in step.reply
    assert env.ordered_tests == ["ECG", "troponin"]
    step = await env.env_response("DIAGNOSIS: Inferior STEMI\nPlan: aspirin, urgent PCI.")
    assert step.done and step.reason == "diagnosis" and step.reply is None
    assert env.diagnosis == "Inferior STEMI"
    roles = [m.role for m in env.transcript]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert any("an hour ago" in fact for fact in env.revealed_facts)
    with pytest.raises(RuntimeError, match="over"):
        await env.env_response("Anything else?")


async def test_premature_diagnosis_is_configurable() -> None:
    case = find_case("migraine")
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), premature_diagnosis=True)
    step = await env.env_response("DIAGNOSIS: migraine")
    assert step.done and step.reason == "premature_diagnosis"
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), premature_diagnosis=False)
    assert (await env.env_response("DIAGNOSIS: migraine")).reason == "diagnosis"
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), premature_diagnosis=True)
    await env.env_response("How often do the headaches come?")
    assert (await env.env_response("DIAGNOSIS: migraine")).reason == "diagnosis"


async def test_turn_limit_and_patient_leaving() -> None:
    case = find_case("gerd")
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), max_turns=2)
    assert not (await env.env_response("What makes it worse?")).done
    last = await env.env_response("Any trouble swallowing?")
    assert last.done and last.reason == "turn_limit" and last.reply
    env = ConsultationEnv(case, PERSONA, LeakyPatientModel(), max_turns=6)
    assert not (await env.env_response("Okay.")).done  # one void turn is tolerated
    left = await env.env_response("Hmm.")
    assert left.done and left.reason == "patient_left" and "go home" in left.reply


async def test_a_finished_consultation_takes_no_more_turns() -> None:
    env = ConsultationEnv(find_case("acute-gout"), PERSONA, LeakyPatientModel())
    step = await env.env_response("REQUEST TEST: urate")
    assert step.source == "measurement" and "0.56 mmol/L" in step.reply
    assert (await env.env_response("DIAGNOSIS: acute gout")).reason == "diagnosis" and env.done
    with pytest.raises(RuntimeError, match="consultation is over"):
        await env.env_response("Any more questions?")
    assert env.messages()[0].role == "system" and env.messages()[1:] == env.transcript


async def test_the_loop_runs_turns_in_order_and_records_results() -> None:
    case = find_case("acs-stemi")
    doctor = ScriptedDoctor(["Do you smoke?", "REQUEST TEST: troponin", "DIAGNOSIS: STEMI\nPlan: PCI."])
    seen: list[Message] = []
    result = await consult(case, PERSONA, doctor, LeakyPatientModel(), on_message=seen.append)
    assert result.termination_reason == "diagnosis" and result.diagnosis == "STEMI"
    assert result.turns == 3 and result.ordered_tests == ["troponin"]
    assert [m.role for m in result.transcript] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert seen == result.transcript
    assert result.patient_replies == 1 and result.fallbacks == 1
    results = await consult_many(
        [case, find_case("migraine"), case], [PERSONA] * 3, ScriptedDoctor(["Anything else?"]),
        LeakyPatientModel(), SamplingConfig(max_turns=2), concurrency=2, progress=False,
    )
    assert [r.case_id for r in results] == ["acs-stemi", "migraine", "acs-stemi"]
    assert all(r.termination_reason == "turn_limit" and r.turns == 2 for r in results)
    with pytest.raises(ValueError, match="personas"):
        await consult_many([case], [], doctor, LeakyPatientModel())


async def test_the_loop_continues_a_consultation_under_way() -> None:
    """What an ARPO fork does: a copy of the environment after some turns goes on from there."""
    import copy

    case, sampling = find_case("acs-stemi"), SamplingConfig(max_turns=4)
    patient = LeakyPatientModel()
    turns = ["Do you smoke?", "Any family history?", "DIAGNOSIS: STEMI"]
    env = new_env(case, PERSONA, patient, sampling)
    forks = []

    def fork_after_first_reply(env, recorder) -> None:
        if env.turns == 1 and not forks:
            forks.append(copy.deepcopy(env, {id(patient): patient}))

    whole = await run_consultation(env, ScriptedDoctor(turns), sampling, before_turn=fork_after_first_reply)
    rest = await run_consultation(forks[0], ScriptedDoctor(turns), sampling)
    assert whole.termination_reason == rest.termination_reason == "diagnosis"
    assert [m.content for m in rest.transcript[:3]] == [m.content for m in whole.transcript[:3]]
    assert rest.turns == whole.turns == 3


class RestylingPatientModel:
    """Says the reply it is asked to restyle, opened by a word the sampling seed picks (seed-sensitive)."""

    model = "scripted-restyler"

    async def complete(self, messages: list[Message], *, seed: int | None = None, **_: object) -> Completion:
        reply = messages[0].content.rsplit('What you want to say: "', 1)[-1].rstrip('"')
        lead = ("Well, ", "So, ", "Hmm, ", "")[(seed or 0) % 4]
        return Completion(text=lead + reply[:1].lower() + reply[1:] if lead else reply)


async def test_a_stored_environment_rebuilt_between_turns_says_the_same() -> None:
    """``state()`` / ``restore()`` at every turn (through JSON, with a new patient client) change nothing:
    the replies, the bookkeeping and the end are those of the environment that ran throughout."""
    import json

    from patient_sim.env import EnvState
    from patient_sim.personas import sample_persona

    case = find_case("acs-stemi")
    turns = ["When did the pain start?", "Have you travelled abroad recently?", "REQUEST TEST: ECG, troponin",
             "Do you keep any pets?", "Okay.", "Have you travelled abroad recently?", "Any rashes?", "Anything else?"]

    async def run(rebuild_at: set[int], model=RestylingPatientModel) -> tuple[list[tuple], EnvState]:
        env = ConsultationEnv(case, sample_persona(4, case), model(), max_turns=7, seed=4)
        out = []
        for i, text in enumerate(turns):
            if i in rebuild_at:
                env = ConsultationEnv.restore(case, model(), json.loads(env.state().model_dump_json()))
            if env.done:
                break
            step = await env.env_response(text)
            out.append((step.reply, step.source, step.done, step.reason))
        return out, env.state()

    straight, final = await run(set())
    assert straight[-1][2:] == (True, "turn_limit") and len(straight) == 7
    for rebuild_at in ({1}, {3}, {5}, set(range(len(turns)))):
        assert await run(rebuild_at) == (straight, final)
    leaky_straight = await run(set(), LeakyPatientModel)
    assert await run({2, 4}, LeakyPatientModel) == leaky_straight  # the template path (every draft refused)

    restored = ConsultationEnv.restore(case, LeakyPatientModel(), final)
    assert restored.done and restored.reason == "turn_limit" and restored.transcript == final.transcript
    assert restored.ordered_tests == final.ordered != [] and restored.messages()[1:] == final.transcript
    with pytest.raises(RuntimeError, match="over"):
        await restored.env_response("One more?")
    with pytest.raises(ValueError, match="acs-stemi"):
        ConsultationEnv.restore(find_case("migraine"), LeakyPatientModel(), final)
