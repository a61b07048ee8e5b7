"""Clinician consultations stored in SQLite through LangGraph's checkpointer.

Each consultation is a LangGraph thread. The graph is one node, ``doctor``, that answers the
dialogue so far with the agent's system prompt; the clinician's message is the graph's input. With
``durability="sync"`` the input checkpoint (the clinician's message) is committed to the SQLite file
before the doctor node starts, and the doctor's reply is committed before the call returns, so a
server killed with SIGKILL loses no acknowledged turn. A small ``consultations`` table in the same file
records the owner of each thread (so a key lists and sees only its own sessions).
"""

from __future__ import annotations

import asyncio
import logging
import operator
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, TypedDict

import aiosqlite
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from patient_sim import prompts
from serving.routes_common import stream_text
from verifier.llm import ChatClient
from verifier.types import Message

logger = logging.getLogger(__name__)

PROMPT_VERSION = "1"


def doctor_system_prompt() -> str:
    """The doctor's system prompt: the patient simulator's (``patient_sim.prompts``), read when called."""
    return prompts.DOCTOR_SYSTEM_PROMPT


class ConsultationState(TypedDict):
    messages: Annotated[list[dict[str, str]], operator.add]  # plain dicts: {"role", "content"}


class ConsultationSummary(BaseModel):
    id: str
    title: str
    created_at: float
    updated_at: float
    turns: int  # clinician messages answered by the agent


class Consultation(ConsultationSummary):
    messages: list[Message]


class Reply(BaseModel):
    consultation_id: str
    message: Message


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
"""


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

    def __init__(self, conn: aiosqlite.Connection, client: ChatClient, *, history_chars: int = 6000) -> None:
        self._conn = conn
        self._saver = AsyncSqliteSaver(conn)
        self.client = client
        self.history_chars = history_chars
        self.system_prompt = doctor_system_prompt()
        self._locks: dict[str, asyncio.Lock] = {}
        builder = StateGraph(ConsultationState)
        builder.add_node("doctor", self._doctor)
        builder.add_edge(START, "doctor")
        builder.add_edge("doctor", END)
        self.graph = builder.compile(checkpointer=self._saver)

    @classmethod
    async def open(cls, path: Path, client: ChatClient, **kwargs: int) -> ConsultationStore:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(path))
        store = cls(conn, client, **kwargs)
        await store._saver.setup()
        await conn.executescript(_SCHEMA)
        await conn.commit()
        return store

    async def close(self) -> None:
        await self._conn.close()

    # ------------------------------------------------------------------ the graph
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
    async def create(self, tenant: str, title: str) -> ConsultationSummary:
        now = time.time()
        summary = ConsultationSummary(id=uuid.uuid4().hex, title=title, created_at=now, updated_at=now, turns=0)
        await self._conn.execute(
            "INSERT INTO consultations (id, tenant, title, created_at, updated_at, turns) VALUES (?, ?, ?, ?, ?, 0)",
            (summary.id, tenant, title, now, now),
        )
        await self._conn.commit()
        return summary

    async def summary(self, tenant: str, consultation_id: str) -> ConsultationSummary | None:
        """The session if it exists AND belongs to ``tenant`` (others' sessions look absent)."""
        async with self._conn.execute(
            "SELECT id, title, created_at, updated_at, turns FROM consultations WHERE id = ? AND tenant = ?",
            (consultation_id, tenant),
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return None
        return ConsultationSummary(id=row[0], title=row[1], created_at=row[2], updated_at=row[3], turns=row[4])

    async def list(self, tenant: str, limit: int = 100) -> list[ConsultationSummary]:
        async with self._conn.execute(
            "SELECT id, title, created_at, updated_at, turns FROM consultations WHERE tenant = ? "
            "ORDER BY updated_at DESC LIMIT ?",
            (tenant, limit),
        ) as cursor:
            rows = await cursor.fetchall()
        return [
            ConsultationSummary(id=r[0], title=r[1], created_at=r[2], updated_at=r[3], turns=r[4]) for r in rows
        ]

    async def get(self, tenant: str, consultation_id: str) -> Consultation | None:
        summary = await self.summary(tenant, consultation_id)
        if summary is None:
            return None
        state = await self.graph.aget_state(self._config(consultation_id))
        messages = [Message.model_validate(m) for m in (state.values or {}).get("messages", [])]
        return Consultation(**summary.model_dump(), messages=messages)

    async def delete(self, tenant: str, consultation_id: str) -> bool:
        if await self.summary(tenant, consultation_id) is None:
            return False
        async with self._lock(consultation_id):
            await self._saver.adelete_thread(consultation_id)
            await self._conn.execute("DELETE FROM consultations WHERE id = ?", (consultation_id,))
            await self._conn.commit()
        self._locks.pop(consultation_id, None)
        return True

    async def send(
        self, consultation_id: str, content: str, *, max_tokens: int, temperature: float
    ) -> AsyncIterator[str | Reply]:
        """Persist the clinician's message, then yield the reply's text pieces and finally the ``Reply``.

        Turns of one consultation are answered one at a time (a per-session lock), in arrival order.
        """
        config = self._config(consultation_id, max_tokens=max_tokens, temperature=temperature)
        async with self._lock(consultation_id):
            final: list[dict[str, str]] = []
            async for mode, chunk in self.graph.astream(
                {"messages": [{"role": "user", "content": content}]},
                config,
                stream_mode=["custom", "values"],
                durability="sync",
            ):
                if mode == "custom":
                    yield chunk["delta"]
                else:
                    final = chunk["messages"]
            await self._conn.execute(
                "UPDATE consultations SET updated_at = ?, turns = turns + 1 WHERE id = ?",
                (time.time(), consultation_id),
            )
            await self._conn.commit()
        reply = Message.model_validate(final[-1]) if final and final[-1]["role"] == "assistant" else None
        if reply is None:
            raise RuntimeError(f"consultation {consultation_id}: the doctor node produced no reply")
        yield Reply(consultation_id=consultation_id, message=reply)

    # ------------------------------------------------------------------ helpers
    def _lock(self, consultation_id: str) -> asyncio.Lock:
        return self._locks.setdefault(consultation_id, asyncio.Lock())

    @staticmethod
    def _config(consultation_id: str, **options: float) -> RunnableConfig:
        return {"configurable": {"thread_id": consultation_id, **options}}
