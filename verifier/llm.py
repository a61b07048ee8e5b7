"""The ``ChatClient`` protocol and its OpenAI-compatible implementation.

Every model call in the project goes through a ``ChatClient``: the local transformers model
(``policy.local.LocalChatClient``), a vLLM server, a llama.cpp server or OpenAI itself
(``OpenAIChatClient`` on the openai SDK).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

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
        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                max_tokens=max_tokens,
                temperature=temperature,
                stop=stop or None,
                seed=seed,
                stream=True,
            )
        except openai.APIStatusError as exc:
            raise LLMError(f"{self.base_url}: HTTP {exc.status_code}: {_message(exc)}") from exc
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise LLMError(f"{self.base_url}: cannot reach the server: {exc}") from exc
        async for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content

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
