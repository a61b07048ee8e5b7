"""Real uvicorn servers on 127.0.0.1 (in a thread, or a subprocess where a test kills it)."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from serving.app import create_app
from serving.settings import Settings
from verifier.llm import Completion, Usage

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
    """A ChatClient for orchestration tests: answers after ``delay_s`` or when ``release`` is set."""

    model = "scripted"

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.calls = 0

    async def complete(self, messages, *, max_tokens=256, temperature=0.0, stop=None, seed=None) -> Completion:
        self.calls += 1
        await asyncio.sleep(self.delay_s)
        text = f"scripted reply to: {messages[-1].content}"
        return Completion(text=text, usage=Usage(prompt_tokens=3, completion_tokens=5))


@pytest.fixture(scope="module")
def live(local_client, tmp_path_factory) -> Iterator[Server]:
    """The app on the real embedded model (the session's shared LocalChatClient)."""
    settings = make_settings(tmp_path_factory.mktemp("live"), default_max_tokens=12)
    with run_server(create_app(settings, client=local_client)) as server:
        yield server
