"""Who runs next: the inbox of waiting requests, and a typed plan for each turn of the decoding loop.

Each turn the decoding thread takes waiting requests into free slots (``Inbox.take``), the scheduler
says how they join (``plan_admission`` → ``Admission``), the engine runs those prefill passes, and
the scheduler says what the step is (``plan_step`` → ``StepPlan``: a decoding step, or a ragged pass
that also prefills riders). Rows leave after the step's sampling, when they are finished or cancelled.

How requests join:

- a prompt that continues a cached prefix prefills only the rest (a ``Hit``); while rows are decoding
  (or several such prompts arrive together) it rides along the next step instead of getting a pass of
  its own, when the engine serves ragged passes (``policy.engine.ragged``);
- the others are prefilled together, padded — except that a request sharing its start with another
  fresh one (16 consultations opening with the same system prompt) waits for that one's prompt to be
  cached and then prefills only what differs (a follower).
"""

from __future__ import annotations

import collections
import enum
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from policy.engine.prefix import MIN_PREFIX_TOKENS, Hit, PrefixCache, shared_start
from policy.engine.request import Request

# An idle decoding thread exits after this long; the next request starts a new one.
IDLE_EXIT_S = 2.0


@dataclass(frozen=True)
class Admission:
    """How the requests taken this turn join the running batch."""

    fresh: list[Request]  # prefilled together from scratch, in one padded pass; their prompts are cached
    followers: list[Request]  # share a start with one of ``fresh``: looked up again once those are cached
    hits: list[Hit]  # continue a cached prefix: only the rest is prefilled
    ride: bool  # hits (and followers that hit) ride along this turn's step instead of a pass each

    @property
    def joining(self) -> list[Request]:
        return [*self.fresh, *self.followers, *(hit.request for hit in self.hits)]


class StepKind(enum.Enum):
    DECODE = "decode"  # one token for every row of the running batch
    RAGGED = "ragged"  # that, and the riders' prompts prefilled in the same pass


@dataclass(frozen=True)
class StepPlan:
    """The turn's step: one forward pass after the admission's prefill passes."""

    kind: StepKind
    rows: int  # decoding rows (one token each); 0 in a ragged pass of riders only
    riders: list[Hit]  # prompts prefilled in the pass, each after its cached prefix (RAGGED only)


def plan_admission(
    new: list[Request], *, prefixes: PrefixCache, caching: bool, ragged: bool, decoding_rows: int
) -> Admission:
    """Sort ``new`` into fresh prefills, followers and prefix hits (``caching``: a prefix cache is in use)."""
    fresh: list[Request] = []
    followers: list[Request] = []
    hits: list[Hit] = []
    for request in new:
        hit = prefixes.hit(request) if caching else None
        if hit is not None:
            hits.append(hit)
        elif caching and any(shared_start(request.prompt_ids, r.prompt_ids) >= MIN_PREFIX_TOKENS for r in fresh):
            followers.append(request)
        else:
            fresh.append(request)
    # Riding needs a pass to ride on: decoding rows, rows joining now, or other riders. (A follower
    # exists only beside a fresh request, so ``fresh`` covers the followers that turn into hits.)
    ride = ragged and (decoding_rows > 0 or bool(fresh) or len(hits) > 1)
    return Admission(fresh, followers, hits, ride)


def plan_step(decoding_rows: int, riders: list[Hit]) -> StepPlan | None:
    """The step after the admission (None: nothing is left to decode)."""
    if riders:
        return StepPlan(StepKind.RAGGED, decoding_rows, riders)
    if decoding_rows:
        return StepPlan(StepKind.DECODE, decoding_rows, [])
    return None


def free_slots(decoding_rows: int, max_rows: int, *, spliceable: bool) -> int:
    """Rows that may join now: a cache that cannot splice takes new rows only once it has drained."""
    return max_rows - decoding_rows if spliceable or not decoding_rows else 0


class Inbox:
    """Requests waiting for a slot, and the decoding thread that serves them (started on demand)."""

    def __init__(self, batch_wait_ms: float) -> None:
        self.batch_wait_ms = batch_wait_ms
        self.cond = threading.Condition()
        self.closed = False
        self.thread: threading.Thread | None = None
        self._waiting: collections.deque[Request] = collections.deque()

    def __len__(self) -> int:
        return len(self._waiting)

    def put(self, request: Request, start: Callable[[], threading.Thread]) -> None:
        """Queue ``request``; ``start`` makes and starts the decoding thread when none is running."""
        with self.cond:
            self._waiting.append(request)
            if self.thread is None:
                self.thread = start()
            self.cond.notify_all()

    def take(self, free: int, *, idle: bool) -> list[Request] | None:
        """Up to ``free`` waiting requests; None when the thread should exit (closed, or idle too long).

        An idle thread blocks for the first request, then waits ``batch_wait_ms`` for stragglers; a
        busy one takes whatever is waiting without delaying the running rows.
        """
        with self.cond:
            if self.closed:
                self.thread = None
                return None
            if idle:
                while not self._waiting:
                    timed_out = not self.cond.wait(timeout=IDLE_EXIT_S)
                    if self.closed or (timed_out and not self._waiting):
                        self.thread = None
                        return None
                deadline = time.monotonic() + self.batch_wait_ms / 1000
                while len(self._waiting) < free and (left := deadline - time.monotonic()) > 0:
                    self.cond.wait(timeout=left)
            taken = [self._waiting.popleft() for _ in range(min(free, len(self._waiting)))]
        return [r for r in taken if not r.cancelled]

    def close(self) -> threading.Thread | None:
        """Tell the decoding thread to stop after its current step; the thread to wait for, if any."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()
            return self.thread

    def reopen(self) -> list[Request]:
        """After the thread stopped: accept requests again; the ones left waiting, to fail."""
        with self.cond:
            waiting = list(self._waiting)
            self._waiting.clear()
            self.closed = False
            return waiting
