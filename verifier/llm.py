"""The ``ChatClient`` protocol, the capabilities a client may have beyond it, and the OpenAI client.

Every model call in the project goes through a ``ChatClient``: the local transformers model
(``policy.engine.client.LocalChatClient``), a vLLM server, a llama.cpp server or OpenAI itself
(``OpenAIChatClient`` on the openai SDK). ``complete()`` is all a caller may assume; what some clients
can do besides is a protocol of its own, checked with ``isinstance``:

* ``StreamingClient`` — ``stream()``: text pieces as they are generated;
* ``StreamingChatClient`` — ``stream_completion()``: the pieces, then the request's own ``Completion``
  (its ``finish_reason`` and usage), what a streamed OpenAI-compatible reply needs;
* ``ClosableClient`` — ``aclose()``: stop a decoding thread or close connections;
* ``QueueingClient`` — ``queue_depth``: requests waiting in the client's own batch queue;
* ``TokenCountingClient`` — ``generated_tokens``: the client's own count of tokens generated;
* ``TokenizingClient`` — a local model's tokenizer and chat template (``loaded.tokenizer``,
  ``render_prompt``), to count a streamed reply's tokens when the stream does not report them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, Protocol, runtime_checkable

import openai
from pydantic import BaseModel, Field

from verifier.types import Message

logger = logging.getLogger(__name__)


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class Completion(BaseModel):
    text: str
    tokens: list[int] = Field(default_factory=list)  # completion token ids, when the backend knows them
    finish_reason: str = "stop"  # "stop" | "length"
    logprobs: list[float] | None = None  # per completion token, under the untempered model, when known
    # the untempered model's next-token entropy (nats) where the completion starts, when the backend knows it
    first_entropy: float | None = None
    usage: Usage = Field(default_factory=Usage)


class LLMError(RuntimeError):
    """A model call failed for good (after the bounded retries, or at once for a 4xx)."""


@runtime_checkable
class ChatClient(Protocol):
    model: str

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion: ...


@runtime_checkable
class StreamingClient(Protocol):
    """A client that streams: ``stream()`` yields the reply's text pieces as they are generated."""

    def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str]: ...


@runtime_checkable
class StreamingChatClient(ChatClient, Protocol):
    """A ``ChatClient`` that also streams a completion exactly.

    ``stream_completion`` yields the reply's text pieces (their concatenation is the completion's
    text), then one last item: the request's ``Completion``, with its ``finish_reason`` and usage.
    A failure raises from the iterator.
    """

    def stream_completion(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str | Completion]: ...


@runtime_checkable
class ClosableClient(Protocol):
    """A client holding resources (a decoding thread, connections) that ``aclose()`` releases."""

    async def aclose(self) -> None: ...


@runtime_checkable
class QueueingClient(Protocol):
    """A client with its own batch queue (``LocalChatClient``)."""

    @property
    def queue_depth(self) -> int:
        """Requests waiting for a slot in the running batch."""
        ...


@runtime_checkable
class TokenCountingClient(Protocol):
    """A client that counts the tokens it generates itself (``LocalChatClient``)."""

    @property
    def generated_tokens(self) -> int: ...


class Tokenizer(Protocol):
    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]: ...


class HasTokenizer(Protocol):
    @property
    def tokenizer(self) -> Tokenizer: ...


@runtime_checkable
class TokenizingClient(Protocol):
    """A local model's client: its tokenizer (``loaded.tokenizer``) and its chat template."""

    @property
    def loaded(self) -> HasTokenizer: ...

    def render_prompt(self, messages: list[Message]) -> list[int]: ...


class OpenAIChatClient:
    """Any OpenAI-compatible chat server (vLLM ``vllm serve``, llama.cpp ``llama-server``, OpenAI).

    Retries transient failures (connection errors, timeouts, 429 and 5xx) at most ``max_retries``
    times with exponential backoff; a 4xx other than 429 fails at once with the server's message.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        # The SDK's own retries are disabled so the bound and the backoff are ours and testable.
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or "EMPTY", timeout=timeout_s, max_retries=0
        )

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        payload = [{"role": m.role, "content": m.content} for m in messages]
        last_error: Exception | None = None
        for attempt in range(self.max_retries + 1):
            try:
                response = await self._client.chat.completions.create(
                    model=self.model,
                    messages=payload,  # type: ignore[arg-type]
                    max_tokens=max_tokens,
                    temperature=temperature,
                    stop=stop or None,
                    seed=seed,
                )
            except openai.APIStatusError as exc:
                if exc.status_code != 429 and exc.status_code < 500:
                    raise LLMError(
                        f"{self.base_url}: HTTP {exc.status_code} for model {self.model!r}: {_message(exc)}"
                    ) from exc
                last_error = exc
            except (openai.APIConnectionError, openai.APITimeoutError) as exc:
                last_error = exc
            else:
                if not response.choices:
                    raise LLMError(f"{self.base_url}: the server returned no choices")
                choice = response.choices[0]
                usage = response.usage
                return Completion(
                    text=choice.message.content or "",
                    finish_reason=choice.finish_reason or "stop",
                    usage=Usage(
                        prompt_tokens=usage.prompt_tokens if usage else 0,
                        completion_tokens=usage.completion_tokens if usage else 0,
                    ),
                )
            if attempt < self.max_retries:
                delay = self.backoff_s * 2**attempt
                logger.warning(
                    "%s: attempt %d/%d failed (%s); retrying in %.1fs",
                    self.base_url, attempt + 1, self.max_retries + 1, last_error, delay,
                )
                await asyncio.sleep(delay)
        raise LLMError(
            f"{self.base_url}: gave up after {self.max_retries + 1} attempts: {last_error}"
        ) from last_error

    async def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str]:
        """Yield text pieces as the server streams them (no retries once streaming started)."""
        response = await self._open_stream(messages, max_tokens, temperature, stop, seed)
        async for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content

    async def stream_completion(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Text pieces as the server streams them, then the ``Completion`` with the finish reason and
        usage the server sends in its last chunks (``stream_options.include_usage``; no retries once
        streaming started)."""
        response = await self._open_stream(messages, max_tokens, temperature, stop, seed,
                                           stream_options={"include_usage": True})
        parts: list[str] = []
        finish_reason = "stop"
        usage = Usage()
        async for chunk in response:
            if chunk.usage is not None:
                usage = Usage(prompt_tokens=chunk.usage.prompt_tokens, completion_tokens=chunk.usage.completion_tokens)
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            if choice.delta.content:
                parts.append(choice.delta.content)
                yield choice.delta.content
            if choice.finish_reason:
                finish_reason = choice.finish_reason
        yield Completion(text="".join(parts), finish_reason=finish_reason, usage=usage)

    async def _open_stream(
        self, messages: list[Message], max_tokens: int, temperature: float, stop: list[str] | None,
        seed: int | None, **extra: Any,
    ) -> Any:
        """The server's streamed response, or an ``LLMError`` saying why it could not be opened."""
        try:
            return await self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                max_tokens=max_tokens,
                temperature=temperature,
                stop=stop or None,
                seed=seed,
                stream=True,
                **extra,
            )
        except openai.APIStatusError as exc:
            raise LLMError(f"{self.base_url}: HTTP {exc.status_code}: {_message(exc)}") from exc
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise LLMError(f"{self.base_url}: cannot reach the server: {exc}") from exc

    async def aclose(self) -> None:
        await self._client.close()


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and "message" in error:
            return str(error["message"])
        if "detail" in body:
            return str(body["detail"])
    return exc.message
