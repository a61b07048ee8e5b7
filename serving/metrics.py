"""Prometheus metrics on a registry owned by the app (so several apps in one process do not collide).

Request counts and latencies are recorded by ``MetricsMiddleware`` per route template; queue depth and
tokens/s are read from the admission queue and the model client when Prometheus scrapes.
"""

from __future__ import annotations

import time
from collections import deque

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serving.routes_common import Admission
from verifier.llm import ChatClient, QueueingClient, TokenCountingClient

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class TokenRate:
    """Generated tokens per second over about the last ``window_s``, from a growing counter.

    Sampled when Prometheus scrapes; the base is the newest sample at least ``window_s`` old (or the
    start), so the first scrape already reports the rate since start-up.
    """

    def __init__(self, window_s: float = 30.0, start_total: int = 0) -> None:
        self.window_s = window_s
        self._samples: deque[tuple[float, int]] = deque([(time.monotonic(), start_total)])

    def observe(self, total: int, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        self._samples.append((now, total))
        while len(self._samples) > 2 and now - self._samples[1][0] >= self.window_s:
            self._samples.popleft()
        base_t, base_n = self._samples[0]
        return (total - base_n) / (now - base_t) if now > base_t else 0.0


class Metrics:
    def __init__(self, admission: Admission, client: ChatClient) -> None:
        self.registry = CollectorRegistry()
        self.client = client
        self._served_tokens = 0
        self.requests = Counter(
            "medverifier_http_requests_total", "HTTP requests by route and status.",
            ["method", "route", "status"], registry=self.registry,
        )
        self.latency = Histogram(
            "medverifier_http_request_duration_seconds", "HTTP request latency (to the last body byte).",
            ["route"], registry=self.registry,
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 160),
        )
        self.rejected = Counter(
            "medverifier_rejected_requests_total", "Requests refused: queue_full (503) or timeout (504).",
            ["reason"], registry=self.registry,
        )
        self.completion_tokens = Counter(
            "medverifier_completion_tokens_total", "Completion tokens returned to clients.", registry=self.registry
        )
        Gauge(
            "medverifier_in_flight_requests", "Model-backed requests admitted and not finished.",
            registry=self.registry,
        ).set_function(lambda: admission.in_flight)
        Gauge(
            "medverifier_queue_depth", "Requests waiting in the model's batch queue.", registry=self.registry
        ).set_function(lambda: client.queue_depth if isinstance(client, QueueingClient) else 0)
        self._rate = TokenRate(start_total=self.generated_tokens())
        Gauge(
            "medverifier_generated_tokens_per_second", "Tokens generated per second over the last 30 s.",
            registry=self.registry,
        ).set_function(self._tokens_per_second)

    def generated_tokens(self) -> int:
        """The model's own counter when it has one (LocalChatClient), else tokens we returned."""
        if isinstance(self.client, TokenCountingClient):
            return int(self.client.generated_tokens)
        return self._served_tokens

    def add_completion_tokens(self, n: int) -> None:
        self._served_tokens += n
        self.completion_tokens.inc(n)

    def _tokens_per_second(self) -> float:
        return self._rate.observe(self.generated_tokens())

    def render(self) -> bytes:
        return generate_latest(self.registry)


class MetricsMiddleware:
    """Counts and times every HTTP request by its route template (``/v1/consultations/{id}``)."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            self.metrics.requests.labels(scope["method"], template, str(status)).inc()
            self.metrics.latency.labels(template).observe(time.perf_counter() - started)
            if status == 503:
                self.metrics.rejected.labels("queue_full").inc()
            elif status == 504:
                self.metrics.rejected.labels("timeout").inc()
