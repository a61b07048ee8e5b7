"""``LocalChatClient``: a transformers model behind the ``ChatClient`` protocol, with request batching.

Concurrent ``complete()`` / ``stream()`` calls from many coroutines are put on one queue; a single
worker takes up to ``max_batch_size`` of them (waiting ``batch_wait_ms`` for stragglers), left-pads
them into one batch and decodes them together with a KV cache. Each row keeps its own temperature,
seed, token limit and stop strings, so a request's output does not depend on its batch-mates (up to
float32 batch variance, see ``tests/policy/test_local.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import random
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import torch

from policy.model import LoadedModel
from verifier.llm import Completion, Usage
from verifier.types import Message

logger = logging.getLogger(__name__)


@dataclass
class _Request:
    prompt_ids: list[int]
    max_tokens: int
    temperature: float
    stop: list[str]
    seed: int
    future: asyncio.Future[Completion]
    loop: asyncio.AbstractEventLoop
    on_text: Callable[[str], None] | None = None  # streaming callback, called from the worker thread
    generated: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    text: str = ""
    emitted: int = 0
    finish_reason: str | None = None


class LocalChatClient:
    """Batched generation on a local transformers model (CPU or GPU)."""

    def __init__(
        self,
        loaded: LoadedModel,
        *,
        max_batch_size: int = 8,
        batch_wait_ms: float = 5.0,
        top_p: float = 1.0,
        system_prompt: str | None = None,
    ) -> None:
        if max_batch_size < 1:
            raise ValueError(f"max_batch_size must be >= 1, got {max_batch_size}")
        self.loaded = loaded
        self.model = loaded.name
        self.max_batch_size = max_batch_size
        self.batch_wait_ms = batch_wait_ms
        self.top_p = top_p
        self.system_prompt = system_prompt
        tokenizer = loaded.tokenizer
        self._tokenizer = tokenizer
        eos = {tokenizer.eos_token_id}
        gen_eos = getattr(loaded.model.generation_config, "eos_token_id", None)
        eos.update(gen_eos if isinstance(gen_eos, list) else [gen_eos])
        im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
        if isinstance(im_end, int) and im_end != tokenizer.unk_token_id:
            eos.add(im_end)
        self._eos_ids = {i for i in eos if i is not None}
        self._max_positions = getattr(loaded.model.config, "max_position_embeddings", 2048)
        self._queue: asyncio.Queue[_Request] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._seed_rng = random.Random(0)
        self._lock = threading.Lock()  # one batch at a time even if callers share the model elsewhere
        # Counters for tests, /metrics and benchmarks.
        self.forward_passes = 0
        self.batches = 0
        self.batch_sizes: list[int] = []
        self.generated_tokens = 0

    # ------------------------------------------------------------------ public API
    @classmethod
    def from_spec(cls, spec: str = "embedded", **kwargs: object) -> LocalChatClient:
        from policy.model import load_model

        return cls(load_model(spec), **kwargs)  # type: ignore[arg-type]

    def render_prompt(self, messages: list[Message]) -> list[int]:
        chat = [{"role": m.role, "content": m.content} for m in messages]
        if self.system_prompt and (not chat or chat[0]["role"] != "system"):
            chat.insert(0, {"role": "system", "content": self.system_prompt})
        ids = self._tokenizer.apply_chat_template(chat, add_generation_prompt=True, tokenize=True)
        if isinstance(ids, dict) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return list(ids)

    @property
    def queue_depth(self) -> int:
        return self._queue.qsize() if self._queue is not None else 0

    async def complete(
        self,
        messages: list[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: list[str] | None = None,
        seed: int | None = None,
    ) -> Completion:
        request = self._make_request(messages, max_tokens, temperature, stop, seed, on_text=None)
        await self._submit(request)
        return await request.future

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
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def on_text(piece: str) -> None:
            loop.call_soon_threadsafe(pieces.put_nowait, piece)

        request = self._make_request(messages, max_tokens, temperature, stop, seed, on_text=on_text)
        request.future.add_done_callback(lambda _: pieces.put_nowait(None))
        await self._submit(request)
        while (piece := await pieces.get()) is not None:
            if piece:
                yield piece
        request.future.result()  # re-raise a generation error

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                await self._worker
            self._worker = None
            self._queue = None

    # ------------------------------------------------------------------ queueing
    def _make_request(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        stop: list[str] | None,
        seed: int | None,
        on_text: Callable[[str], None] | None,
    ) -> _Request:
        if max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        if not messages:
            raise ValueError("messages must not be empty")
        prompt_ids = self.render_prompt(messages)
        if len(prompt_ids) + max_tokens > self._max_positions:
            raise ValueError(
                f"prompt of {len(prompt_ids)} tokens plus max_tokens={max_tokens} exceeds the model's "
                f"context of {self._max_positions} tokens"
            )
        loop = asyncio.get_running_loop()
        return _Request(
            prompt_ids=prompt_ids,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=[s for s in (stop or []) if s],
            seed=seed if seed is not None else self._seed_rng.randrange(2**31),
            future=loop.create_future(),
            loop=loop,
            on_text=on_text,
        )

    async def _submit(self, request: _Request) -> None:
        loop = asyncio.get_running_loop()
        if self._queue is None or self._worker is None or self._worker.get_loop() is not loop:
            self._queue = asyncio.Queue()
            self._worker = loop.create_task(self._run_worker(self._queue), name="LocalChatClient-worker")
        await self._queue.put(request)

    async def _run_worker(self, queue: asyncio.Queue[_Request]) -> None:
        while True:
            batch = [await queue.get()]
            deadline = asyncio.get_running_loop().time() + self.batch_wait_ms / 1000
            while len(batch) < self.max_batch_size:
                timeout = deadline - asyncio.get_running_loop().time()
                try:
                    batch.append(queue.get_nowait() if timeout <= 0 else await asyncio.wait_for(queue.get(), timeout))
                except (TimeoutError, asyncio.QueueEmpty):
                    break
            batch = [r for r in batch if not r.future.cancelled()]
            if not batch:
                continue
            try:
                await asyncio.to_thread(self._generate_batch, batch)
            except Exception as exc:  # a failed batch fails its requests, not the worker
                logger.exception("generation failed for a batch of %d", len(batch))
                for request in batch:
                    if not request.future.done():
                        request.future.set_exception(exc)
                continue
            for request in batch:
                if request.future.done():
                    continue
                request.future.set_result(
                    Completion(
                        text=request.text,
                        tokens=request.generated,
                        finish_reason=request.finish_reason or "length",
                        logprobs=request.logprobs,
                        usage=Usage(
                            prompt_tokens=len(request.prompt_ids), completion_tokens=len(request.generated)
                        ),
                    )
                )

    # ------------------------------------------------------------------ decoding
    @torch.inference_mode()
    def _generate_batch(self, batch: list[_Request]) -> None:
        with self._lock:
            self._decode(batch)

    def _decode(self, batch: list[_Request]) -> None:
        model = self.loaded.model
        device = next(model.parameters()).device
        pad_id = self._tokenizer.pad_token_id
        width = max(len(r.prompt_ids) for r in batch)
        input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        attention = torch.zeros((len(batch), width), dtype=torch.long)
        for row, request in enumerate(batch):
            n = len(request.prompt_ids)
            input_ids[row, width - n :] = torch.tensor(request.prompt_ids)
            attention[row, width - n :] = 1
        input_ids, attention = input_ids.to(device), attention.to(device)
        generators = [torch.Generator().manual_seed(r.seed) for r in batch]
        active = [True] * len(batch)
        steps = max(r.max_tokens for r in batch)
        past = None
        # transformers 5.x renamed ``past_key_values`` to ``cache``; support both.
        cache_arg = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
        step_ids = input_ids
        self.batches += 1
        self.batch_sizes.append(len(batch))
        for _ in range(steps):
            positions = (attention.cumsum(-1) - 1).clamp(min=0)[:, -step_ids.shape[1] :]
            out = model(
                input_ids=step_ids,
                attention_mask=attention,
                position_ids=positions,
                use_cache=True,
                **{cache_arg: past},
            )
            self.forward_passes += 1
            past = getattr(out, cache_arg)
            logits = out.logits[:, -1, :].float().cpu()
            logprobs = torch.log_softmax(logits, dim=-1)
            next_ids = torch.full((len(batch),), pad_id, dtype=torch.long)
            for row, request in enumerate(batch):
                if not active[row]:
                    continue
                token = self._sample(logits[row], request.temperature, generators[row])
                next_ids[row] = token
                request.generated.append(token)
                request.logprobs.append(float(logprobs[row, token]))
                self.generated_tokens += 1
                self._after_token(request, token)
                if request.finish_reason is not None:
                    active[row] = False
            if not any(active):
                break
            step_ids = next_ids.unsqueeze(1).to(device)
            attention = torch.cat(
                [attention, torch.tensor(active, dtype=torch.long, device=device).unsqueeze(1)], dim=1
            )
        for request in batch:
            if request.finish_reason is None:
                request.finish_reason = "length"
                self._emit(request, final=True)

    def _sample(self, logits: torch.Tensor, temperature: float, generator: torch.Generator) -> int:
        if temperature <= 0:
            return int(torch.argmax(logits))
        probs = torch.softmax(logits / temperature, dim=-1)
        if self.top_p < 1.0:
            sorted_probs, order = torch.sort(probs, descending=True)
            keep = sorted_probs.cumsum(-1) - sorted_probs < self.top_p
            probs = torch.zeros_like(probs).scatter(0, order[keep], sorted_probs[keep])
        return int(torch.multinomial(probs, 1, generator=generator))

    def _after_token(self, request: _Request, token: int) -> None:
        if token in self._eos_ids:
            request.finish_reason = "stop"
            request.text = self._tokenizer.decode(request.generated[:-1], skip_special_tokens=True)
            self._emit(request, final=True)
            return
        if len(request.generated) >= request.max_tokens:
            request.finish_reason = "length"
        if request.stop or request.on_text is not None or request.finish_reason:
            request.text = self._tokenizer.decode(request.generated, skip_special_tokens=True)
            for stop in request.stop:
                index = request.text.find(stop)
                if index >= 0:
                    request.text = request.text[:index]
                    request.finish_reason = "stop"
                    break
            self._emit(request, final=request.finish_reason is not None)

    def _emit(self, request: _Request, *, final: bool) -> None:
        """Stream new text, holding back a tail that could be the start of a stop string."""
        if not request.text and request.generated and request.finish_reason:
            request.text = self._tokenizer.decode(
                [t for t in request.generated if t not in self._eos_ids], skip_special_tokens=True
            )
        if request.on_text is None:
            return
        safe = len(request.text)
        if not final:
            hold = max((len(s) - 1 for s in request.stop), default=0)
            safe = max(request.emitted, len(request.text) - hold)
            if request.text.endswith("\ufffd"):  # an incomplete multi-byte character
                safe = min(safe, len(request.text) - 1)
        if safe > request.emitted:
            request.on_text(request.text[request.emitted : safe])
            request.emitted = safe
