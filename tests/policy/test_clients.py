"""The process's client cache: one client per spec, released on demand (a long run evaluating one model
after another must not keep every model's weights and caches)."""

from __future__ import annotations

import asyncio

import policy.clients
from policy.clients import ClientSpec, build_client, register_client, release_clients
from verifier.llm import Completion


class Closable:
    model = "closable"

    def __init__(self) -> None:
        self.closed = False

    async def complete(self, messages, **_: object) -> Completion:  # noqa: ANN001
        return Completion(text="ok")

    async def aclose(self) -> None:
        self.closed = True


def test_release_closes_and_forgets_every_built_client(monkeypatch) -> None:
    monkeypatch.setattr(policy.clients, "_clients", {})  # not the clients other tests share
    spec = ClientSpec(model="http-model", base_url="http://127.0.0.1:9/v1")
    first = Closable()
    register_client(spec, first)
    assert build_client(spec) is first  # the same spec gets the same client
    assert asyncio.run(release_clients()) == 1
    assert first.closed
    again = build_client(spec)  # built anew, not the closed one
    assert again is not first
    asyncio.run(release_clients())
