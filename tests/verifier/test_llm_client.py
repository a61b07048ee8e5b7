"""OpenAIChatClient against a real HTTP server on 127.0.0.1 speaking the OpenAI chat protocol."""

from __future__ import annotations

import pytest

from tests.openai_server import OpenAICompatibleServer, Reply
from verifier.llm import ChatClient, LLMError, OpenAIChatClient
from verifier.types import Message

HELLO = [Message(role="system", content="be brief"), Message(role="user", content="hello")]


async def test_completion_and_request_shape():
    with OpenAICompatibleServer(script=[Reply("hi there")]) as server:
        client = OpenAIChatClient(server.base_url, "test-model", api_key="k", backoff_s=0.01)
        assert isinstance(client, ChatClient)
        result = await client.complete(HELLO, max_tokens=7, temperature=0.3, stop=["\n"], seed=5)
        await client.aclose()
    assert result.text == "hi there"
    assert result.finish_reason == "stop"
    assert result.usage.completion_tokens == 2
    sent = server.requests[0]
    assert sent["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
    assert (sent["max_tokens"], sent["temperature"], sent["stop"], sent["seed"]) == (7, 0.3, ["\n"], 5)


async def test_retries_5xx_then_succeeds():
    script = [Reply(status=500), Reply(status=503), Reply("recovered")]
    with OpenAICompatibleServer(script=script) as server:
        client = OpenAIChatClient(server.base_url, "test-model", max_retries=3, backoff_s=0.01)
        result = await client.complete(HELLO)
    assert result.text == "recovered"
    assert len(server.requests) == 3


async def test_gives_up_after_the_bound():
    with OpenAICompatibleServer(script=[Reply(status=502)] * 10) as server:
        client = OpenAIChatClient(server.base_url, "test-model", max_retries=2, backoff_s=0.01)
        with pytest.raises(LLMError, match="gave up after 3 attempts"):
            await client.complete(HELLO)
    assert len(server.requests) == 3


async def test_4xx_fails_at_once_with_the_server_message():
    with OpenAICompatibleServer(script=[Reply(status=400, error="model 'x' does not exist")]) as server:
        client = OpenAIChatClient(server.base_url, "x", max_retries=3, backoff_s=0.01)
        with pytest.raises(LLMError, match="HTTP 400.*does not exist"):
            await client.complete(HELLO)
    assert len(server.requests) == 1


async def test_unreachable_server_is_a_clear_error():
    client = OpenAIChatClient("http://127.0.0.1:9/v1", "m", max_retries=1, backoff_s=0.01, timeout_s=2)
    with pytest.raises(LLMError, match="gave up after 2 attempts"):
        await client.complete(HELLO)


async def test_streaming():
    with OpenAICompatibleServer(script=[Reply("one two three")]) as server:
        client = OpenAIChatClient(server.base_url, "test-model")
        pieces = [p async for p in client.stream(HELLO)]
    assert "".join(pieces).split() == ["one", "two", "three"]
    assert server.requests[0]["stream"] is True
