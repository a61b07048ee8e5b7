"""Clinician consultations stored in SQLite through LangGraph's checkpointer.

Each consultation is a LangGraph thread. The graph is one node, ``doctor``, that answers the
dialogue so far with the agent's system prompt; the clinician's message is the graph's input. With
``durability="sync"`` the input checkpoint (the clinician's message) is committed to the SQLite file
before the doctor node starts, and the doctor's reply is committed before the call returns, so a
server killed with SIGKILL loses no acknowledged turn. A small ``consultations`` table in the same file
records the owner of each thread (so a key lists and sees only its own sessions), the case it was
started from and who plays whom, and a ``shares`` table the reviewer keys the owner shared it with
(they may read it, never write to it; everyone else still gets "not found").

Who plays whom (``clinician_role``): ``patient`` — the clinician writes as (or about) the patient and
the agent answers as the doctor, with or without a case; ``doctor`` — the clinician interviews the
simulated patient of a case, the transcript keeping the project's convention that the doctor is
``assistant``. The interview runs on the project's one consultation environment,
``patient_sim.env.ConsultationEnv``, exactly as training and evaluation do: its termination gate
(``DIAGNOSIS:`` ends it, ``REQUEST TEST:`` lines go to the measurement responder), its turn limit
(``SamplingConfig.max_turns``), "the patient leaves" after void turns, and its simulated patient. The
environment's whole state (``EnvState``: the transcript, the gate's memory, the patient's random
generator and the wordings it has used) is in the graph state and is rebuilt from there for every
turn, so a restart changes nothing the patient says. A consultation that is over takes no more turns
(``ConsultationOver``); its ``ended`` says why.
"""

from __future__ import annotations

import asyncio
import logging
import operator
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from patient_sim import prompts
from patient_sim import text as tx
from patient_sim.env import ConsultationEnv, EnvState
from patient_sim.loop import SamplingConfig
from patient_sim.personas import sample_persona
from serving.routes_common import stream_text
from verifier.llm import ChatClient
from verifier.markers import parse_diagnosis
from verifier.types import Case, Message

logger = logging.getLogger(__name__)

PROMPT_VERSION = "1"


def doctor_system_prompt() -> str:
    """The doctor's system prompt: the patient simulator's (``patient_sim.prompts``), read when called."""
    return prompts.DOCTOR_SYSTEM_PROMPT


ClinicianRole = Literal["patient", "doctor"]
Access = Literal["owner", "reviewer"]
CLOSING_REPLY = "Thank you, doctor."  # shown after a diagnosis ends an interview (the environment says nothing)


class ConsultationState(TypedDict):
    messages: Annotated[list[dict[str, str]], operator.add]  # plain dicts: {"role", "content"}
    env: NotRequired[dict[str, Any]]  # the ConsultationEnv's EnvState, as JSON (doctor role only)
    revealed: NotRequired[list[str]]  # before the EnvState was stored: the facts told so far (read, not written)


class ConsultationOver(RuntimeError):
    """A turn sent to an interview the environment has ended (a diagnosis, the turn limit, the patient left)."""

    def __init__(self, consultation_id: str, reason: str | None) -> None:
        super().__init__(f"consultation {consultation_id!r} is over ({describe_end(reason)}): start a new one")
        self.reason = reason


_ENDS = {"diagnosis": "a diagnosis was given", "premature_diagnosis": "a diagnosis was given before any question",
         "turn_limit": "the turn limit was reached", "patient_left": "the patient left"}


def describe_end(reason: str | None) -> str:
    return _ENDS.get(reason or "", reason or "ended")


class ConsultationSummary(BaseModel):
    id: str
    title: str
    created_at: float
    updated_at: float
    turns: int  # clinician messages answered
    case_id: str | None = None
    clinician_role: ClinicianRole = "patient"
    access: Access = "owner"  # "reviewer": shared with this key read-only


class Consultation(ConsultationSummary):
    messages: list[Message]
    # Interviews of the simulated patient (doctor role): why it ended (None: still going) and the turn limit.
    ended: str | None = None
    turn_limit: int | None = None


class Reply(BaseModel):
    consultation_id: str
    message: Message
    ended: str | None = None  # this turn ended the interview: "diagnosis", "turn_limit", "patient_left", ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS consultations (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    title TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS consultations_tenant ON consultations (tenant, updated_at);
CREATE TABLE IF NOT EXISTS shares (
    consultation_id TEXT NOT NULL,
    reviewer TEXT NOT NULL,
    PRIMARY KEY (consultation_id, reviewer)
);
CREATE INDEX IF NOT EXISTS shares_reviewer ON shares (reviewer);
"""
# Columns added after the first release: an older file gets them on open.
_ADDED_COLUMNS = {"case_id": "TEXT", "clinician_role": "TEXT NOT NULL DEFAULT 'patient'",
                  "persona_seed": "INTEGER NOT NULL DEFAULT 0"}
_COLUMNS = "c.id, c.title, c.created_at, c.updated_at, c.turns, c.case_id, c.clinician_role"


def trim_history(messages: list[Message], max_chars: int) -> list[Message]:
    """The most recent messages whose total length fits ``max_chars`` (always the last one)."""
    kept: list[Message] = []
    total = 0
    for message in reversed(messages):
        total += len(message.content)
        if kept and total > max_chars:
            break
        kept.append(message)
    kept.reverse()
    return kept


class ConsultationStore:
    """Create, answer, read, list and delete consultations; one instance per app."""

    def __init__(self, conn: aiosqlite.Connection, client: ChatClient | None, *, history_chars: int = 6000,
                 cases: list[Case] | None = None, sampling: SamplingConfig | None = None) -> None:
        self._conn = conn
        self._saver = AsyncSqliteSaver(conn)
        self.client = client
        self.history_chars = history_chars
        self.system_prompt = doctor_system_prompt()
        self.cases = {case.id: case for case in cases or []}
        # The interviews' turn limit and patient tokens: training's and evaluation's defaults.
        self.sampling = sampling or SamplingConfig()
        self._locks: dict[str, asyncio.Lock] = {}
        builder = StateGraph(ConsultationState)
        builder.add_node("doctor", self._doctor)
        builder.add_node("patient", self._patient)
        builder.add_conditional_edges(START, self._route, ["doctor", "patient"])
        builder.add_edge("doctor", END)
        builder.add_edge("patient", END)
        self.graph = builder.compile(checkpointer=self._saver)

    @property
    def conn(self) -> aiosqlite.Connection:
        return self._conn

    @classmethod
    async def open(cls, path: Path, client: ChatClient | None, *, history_chars: int = 6000,
                   cases: list[Case] | None = None, sampling: SamplingConfig | None = None) -> ConsultationStore:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path))
        store = cls(conn, client, history_chars=history_chars, cases=cases, sampling=sampling)
        await store._saver.setup()
        await conn.executescript(_SCHEMA)
        async with conn.execute("PRAGMA table_info(consultations)") as cursor:
            present = {row[1] for row in await cursor.fetchall()}
        for column, kind in _ADDED_COLUMNS.items():
            if column not in present:
                await conn.execute(f"ALTER TABLE consultations ADD COLUMN {column} {kind}")
        await conn.commit()
        return store

    async def close(self) -> None:
        await self._conn.close()

    # ------------------------------------------------------------------ the graph
    @staticmethod
    def _route(_: ConsultationState, config: RunnableConfig) -> str:
        return "patient" if config.get("configurable", {}).get("clinician_role") == "doctor" else "doctor"

    async def _patient(self, state: ConsultationState, config: RunnableConfig) -> dict[str, object]:
        """The clinician's doctor turn goes to the consultation environment, rebuilt from the stored state:
        its reply (the simulated patient's, the measurement responder's, the patient leaving) and its new
        state are stored together."""
        options = config.get("configurable", {})
        *before, turn = state["messages"]  # the environment has yet to see the clinician's new turn
        env = self._restore({**state, "messages": before}, options["case_id"], int(options.get("persona_seed", 0)))
        step = await env.env_response(turn["content"])
        text = step.reply if step.reply is not None else CLOSING_REPLY
        return {"messages": [{"role": "user", "content": text}], "env": env.state().model_dump(mode="json")}

    def _new_env(self, case_id: str, persona_seed: int) -> ConsultationEnv:
        """A new interview of ``case_id``'s simulated patient, set up as training and evaluation set it up."""
        if self.client is None:
            raise RuntimeError("this store was opened without a model: it cannot play the patient")
        case = self.cases[case_id]
        return ConsultationEnv(case, sample_persona(persona_seed, case), self.client,
                               max_turns=self.sampling.max_turns, seed=persona_seed,
                               patient_max_tokens=self.sampling.patient_max_tokens)

    def _restore(self, values: dict[str, Any], case_id: str, persona_seed: int) -> ConsultationEnv:
        if self.client is None:
            raise RuntimeError("this store was opened without a model: it cannot play the patient")
        return ConsultationEnv.restore(self.cases[case_id], self.client,
                                       self._env_state(values, case_id, persona_seed))

    def _env_state(self, values: dict[str, Any], case_id: str, persona_seed: int) -> EnvState:
        """The stored environment; for an interview stored before the environment was (only ``revealed``),
        the state its transcript implies."""
        if values.get("env"):
            return EnvState.model_validate(values["env"])
        case = self.cases[case_id]
        state = ConsultationEnv(case, sample_persona(persona_seed, case), None, max_turns=self.sampling.max_turns,
                                seed=persona_seed, patient_max_tokens=self.sampling.patient_max_tokens).state()
        messages = [Message.model_validate(m) for m in values.get("messages", [])]
        doctor = [m.content for m in messages if m.role == "assistant"]
        diagnosed = next((text for text in doctor if parse_diagnosis(text) is not None), None)
        if diagnosed is not None and messages and messages[-1].role == "user" and messages[-1].content == CLOSING_REPLY:
            messages = messages[:-1]
        said = sorted({tx.reply_key(m.content) for m in messages[1:] if m.role == "user"})
        return state.model_copy(update={
            "transcript": messages or state.transcript, "turns": len(doctor),
            "revealed": list(values.get("revealed") or state.revealed),
            "done": diagnosed is not None, "reason": "diagnosis" if diagnosed is not None else None,
            "diagnosis": parse_diagnosis(diagnosed) if diagnosed is not None else None,
            "asked": bool(doctor), "patient": state.patient.model_copy(update={"said": said}),
        })

    async def _doctor(self, state: ConsultationState, config: RunnableConfig) -> dict[str, list[dict[str, str]]]:
        options = config.get("configurable", {})
        history = [Message.model_validate(m) for m in state["messages"]]
        prompt = [Message(role="system", content=self.system_prompt), *trim_history(history, self.history_chars)]
        write = get_stream_writer()
        parts: list[str] = []
        async for piece in stream_text(
            self.client,
            prompt,
            max_tokens=int(options.get("max_tokens", 256)),
            temperature=float(options.get("temperature", 0.7)),
        ):
            parts.append(piece)
            write({"delta": piece})
        text = "".join(parts).strip()
        return {"messages": [{"role": "assistant", "content": text}]}

    # ------------------------------------------------------------------ operations
    async def create(self, tenant: str, title: str, *, case_id: str | None = None,
                     clinician_role: ClinicianRole = "patient", persona_seed: int = 0) -> ConsultationSummary:
        """A new consultation; as the doctor (``clinician_role="doctor"``, a case needed) it opens with the
        simulated patient's complaint."""
        if case_id is not None and case_id not in self.cases:
            raise KeyError(case_id)
        if clinician_role == "doctor" and case_id is None:
            raise ValueError("interviewing the simulated patient needs a case")
        now = time.time()
        summary = ConsultationSummary(id=uuid.uuid4().hex, title=title, created_at=now, updated_at=now, turns=0,
                                      case_id=case_id, clinician_role=clinician_role)
        if clinician_role == "doctor":
            assert case_id is not None
            env = self._new_env(case_id, persona_seed)
            await self.graph.aupdate_state(
                self._config(summary.id),
                {"messages": [{"role": "user", "content": env.opening()}], "env": env.state().model_dump(mode="json")},
                as_node="patient",
            )
        await self._conn.execute(
            "INSERT INTO consultations (id, tenant, title, created_at, updated_at, turns, case_id, clinician_role, "
            "persona_seed) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (summary.id, tenant, title, now, now, case_id, clinician_role, persona_seed),
        )
        await self._conn.commit()
        return summary

    async def summary(self, tenant: str, consultation_id: str, *, shared: bool = False) -> ConsultationSummary | None:
        """The session if it exists AND belongs to ``tenant`` (or, with ``shared``, is shared with it);
        others' sessions look absent."""
        async with self._conn.execute(
            f"SELECT {_COLUMNS}, c.tenant = ? FROM consultations c WHERE c.id = ? AND (c.tenant = ? OR "
            "(? AND EXISTS (SELECT 1 FROM shares s WHERE s.consultation_id = c.id AND s.reviewer = ?)))",
            (tenant, consultation_id, tenant, shared, tenant),
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else self._summary(row)

    async def list(self, tenant: str, limit: int = 100) -> list[ConsultationSummary]:
        """The tenant's own consultations and those shared with it, most recent first."""
        async with self._conn.execute(
            f"SELECT {_COLUMNS}, c.tenant = ? FROM consultations c WHERE c.tenant = ? OR c.id IN "
            "(SELECT consultation_id FROM shares WHERE reviewer = ?) ORDER BY c.updated_at DESC LIMIT ?",
            (tenant, tenant, tenant, limit),
        ) as cursor:
            rows = await cursor.fetchall()
        return [self._summary(r) for r in rows]

    @staticmethod
    def _summary(row: tuple) -> ConsultationSummary:
        return ConsultationSummary(id=row[0], title=row[1], created_at=row[2], updated_at=row[3], turns=row[4],
                                   case_id=row[5], clinician_role=row[6] or "patient",
                                   access="owner" if row[7] else "reviewer")

    async def owner(self, consultation_id: str) -> str | None:
        async with self._conn.execute("SELECT tenant FROM consultations WHERE id = ?", (consultation_id,)) as cursor:
            row = await cursor.fetchone()
        return row[0] if row else None

    async def messages(self, consultation_id: str) -> list[Message]:
        state = await self.graph.aget_state(self._config(consultation_id))
        return [Message.model_validate(m) for m in (state.values or {}).get("messages", [])]

    async def interview(self, consultation_id: str) -> EnvState | None:
        """The environment of an interview of a simulated patient (doctor role), as stored; None otherwise."""
        async with self._conn.execute(
            "SELECT case_id, clinician_role, persona_seed FROM consultations WHERE id = ?", (consultation_id,)
        ) as cursor:
            row = await cursor.fetchone()
        if row is None or row[1] != "doctor" or row[0] not in self.cases:
            return None
        values = (await self.graph.aget_state(self._config(consultation_id))).values or {}
        return self._env_state(values, row[0], int(row[2] or 0))

    async def get(self, tenant: str, consultation_id: str, *, shared: bool = False) -> Consultation | None:
        summary = await self.summary(tenant, consultation_id, shared=shared)
        if summary is None:
            return None
        env = await self.interview(consultation_id) if summary.clinician_role == "doctor" else None
        return Consultation(**summary.model_dump(), messages=await self.messages(consultation_id),
                            ended=env.reason if env is not None and env.done else None,
                            turn_limit=env.max_turns if env is not None else None)

    async def attach_case(self, consultation_id: str, case_id: str) -> None:
        if case_id not in self.cases:
            raise KeyError(case_id)
        await self._conn.execute("UPDATE consultations SET case_id = ? WHERE id = ?", (case_id, consultation_id))
        await self._conn.commit()

    async def shares(self, consultation_id: str) -> list[str]:
        async with self._conn.execute(
            "SELECT reviewer FROM shares WHERE consultation_id = ? ORDER BY reviewer", (consultation_id,)
        ) as cursor:
            return [row[0] for row in await cursor.fetchall()]

    async def set_shares(self, consultation_id: str, reviewers: list[str]) -> None:
        """Replace the consultation's reviewers (tenant ids) in one transaction."""
        await self._conn.execute("DELETE FROM shares WHERE consultation_id = ?", (consultation_id,))
        await self._conn.executemany("INSERT OR IGNORE INTO shares (consultation_id, reviewer) VALUES (?, ?)",
                                     [(consultation_id, r) for r in reviewers])
        await self._conn.commit()

    async def delete(self, tenant: str, consultation_id: str) -> bool:
        if await self.summary(tenant, consultation_id) is None:
            return False
        async with self._lock(consultation_id):
            await self._saver.adelete_thread(consultation_id)
            await self._conn.execute("DELETE FROM consultations WHERE id = ?", (consultation_id,))
            await self._conn.execute("DELETE FROM shares WHERE consultation_id = ?", (consultation_id,))
            await self._conn.commit()
        self._locks.pop(consultation_id, None)
        return True

    async def send(
        self, consultation_id: str, content: str, *, max_tokens: int, temperature: float
    ) -> AsyncIterator[str | Reply]:
        """Persist the clinician's message, then yield the reply's text pieces and finally the ``Reply``.

        Turns of one consultation are answered one at a time (a per-session lock), in arrival order.
        As the doctor, the clinician's message is an ``assistant`` turn and the reply the environment's;
        an interview that is over raises ``ConsultationOver`` before anything is stored.
        """
        async with self._conn.execute(
            "SELECT case_id, clinician_role, persona_seed FROM consultations WHERE id = ?", (consultation_id,)
        ) as cursor:
            row = await cursor.fetchone()
        case_id, role, persona_seed = row if row else (None, "patient", 0)
        said, answered = ("assistant", "user") if role == "doctor" else ("user", "assistant")
        config = self._config(consultation_id, max_tokens=max_tokens, temperature=temperature,
                              clinician_role=role or "patient", case_id=case_id, persona_seed=persona_seed)
        async with self._lock(consultation_id):
            if role == "doctor":
                env = await self.interview(consultation_id)
                if env is not None and env.done:
                    raise ConsultationOver(consultation_id, env.reason)
            final: list[dict[str, str]] = []
            ended: str | None = None
            async for mode, chunk in self.graph.astream(
                {"messages": [{"role": said, "content": content}]},
                config,
                stream_mode=["custom", "values"],
                durability="sync",
            ):
                if mode == "custom":
                    yield chunk["delta"]
                else:
                    final = chunk["messages"]
                    stored_env = chunk.get("env") if role == "doctor" else None
                    ended = stored_env.get("reason") if stored_env and stored_env.get("done") else None
            await self._conn.execute(
                "UPDATE consultations SET updated_at = ?, turns = turns + 1 WHERE id = ?",
                (time.time(), consultation_id),
            )
            await self._conn.commit()
        reply = Message.model_validate(final[-1]) if final and final[-1]["role"] == answered else None
        if reply is None:
            raise RuntimeError(f"consultation {consultation_id}: the {answered} node produced no reply")
        yield Reply(consultation_id=consultation_id, message=reply, ended=ended)

    # ------------------------------------------------------------------ helpers
    def _lock(self, consultation_id: str) -> asyncio.Lock:
        return self._locks.setdefault(consultation_id, asyncio.Lock())

    @staticmethod
    def _config(consultation_id: str, **options: float | str | None) -> RunnableConfig:
        return {"configurable": {"thread_id": consultation_id, **options}}
