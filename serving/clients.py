"""Building ``ChatClient``s from command-line or settings values (the composition root's helper)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import openai

from verifier.llm import ChatClient, Completion, LLMError, OpenAIChatClient, Usage
from verifier.types import Message

if TYPE_CHECKING:
    from serving.settings import ModelSpec, Settings

_local_cache: dict[tuple[str, int], ChatClient] = {}


class UpstreamChatClient(OpenAIChatClient):
    """``OpenAIChatClient`` whose stream also reports the reply's finish reason and usage.

    The served chat endpoint needs both for a streamed reply (``finish_reason: length``, OpenAI's
    ``stream_options.include_usage``); the upstream server sends them in its last chunks.
    """

    async def stream_completion(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Text pieces as the server streams them, then the ``Completion`` (no retries once streaming)."""
        try:
            response = await self._client.chat.completions.create(
                model=self.model,
                messages=[{"role": m.role, "content": m.content} for m in messages],  # type: ignore[misc]
                max_tokens=max_tokens,
                temperature=temperature,
                stop=stop or None,
                seed=seed,
                stream=True,
                stream_options={"include_usage": True},
            )
        except openai.APIStatusError as exc:
            raise LLMError(f"{self.base_url}: HTTP {exc.status_code}: {exc.message}") from exc
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise LLMError(f"{self.base_url}: cannot reach the server: {exc}") from exc
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


def build_client(
    model: str = "embedded",
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    max_batch_size: int = 8,
    timeout_s: float = 120.0,
) -> ChatClient:
    """``--base-url URL --model NAME`` → an OpenAI-compatible server; otherwise a local model.

    ``model`` is ``embedded`` or the folder of a Hugging Face checkpoint. Local clients are cached per
    process so that a doctor, a patient and a judge on the same model share one copy and one batch queue.
    """
    if base_url:
        return UpstreamChatClient(
            base_url,
            model,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or os.environ.get("MEDVERIFIER_API_KEY"),
            timeout_s=timeout_s,
        )
    key = (model, max_batch_size)
    if key not in _local_cache:
        from policy.local import LocalChatClient

        _local_cache[key] = LocalChatClient.from_spec(model, max_batch_size=max_batch_size)
    return _local_cache[key]


def build_model_client(spec: ModelSpec, settings: Settings) -> ChatClient:
    """The judge's or the rubric model's client: its own server, or a local model (shared with the
    served policy when it is the same model)."""
    return build_client(spec.model, base_url=spec.base_url, api_key=spec.api_key,
                        max_batch_size=settings.max_batch_size, timeout_s=settings.request_timeout_s)
