"""What every router shares: the one error model, admission control and per-request timeouts.

Errors use OpenAI's shape (``{"error": {"message", "type", "code", "param"}}``) for every endpoint,
so the openai SDK, curl users and the web page all read the same thing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable
from typing import TypeVar

from pydantic import BaseModel

logger = logging.getLogger(__name__)
T = TypeVar("T")


class ErrorDetail(BaseModel):
    message: str
    type: str
    code: str | None = None
    param: str | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


class ApiError(Exception):
    """Raised anywhere in a request; the app turns it into ``ErrorBody`` with ``status``."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = ErrorBody(error=ErrorDetail(message=message, type=type, code=code, param=param))
        self.headers = headers or {}


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorBody} for code in (400, 401, 404, 413, 415, 422, 502, 503, 504)
}


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} not found", type="not_found_error", code="not_found")


class Admission:
    """A bounded admission queue for model-backed requests.

    At most ``capacity`` such requests are inside the server at once (waiting in the model's batch
    queue or being decoded); one more is refused at once with 503 and ``Retry-After`` rather than
    piling up until every client times out.
    """

    def __init__(self, capacity: int, retry_after_s: int) -> None:
        self.capacity = capacity
        self.retry_after_s = retry_after_s
        self.in_flight = 0
        self.rejected = 0

    def acquire(self) -> None:
        if self.in_flight >= self.capacity:
            self.rejected += 1
            raise ApiError(
                503,
                f"the server is at capacity ({self.capacity} requests in progress); retry in "
                f"{self.retry_after_s}s",
                type="server_overloaded",
                code="queue_full",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        self.in_flight += 1

    def release(self) -> None:
        self.in_flight = max(0, self.in_flight - 1)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        self.acquire()
        try:
            yield
        finally:
            self.release()


def timeout_error(seconds: float) -> ApiError:
    return ApiError(
        504, f"generation did not finish within {seconds:g}s", type="timeout_error", code="timeout"
    )


async def within(awaitable: Awaitable[T], seconds: float) -> T:
    """Await with the per-request limit; over it is a 504."""
    try:
        return await asyncio.wait_for(awaitable, seconds)
    except TimeoutError as exc:
        raise timeout_error(seconds) from exc


async def stream_within(pieces: AsyncIterator[str], seconds: float) -> AsyncIterator[str]:
    """Yield from ``pieces`` until the per-request deadline, then raise the 504 ``ApiError``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    iterator = aiter(pieces)
    try:
        while True:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise timeout_error(seconds)
            try:
                piece = await asyncio.wait_for(anext(iterator), remaining)
            except StopAsyncIteration:
                return
            except TimeoutError as exc:
                raise timeout_error(seconds) from exc
            yield piece
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()


async def stream_text(client: object, messages: list, **options: object) -> AsyncIterator[str]:
    """Text pieces from ``client.stream`` when the client streams, else its whole completion at once."""
    stream = getattr(client, "stream", None)
    if stream is not None:
        async for piece in stream(messages, **options):
            yield piece
        return
    completion = await client.complete(messages, **options)  # type: ignore[attr-defined]
    if completion.text:
        yield completion.text
