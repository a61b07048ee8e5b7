"""The consultation graph (LangGraph): doctor -> gate -> patient | measurement -> doctor ... -> END.

The graph's typed state carries the messages, revealed facts, ordered tests, the turn count and the
termination reason; the ``ConsultationEnv`` behind it holds the case and does the work. Doctor and
patient are any ``ChatClient``s (a ``TerminalDoctor`` lets a clinician play the doctor). Many
consultations run at once with ``run_consultations``; on a ``LocalChatClient`` their turns share batches.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from patient_sim.env import ConsultationEnv, Route
from patient_sim.personas import Persona
from patient_sim.prompts import DOCTOR_SYSTEM_PROMPT
from verifier.llm import ChatClient
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

MessageCallback = Callable[[Message], None]


class ConsultationState(TypedDict):
    messages: list[Message]
    revealed_facts: list[str]
    ordered_tests: list[str]
    turns: int
    termination_reason: str | None
    route: str
    doctor_text: str


class ConsultationResult(BaseModel):
    case_id: str
    persona: Persona
    transcript: list[Message]
    revealed_facts: list[str]
    ordered_tests: list[str]
    turns: int
    termination_reason: str | None
    diagnosis: str | None
    leaks_caught: int
    fallbacks: int
    patient_replies: int


def build_graph(
    env: ConsultationEnv,
    doctor: ChatClient,
    *,
    seed: int = 0,
    doctor_max_tokens: int = 96,
    doctor_temperature: float = 0.7,
    on_message: MessageCallback | None = None,
):
    """A compiled graph for one consultation (the env is bound into the nodes)."""

    def snapshot(**extra: object) -> dict[str, object]:
        return {
            "messages": env.transcript,
            "revealed_facts": env.revealed_facts,
            "ordered_tests": env.ordered_tests,
            "turns": env.turns,
            "termination_reason": env.reason,
            **extra,
        }

    async def doctor_node(state: ConsultationState) -> dict[str, object]:
        messages = [Message(role="system", content=DOCTOR_SYSTEM_PROMPT), *state["messages"]]
        completion = await doctor.complete(
            messages,
            max_tokens=doctor_max_tokens,
            temperature=doctor_temperature,
            stop=["\nPatient:", "\nPATIENT:", "\nUser:"],
            seed=seed * 1000 + state["turns"],
        )
        text = completion.text.strip()
        return {"doctor_text": text}

    def gate_node(state: ConsultationState) -> dict[str, object]:
        route = env.gate(state["doctor_text"])
        if on_message is not None:
            on_message(env.transcript[-1])
        return snapshot(route=route)

    async def reply_node(state: ConsultationState) -> dict[str, object]:
        step = await env.respond(state["route"])  # type: ignore[arg-type]
        if on_message is not None and step.reply is not None:
            on_message(env.transcript[-1])
        return snapshot(route="end" if step.done else "doctor")

    def after_gate(state: ConsultationState) -> str:
        route: Route = state["route"]  # type: ignore[assignment]
        return END if route == "end" else route

    def after_reply(state: ConsultationState) -> str:
        return END if state["route"] == "end" else "doctor"

    graph = StateGraph(ConsultationState)
    graph.add_node("doctor", doctor_node)
    graph.add_node("gate", gate_node)
    graph.add_node("patient", reply_node)
    graph.add_node("measurement", reply_node)
    graph.add_edge(START, "doctor")
    graph.add_edge("doctor", "gate")
    graph.add_conditional_edges("gate", after_gate, {"patient": "patient", "measurement": "measurement", END: END})
    graph.add_conditional_edges("patient", after_reply, {"doctor": "doctor", END: END})
    graph.add_conditional_edges("measurement", after_reply, {"doctor": "doctor", END: END})
    return graph.compile()


async def run_consultation(
    case: Case,
    persona: Persona,
    doctor: ChatClient,
    patient: ChatClient,
    *,
    max_turns: int = 6,
    seed: int = 0,
    doctor_max_tokens: int = 96,
    on_message: MessageCallback | None = None,
    premature_diagnosis: bool = False,
) -> ConsultationResult:
    """One consultation from the patient's opening to the gate's termination."""
    env = ConsultationEnv(
        case, persona, patient, max_turns=max_turns, seed=seed, premature_diagnosis=premature_diagnosis
    )
    if on_message is not None:
        on_message(env.transcript[0])
    app = build_graph(env, doctor, seed=seed, doctor_max_tokens=doctor_max_tokens, on_message=on_message)
    initial: ConsultationState = {
        "messages": env.transcript,
        "revealed_facts": env.revealed_facts,
        "ordered_tests": [],
        "turns": 0,
        "termination_reason": None,
        "route": "doctor",
        "doctor_text": "",
    }
    await app.ainvoke(initial, config={"recursion_limit": 4 * max_turns + 10})
    return ConsultationResult(
        case_id=case.id,
        persona=persona,
        transcript=env.transcript,
        revealed_facts=env.revealed_facts,
        ordered_tests=env.ordered_tests,
        turns=env.turns,
        termination_reason=env.reason,
        diagnosis=env.diagnosis,
        leaks_caught=env.leaks_caught,
        fallbacks=env.fallbacks,
        patient_replies=env.patient_replies,
    )


async def run_consultations(
    cases: list[Case],
    personas: list[Persona],
    doctor: ChatClient,
    patient: ChatClient,
    *,
    concurrency: int = 8,
    max_turns: int = 6,
    seed: int = 0,
    progress: bool = True,
    doctor_max_tokens: int = 96,
) -> list[ConsultationResult]:
    """Run ``cases[i]`` with ``personas[i]`` (seed ``seed + i``), at most ``concurrency`` at once.

    Results come back in input order. With ``concurrency=1`` they run one after another.
    """
    if len(cases) != len(personas):
        raise ValueError(f"got {len(cases)} cases but {len(personas)} personas")
    if concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {concurrency}")
    from tqdm import tqdm

    semaphore = asyncio.Semaphore(concurrency)
    bar = tqdm(total=len(cases), desc="consultations", unit="ep", disable=not progress)

    async def one(i: int) -> ConsultationResult:
        async with semaphore:
            result = await run_consultation(
                cases[i], personas[i], doctor, patient, max_turns=max_turns, seed=seed + i,
                doctor_max_tokens=doctor_max_tokens,
            )
        bar.update(1)
        return result

    try:
        return list(await asyncio.gather(*(one(i) for i in range(len(cases)))))
    finally:
        bar.close()
