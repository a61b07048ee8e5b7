"""The consultation loop: the one function that drives every consultation.

:func:`run_consultation` is the loop. Training (the GRPO ``rollout_func``), the consultation eval,
``medverifier simulate``, the demo and the benchmarks all call it; what varies is data:

* the **environment** (:class:`patient_sim.env.ConsultationEnv`): its reply to a doctor turn
  (``env_response``) and whether the consultation is over, with its reason (``done``, ``reason``);
* the **sampling config** (:class:`SamplingConfig`): temperature, tokens per turn, stop strings, the turn
  limit, the patient's tokens — one set of defaults for training and evaluation, overridable per run
  and recorded in the run's config;
* an optional **recorder**, for token-level results (``prompt_ids``, ``completion_ids``, ``logprobs``,
  ``env_mask``; ``policy.tokens.TokenRecorder`` renders the model's own chat template) and a bound on
  the whole episode's tokens;
* optional hooks: ``on_message`` (streaming to a terminal or a progress bar) and ``before_turn``
  (ARPO's fork points).

The loop keeps no state of its own: everything is in the environment and the recorder, so a
consultation copied mid-way (an ARPO fork) continues by calling the loop again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from patient_sim.env import ConsultationEnv
from patient_sim.personas import Persona
from verifier.llm import ChatClient, Completion
from verifier.types import Case, Message

MessageCallback = Callable[[Message], None]
DEFAULT_STOP = ("\nPatient:", "\nPATIENT:", "\nUser:")


class SamplingConfig(BaseModel):
    """How the doctor is sampled and how long a consultation may run (training and evaluation alike)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float = Field(0.7, ge=0.0, description="the doctor's sampling temperature")
    turn_tokens: int = Field(64, ge=4, description="most tokens in one doctor turn")
    stop: tuple[str, ...] = Field(DEFAULT_STOP, description="strings that end a doctor turn")
    max_turns: int = Field(6, ge=1, description="doctor turns before the consultation ends")
    patient_max_tokens: int = Field(32, ge=4, description="most tokens in one patient reply")
    max_completion_tokens: int | None = Field(
        None, ge=16, description="bound on the episode's tokens after the prompt (token-level runs)"
    )
    min_turn_tokens: int = Field(8, ge=1, description="a turn needs at least this much of the bound left")


class TokenTrace(BaseModel):
    """The episode as tokens: the prompt, then doctor tokens (``env_mask`` 1) and environment tokens
    (template glue, patient and measurement replies: ``env_mask`` 0)."""

    prompt_ids: list[int]
    completion_ids: list[int] = Field(default_factory=list)
    env_mask: list[int] = Field(default_factory=list)
    logprobs: list[float] = Field(default_factory=list)


class Recorder(Protocol):
    """What the loop needs from a token recorder (``policy.tokens.TokenRecorder``)."""

    def start(self, messages: list[Message]) -> None: ...

    def room(self) -> int | None: ...

    def record_turn(self, completion: Completion, messages: list[Message], *, done: bool) -> bool: ...

    def trace(self) -> TokenTrace: ...


class ConsultationResult(BaseModel):
    case_id: str
    persona: Persona
    transcript: list[Message]
    revealed_facts: list[str]
    ordered_tests: list[str]
    turns: int
    termination_reason: str | None  # diagnosis, patient_left, turn_limit, premature_diagnosis, budget
    diagnosis: str | None
    leaks_caught: int
    fallbacks: int
    patient_replies: int
    tokens: TokenTrace | None = None  # with a recorder


def new_env(case: Case, persona: Persona, patient: ChatClient, sampling: SamplingConfig, *, seed: int = 0,
            premature_diagnosis: bool = False) -> ConsultationEnv:
    """The environment for one consultation under ``sampling``'s turn limit and patient tokens."""
    return ConsultationEnv(case, persona, patient, max_turns=sampling.max_turns, seed=seed,
                           patient_max_tokens=sampling.patient_max_tokens, premature_diagnosis=premature_diagnosis)


async def run_consultation(
    env: ConsultationEnv,
    doctor: ChatClient,
    sampling: SamplingConfig,
    *,
    seed: int = 0,
    recorder: Recorder | None = None,
    on_message: MessageCallback | None = None,
    before_turn: Callable[[ConsultationEnv, Recorder | None], None] | None = None,
) -> ConsultationResult:
    """Doctor turn, environment reply, until the environment says the consultation is over (or the
    recorder's token bound runs out: ``"budget"``). Continues a consultation already under way."""
    if env.turns == 0:
        if recorder is not None:
            recorder.start(env.messages())
        if on_message is not None:
            on_message(env.transcript[0])
    ended: str | None = None
    while not env.done:
        room = recorder.room() if recorder is not None else None
        if room is not None and room < sampling.min_turn_tokens:
            ended = "budget"
            break
        if before_turn is not None:
            before_turn(env, recorder)
        completion = await doctor.complete(
            env.messages(),
            max_tokens=sampling.turn_tokens if room is None else min(sampling.turn_tokens, room),
            temperature=sampling.temperature,
            stop=list(sampling.stop) or None,
            seed=seed * 1000 + env.turns,
        )
        before = len(env.transcript)
        await env.env_response(completion.text.strip())
        if on_message is not None:
            for message in env.transcript[before:]:
                on_message(message)
        if recorder is not None and not recorder.record_turn(completion, env.messages(), done=env.done):
            ended = "budget"
            break
    return ConsultationResult(
        case_id=env.case.id, persona=env.persona, transcript=env.transcript, revealed_facts=env.revealed_facts,
        ordered_tests=env.ordered_tests, turns=env.turns, termination_reason=ended or env.reason,
        diagnosis=env.diagnosis, leaks_caught=env.leaks_caught, fallbacks=env.fallbacks,
        patient_replies=env.patient_replies, tokens=recorder.trace() if recorder is not None else None,
    )


async def consult(
    case: Case, persona: Persona, doctor: ChatClient, patient: ChatClient, sampling: SamplingConfig | None = None,
    *, seed: int = 0, premature_diagnosis: bool = False, on_message: MessageCallback | None = None,
) -> ConsultationResult:
    """One consultation on ``case`` from the patient's opening (the loop with a new environment)."""
    sampling = sampling or SamplingConfig()
    env = new_env(case, persona, patient, sampling, seed=seed, premature_diagnosis=premature_diagnosis)
    return await run_consultation(env, doctor, sampling, seed=seed, on_message=on_message)


async def consult_many(
    cases: list[Case], personas: list[Persona], doctor: ChatClient, patient: ChatClient,
    sampling: SamplingConfig | None = None, *, concurrency: int = 8, seed: int = 0, progress: bool = True,
) -> list[ConsultationResult]:
    """``cases[i]`` with ``personas[i]`` (seed ``seed + i``), at most ``concurrency`` at once, results in
    input order; on a ``LocalChatClient`` their turns share batched forward passes."""
    if len(cases) != len(personas):
        raise ValueError(f"got {len(cases)} cases but {len(personas)} personas")
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    from tqdm import tqdm

    semaphore = asyncio.Semaphore(concurrency)
    bar = tqdm(total=len(cases), desc="consultations", unit="ep", disable=not progress)

    async def one(i: int) -> ConsultationResult:
        async with semaphore:
            result = await consult(cases[i], personas[i], doctor, patient, sampling, seed=seed + i)
        bar.update(1)
        return result

    try:
        return list(await asyncio.gather(*(one(i) for i in range(len(cases)))))
    finally:
        bar.close()
