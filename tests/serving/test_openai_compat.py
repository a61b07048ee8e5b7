"""OpenAI compatibility of ``/v1/chat/completions`` through the real openai SDK and a real server:
``finish_reason`` (``length`` when ``max_tokens`` cut the reply, ``stop`` otherwise) streamed and not,
and ``stream_options.include_usage`` (an extra last chunk with empty ``choices`` and the usage)."""

from __future__ import annotations

import openai
import pytest

from serving.app import create_app
from tests.openai_server import OpenAICompatibleServer, Reply
from tests.serving.conftest import KEY_A, ScriptedClient, make_settings, run_server

REPLY = "one two three four five six"
MESSAGES = [{"role": "user", "content": "count to six"}]


def _check_protocol(sdk: openai.OpenAI, model: str) -> None:
    for max_tokens, reason, words in ((3, "length", 3), (50, "stop", 6)):
        plain = sdk.chat.completions.create(model=model, messages=MESSAGES, max_tokens=max_tokens)
        assert plain.choices[0].finish_reason == reason
        assert plain.choices[0].message.content.split() == REPLY.split()[:words]
        assert plain.usage.completion_tokens == words
        assert plain.usage.total_tokens == plain.usage.prompt_tokens + words

        chunks = list(sdk.chat.completions.create(model=model, messages=MESSAGES, max_tokens=max_tokens,
                                                  stream=True, stream_options={"include_usage": True}))
        *choice_chunks, last = chunks
        assert last.choices == [] and last.usage is not None  # OpenAI's usage chunk
        assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (
            plain.usage.prompt_tokens, plain.usage.completion_tokens, plain.usage.total_tokens)
        assert all(c.choices and c.usage is None for c in choice_chunks)
        assert [c.choices[0].finish_reason for c in choice_chunks] == [None] * (len(choice_chunks) - 1) + [reason]
        streamed = "".join(c.choices[0].delta.content or "" for c in choice_chunks)
        assert streamed.split() == plain.choices[0].message.content.split()

    chunks = list(sdk.chat.completions.create(model=model, messages=MESSAGES, max_completion_tokens=2, stream=True))
    assert all(c.choices and c.usage is None for c in chunks)  # no usage chunk unless asked for
    assert chunks[-1].choices[0].finish_reason == "length"


def test_finish_reason_and_usage_streamed_and_not(tmp_path) -> None:
    client = ScriptedClient(reply=lambda messages: REPLY)
    with run_server(create_app(make_settings(tmp_path), client=client)) as server:
        _check_protocol(openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY_A, max_retries=0), "scripted")


def test_finish_reason_and_usage_pass_through_from_an_upstream_server(tmp_path) -> None:
    """A policy behind an OpenAI-compatible server (vLLM): its finish reason and usage reach the caller."""
    with OpenAICompatibleServer(responder=lambda messages: REPLY) as upstream:
        settings = make_settings(tmp_path, model=upstream.model, base_url=upstream.base_url)
        with run_server(create_app(settings)) as server:
            _check_protocol(openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY_A, max_retries=0), upstream.model)
        streamed = [r for r in upstream.requests if r.get("stream")]
        assert streamed and all(r["stream_options"] == {"include_usage": True} for r in streamed)


def test_an_upstream_failure_mid_protocol_is_an_error_not_a_stop(tmp_path) -> None:
    with OpenAICompatibleServer(script=[Reply(status=400, error="context too long")]) as upstream:
        settings = make_settings(tmp_path, model=upstream.model, base_url=upstream.base_url)
        with run_server(create_app(settings)) as server:
            sdk = openai.OpenAI(base_url=f"{server.url}/v1", api_key=KEY_A, max_retries=0)
            with pytest.raises(openai.APIError, match="context too long"):
                list(sdk.chat.completions.create(model=upstream.model, messages=MESSAGES, stream=True))
