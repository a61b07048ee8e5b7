"""The decoding thread: continuous batching over one model, turn by turn.

Concurrent requests from any number of coroutines (and event loops) go into one inbox. A decoding
thread owns the running batch: every turn it admits waiting requests into free slots (up to
``max_batch_size``), prefills them (``Admission``), splices their KV cache into the running one, runs
the step (``StepPlan``: one token for every row, and the riders' prompts in a ragged pass), samples
every row's next token in one batched pass, and hands each finished request back to its caller at
once — nobody waits for the longest row of "their" batch, and a request that arrives mid-decode
joins at the next step instead of waiting for the batch to drain.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref

import torch

from policy.engine.api import ClientClosedError
from policy.engine.kv import Prefilled, RunningBatch
from policy.engine.passes import ForwardPasses
from policy.engine.prefix import Hit, PrefixCache
from policy.engine.request import Request
from policy.engine.sampling import sample_tokens
from policy.engine.scheduler import (
    Admission,
    Inbox,
    StepKind,
    StepPlan,
    free_slots,
    plan_admission,
    plan_step,
)
from policy.engine.text import Detokenizer

logger = logging.getLogger(__name__)

# One pass at a time per model, even when several engines share it (their passes run the same weights and
# caches), handed over in arrival order so that neither of two engines can starve the other. Engines of
# different models run their passes at once: measured on 2 cores (the policy and a frozen patient copy,
# 16 consultations), that is faster than taking turns (46-50 s against 55 s), each pass's Python work
# overlapping the other's matrix products.
_MODEL_LOCKS: weakref.WeakKeyDictionary[torch.nn.Module, FifoLock] = weakref.WeakKeyDictionary()
_LOCKS_LOCK = threading.Lock()
# Engines whose decoding thread may be running; stopped before the interpreter exits (see below).
_LIVE: weakref.WeakSet[Engine] = weakref.WeakSet()


class FifoLock:
    """A lock taken in arrival order (``threading.Lock`` lets a releasing thread take it straight back)."""

    def __init__(self) -> None:
        self._turns = threading.Condition()
        self._next = 0
        self._serving = 0

    def __enter__(self) -> None:
        with self._turns:
            ticket = self._next
            self._next += 1
            while ticket != self._serving:
                self._turns.wait()

    def __exit__(self, *_exc: object) -> None:
        with self._turns:
            self._serving += 1
            self._turns.notify_all()


def model_lock(model: torch.nn.Module) -> FifoLock:
    with _LOCKS_LOCK:
        lock = _MODEL_LOCKS.get(model)
        if lock is None:
            lock = _MODEL_LOCKS[model] = FifoLock()
        return lock


class Engine:
    """Continuous batching over ``passes`` (one model); requests come in through ``submit``."""

    def __init__(
        self,
        passes: ForwardPasses,
        detokenizer: Detokenizer,
        prefixes: PrefixCache,
        *,
        max_batch_size: int,
        batch_wait_ms: float,
        top_p: float,
    ) -> None:
        self.passes = passes
        self.detokenizer = detokenizer
        self.prefixes = prefixes
        self.stats = passes.stats
        self.max_batch_size = max_batch_size
        self.top_p = top_p
        self.inbox = Inbox(batch_wait_ms)
        self._lock = model_lock(passes.model)
        self._caching = passes.traits.spliceable and prefixes.max_bytes > 0

    # ------------------------------------------------------------------ the callers' side
    def submit(self, request: Request) -> None:
        self.inbox.put(request, self._start_thread)

    def _start_thread(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name="LocalChatClient-decode", daemon=True)
        thread.start()
        _LIVE.add(self)
        return thread

    def close(self) -> threading.Thread | None:
        return self.inbox.close()

    def reopen(self) -> None:
        for request in self.inbox.reopen():
            request.fail(ClientClosedError("the client was closed before the request ran"))

    # ------------------------------------------------------------------ the decoding thread
    def _run(self) -> None:
        batch = RunningBatch(self.max_batch_size, spliceable=self.passes.traits.spliceable)
        with torch.inference_mode():
            while True:
                free = free_slots(len(batch), self.max_batch_size, spliceable=batch.spliceable)
                new = self.inbox.take(free, idle=not batch)
                if new is None:
                    for request in batch.rows:
                        request.fail(ClientClosedError("the client was closed while decoding"))
                    return
                try:
                    with self._lock:
                        self._turn(batch, new)
                except Exception as exc:  # a failed turn fails its requests, not the thread
                    logger.exception("generation failed for %d requests", len(batch) + len(new))
                    for request in {id(r): r for r in [*batch.rows, *new]}.values():
                        request.fail(exc)
                    batch = RunningBatch(self.max_batch_size, spliceable=self.passes.traits.spliceable)

    def _turn(self, batch: RunningBatch, new: list[Request]) -> None:
        riders: list[Hit] = []
        if new:
            started = time.perf_counter()
            riders = self._admit(batch, new)
            self.stats.prefill_seconds += time.perf_counter() - started
        step = plan_step(len(batch), riders)
        if step is not None:
            started = time.perf_counter()
            self._step(batch, step)
            elapsed = time.perf_counter() - started
            if step.rows:
                self.stats.decode_seconds += elapsed
            else:
                self.stats.prefill_seconds += elapsed

    def _admit(self, batch: RunningBatch, new: list[Request]) -> list[Hit]:
        """Run the admission's prefill passes and add their rows to ``batch``; the riders for the step."""
        self.prefixes.drop_if_stale(self.passes.model)
        for request in new:
            request.generator = torch.Generator().manual_seed(request.sampling.seed)
            self.stats.prompt_tokens += len(request.prompt_ids)
        admission = plan_admission(
            new, prefixes=self.prefixes, caching=self._caching, ragged=self.passes.traits.ragged, decoding_rows=len(batch)
        )
        groups, hits = self._prefill(admission)
        self.stats.admissions += 1
        self.stats.admitted.append(len(new))
        if groups:
            first = len(batch)
            batch.extend(groups)
            self._sample(batch, torch.cat([g.logits for g in groups]), first=first)
        return hits if admission.ride else []

    def _prefill(self, admission: Admission) -> tuple[list[Prefilled], list[Hit]]:
        """The admission's own passes: fresh prompts together, then the followers (those that find
        their start cached now become hits), then, unless they ride, one pass per hit. The rows to
        join, and every hit."""
        groups: list[Prefilled] = []
        if admission.fresh:
            groups.append(self._fresh(admission.fresh))
        hits, missed = list(admission.hits), []
        for request in admission.followers:
            hit = self.prefixes.hit(request)
            if hit is None:
                missed.append(request)
            else:
                hits.append(hit)
        if missed:
            groups.append(self._fresh(missed))
        if not admission.ride:
            groups.extend(self.passes.from_prefix(hit) for hit in hits)
        return groups, hits

    def _fresh(self, requests: list[Request]) -> Prefilled:
        group = self.passes.fresh(requests)
        if self._caching:  # the prompts' keys and values serve later prompts with the same start
            width = group.attention.shape[1]
            for row, request in enumerate(requests):
                self.prefixes.remember(group.cache, row, request.prompt_ids, width)
        return group

    def _step(self, batch: RunningBatch, step: StepPlan) -> None:
        if step.kind is StepKind.DECODE:
            self._sample(batch, self.passes.decode(batch), first=0)
            return
        logits, joined = self.passes.ragged(batch, step.riders)
        batch.extend(joined)
        self._sample(batch, logits, first=0)

    def _sample(self, batch: RunningBatch, logits: torch.Tensor, *, first: int) -> None:
        """Sample the next token of rows ``first..``; finished or cancelled rows leave the batch."""
        logits = logits.float().cpu()
        logprobs = torch.log_softmax(logits, dim=-1)
        requests = batch.rows[first:]
        tokens = sample_tokens(
            logits, [r.sampling.temperature for r in requests], self.top_p, [r.generator for r in requests]
        )
        chosen = logprobs[torch.arange(len(tokens)), tokens].tolist()
        starting = [i for i, request in enumerate(requests) if not request.generated]
        if starting:  # the entropy where each new completion starts (ARPO's branching reads it)
            start = logprobs[starting]
            for i, entropy in zip(starting, (-(start.exp() * start).nan_to_num().sum(dim=-1)).tolist(), strict=True):
                requests[i].first_entropy = entropy
        for request, token, logprob in zip(requests, tokens, chosen, strict=True):
            request.generated.append(token)
            request.logprobs.append(logprob)
            self.stats.generated_tokens += 1
            self.detokenizer.after_token(request, token)
        keep = []
        for row, request in enumerate(batch.rows):
            if request.finish_reason is not None:
                if self._caching:  # its tokens (prompt + all but the last generated) serve a next turn
                    done = request.prompt_ids + request.generated[:-1]
                    self.prefixes.remember(batch.cache, row, done, batch.attention.shape[1])
                request.finish()
            elif not request.cancelled:
                keep.append(row)
        batch.keep(keep)


@atexit.register
def _stop_decoding_threads() -> None:
    """Let every decoding thread leave torch before the interpreter exits.

    The thread keeps working after it hands a reply back (it caches the request's prefix in torch);
    a daemon thread still inside torch while the interpreter tears down can abort the process
    ("terminate called without an active exception", exit -6), so a script that exits right after a
    reply without ``aclose()`` used to fail now and then. atexit runs before daemon threads are
    frozen; each thread finishes its current step, sees the inbox closed and returns.
    """
    threads = [thread for engine in list(_LIVE) if (thread := engine.close()) is not None]
    for thread in threads:
        thread.join(timeout=30)
