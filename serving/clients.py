"""Building ``ChatClient``s from command-line or settings values (the composition root's helper)."""

from __future__ import annotations

import os

from verifier.llm import ChatClient, OpenAIChatClient

_local_cache: dict[tuple[str, int], ChatClient] = {}


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
        return OpenAIChatClient(
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
