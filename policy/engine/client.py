"""``LocalChatClient``: a transformers model behind the ``ChatClient`` protocol, with continuous batching.

Concurrent ``complete()`` / ``stream()`` / ``stream_completion()`` calls from any number of coroutines
(and event loops) share one engine (``policy.engine.engine``): a request that arrives while others
are decoding joins the running batch at the next token and leaves as soon as it is finished; prompts
that start like a cached prefix prefill only the rest. ``batch_wait_ms`` is how long an idle engine
waits for stragglers before starting a new batch. Each row keeps its own temperature, seed, token
limit and stop strings, so a request's output does not depend on its batch-mates (up to float32 batch
variance, see ``tests/policy/test_local_client.py``).

Everything about the hardware and the model is decided here, once: the device and dtype (the model is
moved there if it is elsewhere), prepacked weights (CPU float32 only), whether the cache splices and
whether ragged passes serve the model (``ModelTraits``). What the engine has done is in ``stats``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import torch

from policy.engine.api import ClientClosedError
from policy.engine.device import dtype_name, resolve_device, resolve_dtype
from policy.engine.engine import Engine, model_lock
from policy.engine.packed import PackedLinears, packed_linears, packing_supported
from policy.engine.passes import ForwardPasses, ModelTraits
from policy.engine.prefix import PrefixCache
from policy.engine.request import Request, Sampling
from policy.engine.stats import EngineStats
from policy.engine.text import Detokenizer, eos_ids
from policy.model import LoadedModel, load_model
from verifier.llm import Completion
from verifier.types import Message

__all__ = ["ClientClosedError", "LocalChatClient"]

logger = logging.getLogger(__name__)


class LocalChatClient:
    """Continuously batched generation on a local transformers model (CPU or GPU).

    ``device`` / ``dtype``: ``None`` keeps the model where it is; otherwise see ``policy.engine.device``
    (``"cpu"``, ``"cuda"``, ``"auto"``; ``"float32"``, ``"bfloat16"``, ``"float16"``, ``"auto"``). A model
    elsewhere is moved in place: build every client of one model for the same device.
    ``pack_weights``: oneDNN-prepacked linear weights, CPU float32 only (``None``: when they fit).
    ``fuse_prefills``: ragged passes where the model supports them (checked here, once).
    """

    def __init__(
        self,
        loaded: LoadedModel,
        *,
        max_batch_size: int = 8,
        batch_wait_ms: float = 5.0,
        top_p: float = 1.0,
        system_prompt: str | None = None,
        prefix_cache_mb: float = 1024.0,
        pack_weights: bool | None = None,
        fuse_prefills: bool = True,
        device: str | torch.device | None = None,
        dtype: str | torch.dtype | None = None,
    ) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size}")
        if prefix_cache_mb < 0:
            raise ValueError(f"prefix_cache_mb must be >= 0 (0 disables prefix caching), got {prefix_cache_mb}")
        self.loaded = loaded
        self.model = loaded.name
        self.max_batch_size = max_batch_size
        self.batch_wait_ms = batch_wait_ms
        self.top_p = top_p
        self.system_prompt = system_prompt
        model = loaded.model
        with model_lock(model):
            self.device, self.dtype = _place(model, device, dtype)
            self.traits = ModelTraits.learn(model, want_ragged=fuse_prefills)
        self.packed = _packing(model, pack_weights)
        tokenizer = loaded.tokenizer
        self._tokenizer = tokenizer
        self._max_positions = getattr(model.config, "max_position_embeddings", 2048)
        self._seed_rng = random.Random(0)
        self.stats = EngineStats()
        self.prefix_cache = PrefixCache(int(prefix_cache_mb * 2**20))
        pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self._engine = Engine(
            ForwardPasses(model, self.traits, self.packed, pad_id, self.stats),
            Detokenizer(tokenizer, eos_ids(tokenizer, model)),
            self.prefix_cache,
            max_batch_size=max_batch_size,
            batch_wait_ms=batch_wait_ms,
            top_p=top_p,
        )

    @classmethod
    def from_spec(
        cls, spec: str = "embedded", *, device: str | torch.device | None = None, dtype: str | torch.dtype | None = None,
        **kwargs: Any,
    ) -> LocalChatClient:
        """Load ``spec`` (``embedded`` or a checkpoint folder) on ``device`` in ``dtype`` (default: CPU
        float32) and serve it; ``kwargs`` go to the constructor."""
        return cls(load_model(spec, device=device, dtype=dtype), **kwargs)

    # ------------------------------------------------------------------ what the client is
    @property
    def fuses_prefills(self) -> bool:
        """Whether prompts continuing a cached prefix ride along decoding steps (decided at construction)."""
        return self.traits.ragged

    @property
    def queue_depth(self) -> int:
        """Requests waiting for a slot in the running batch."""
        return len(self._engine.inbox)

    @property
    def generated_tokens(self) -> int:
        """Tokens generated so far (``verifier.llm.TokenCountingClient``, read by ``/metrics``)."""
        return self.stats.generated_tokens

    def render_prompt(self, messages: list[Message]) -> list[int]:
        chat = [{"role": m.role, "content": m.content} for m in messages]
        if self.system_prompt and (not chat or chat[0]["role"] != "system"):
            chat.insert(0, {"role": "system", "content": self.system_prompt})
        ids = self._tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)

    # ------------------------------------------------------------------ generation
    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        request = self._request(messages, max_tokens, temperature, stop, seed, on_text=None)
        self._engine.submit(request)
        return await request.future

    async def stream_completion(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str | Completion]:
        """Text pieces as they are decoded, then the request's own ``Completion`` (``StreamingChatClient``).

        The pieces add up to the completion's text; its ``finish_reason`` and usage are the engine's,
        not re-encoded. Leaving the iteration early cancels the request (its row leaves the batch).
        """
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def on_text(piece: str) -> None:
            loop.call_soon_threadsafe(pieces.put_nowait, piece)

        request = self._request(messages, max_tokens, temperature, stop, seed, on_text=on_text)
        # Pieces and the result come back through call_soon_threadsafe in order: the None comes last.
        request.future.add_done_callback(lambda _: pieces.put_nowait(None))
        self._engine.submit(request)
        try:
            while (piece := await pieces.get()) is not None:
                if piece:
                    yield piece
            yield request.future.result()  # or re-raise a generation error
        finally:
            request.future.cancel()  # a no-op once it is done

    async def stream(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> AsyncIterator[str]:
        """Yield text pieces as they are decoded; the request still shares batches with others."""
        items = self.stream_completion(messages, max_tokens=max_tokens, temperature=temperature, stop=stop, seed=seed)
        try:
            async for item in items:
                if isinstance(item, str):
                    yield item
        finally:
            await items.aclose()

    async def aclose(self) -> None:
        """Stop the decoding thread; requests still waiting or decoding fail with ``ClientClosedError``.
        The client can be used again: the next request starts a new thread."""
        thread = self._engine.close()
        if thread is not None:
            await asyncio.to_thread(thread.join)
        self._engine.reopen()

    def _request(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
        seed: int | None,
        on_text: Callable[[str], None] | None,
    ) -> Request:
        Sampling.check(max_tokens, temperature)
        if not messages:
            raise ValueError("messages must not be empty")
        prompt_ids = self.render_prompt(messages)
        if len(prompt_ids) + max_tokens > self._max_positions:
            raise ValueError(
                f"prompt of {len(prompt_ids)} tokens plus max_tokens={max_tokens} exceeds the model's "
                f"context of {self._max_positions} tokens"
            )
        sampling = Sampling(
            max_tokens=max_tokens,
            temperature=temperature,
            stop=tuple(s for s in (stop or []) if s),
            seed=seed if seed is not None else self._seed_rng.randrange(2**31),
        )
        loop = asyncio.get_running_loop()
        return Request(prompt_ids, sampling, future=loop.create_future(), loop=loop, on_text=on_text)


def _place(model: torch.nn.Module, device: str | torch.device | None, dtype: str | torch.dtype | None) -> tuple[torch.device, torch.dtype]:
    """Move ``model`` to ``device`` / ``dtype`` where they are given and differ; where it runs now."""
    weight = next(model.parameters())
    target = resolve_device(device) if device is not None else weight.device
    precision = resolve_dtype(dtype, target) if dtype is not None else weight.dtype
    if (target.type, target.index or 0) != (weight.device.type, weight.device.index or 0) or precision != weight.dtype:
        logger.info("moving %s to %s, %s", type(model).__name__, target, dtype_name(precision))
        model.to(device=target, dtype=precision)
    weight = next(model.parameters())
    return weight.device, weight.dtype


def _packing(model: torch.nn.Module, pack_weights: bool | None) -> PackedLinears | None:
    """Prepacked weights for this client: CPU float32 models only, decided here for good."""
    if pack_weights is False:
        return None
    if not packing_supported(model):
        if pack_weights:
            logger.warning("weight packing needs float32 weights on a CPU and torch with oneDNN; not packing")
        return None
    return packed_linears(model, pack_weights)
