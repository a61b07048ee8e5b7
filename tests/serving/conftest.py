"""Real uvicorn servers on 127.0.0.1 (in a thread, or a subprocess where a test kills it)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from serving.app import create_app
from serving.settings import Settings
from verifier.llm import Completion, Usage
from verifier.types import Message

KEY_A = "test-key-alpha"
KEY_B = "test-key-bravo"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    app: object

    def client(self, key: str | None = KEY_A, timeout: float = 120.0) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)


@contextmanager
def run_server(app: object) -> Iterator[Server]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield Server(url=f"http://127.0.0.1:{port}", app=app)
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def make_settings(tmp: Path, **overrides: object) -> Settings:
    return Settings(api_keys=[KEY_A, KEY_B], db_path=tmp / "consultations.sqlite", **overrides)


class ScriptedClient:
    """A ChatClient for orchestration and protocol tests: answers after ``delay_s``.

    The reply is ``reply(messages)`` (by default an echo of the last message); a "token" is a word, so
    ``max_tokens`` cuts the reply after that many words with ``finish_reason="length"``. It streams
    through ``stream_completion`` (word by word, then its ``Completion``), the way a client that knows
    its finish reason while streaming does.
    """

    def __init__(self, delay_s: float = 0.0, reply: Callable[[list[Message]], str] | None = None,
                 model: str = "scripted") -> None:
        self.delay_s = delay_s
        self.reply = reply or (lambda messages: f"scripted reply to: {messages[-1].content}")
        self.model = model
        self.calls = 0
        self.in_flight = 0
        self.most_in_flight = 0

    def _completion(self, messages: list[Message], max_tokens: int) -> Completion:
        words = self.reply(messages).split(" ")
        kept = words[:max_tokens]
        prompt_tokens = sum(len(m.content.split()) for m in messages)
        return Completion(text=" ".join(kept), finish_reason="length" if len(words) > max_tokens else "stop",
                          usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(kept)))

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
        finally:
            self.in_flight -= 1
        return self._completion(messages, max_tokens)

    async def stream_completion(self, messages, *, max_tokens=256, temperature=0.0, stop=None,
                                seed=None) -> AsyncIterator[str | Completion]:
        self.calls += 1
        await asyncio.sleep(self.delay_s)
        completion = self._completion(messages, max_tokens)
        for index, word in enumerate(completion.text.split(" ")):
            yield word if index == 0 else f" {word}"
        yield completion


@pytest.fixture(scope="module")
def live(local_client, tmp_path_factory) -> Iterator[Server]:
    """The app on the real embedded model (the session's shared LocalChatClient)."""
    settings = make_settings(tmp_path_factory.mktemp("live"), default_max_tokens=12)
    with run_server(create_app(settings, client=local_client)) as server:
        yield server
