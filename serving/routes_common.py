"""What every router shares: the one error model, admission control and per-request timeouts.

Errors use OpenAI's shape (``{"error": {"message", "type", "code", "param"}}``) for every endpoint,
so the openai SDK, curl users and the web page all read the same thing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from verifier.llm import ChatClient, Completion, StreamingChatClient, StreamingClient, TokenizingClient, Usage
from verifier.types import Message

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


def validation_error(errors: Sequence[Any], *, prefix: str = "") -> ApiError:
    """The 422 for pydantic/FastAPI validation errors: every field named (``prefix`` before each; the
    prefix alone, e.g. ``requests.3``, for an error about the whole value)."""
    def field(loc: Sequence[object]) -> str:
        parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
        if not parts:
            return prefix.rstrip(".") or "body"
        return prefix + ".".join(parts)

    messages = [f"{field(e.get('loc', ()))}: {e.get('msg', 'invalid')}" for e in list(errors)[:10]]
    first = field(errors[0].get("loc", ())) if errors else None
    return ApiError(422, "; ".join(messages) or "invalid request", param=first, code="validation_error")


ERROR_RESPONSES: dict[int | str, dict[str, object]] = {
    code: {"model": ErrorBody} for code in (400, 401, 403, 404, 409, 413, 415, 422, 502, 503, 504)
}


# The 200 of an endpoint that can also answer as server-sent events (``stream``): both media types,
# the events described one by one (an optional ``event`` name and JSON ``data``).
_SSE_EVENT = {"type": "object", "required": ["data"],
              "properties": {"event": {"type": "string"}, "data": {"type": "string"}}}
STREAMED_200: dict[int | str, dict[str, object]] = {
    200: {"content": {"text/event-stream": {"schema": _SSE_EVENT}},
          "description": "JSON, or server-sent events when streamed."},
}


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} not found", type="not_found_error", code="not_found")


class Admission:
    """A bounded admission queue for model-backed requests.

    At most ``capacity`` such requests are inside the server at once (waiting in the model's batch
    queue or being decoded); one more is refused at once with 503 and ``Retry-After`` rather than
    piling up until every client times out. A verify batch holds one slot per concurrent worker.
    """

    def __init__(self, capacity: int, retry_after_s: int) -> None:
        self.capacity = capacity
        self.retry_after_s = retry_after_s
        self.in_flight = 0
        self.rejected = 0

    def acquire(self, slots: int = 1) -> None:
        if self.in_flight + slots > self.capacity:
            self.rejected += 1
            raise ApiError(
                503,
                f"the server is at capacity ({self.capacity} requests in progress); retry in "
                f"{self.retry_after_s}s",
                type="server_overloaded",
                code="queue_full",
                headers={"Retry-After": str(self.retry_after_s)},
            )
        self.in_flight += slots

    def release(self, slots: int = 1) -> None:
        self.in_flight = max(0, self.in_flight - slots)

    @contextlib.asynccontextmanager
    async def slot(self, slots: int = 1) -> AsyncIterator[None]:
        self.acquire(slots)
        try:
            yield
        finally:
            self.release(slots)


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


async def stream_within(pieces: AsyncIterator[T], seconds: float) -> AsyncIterator[T]:
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
        if isinstance(iterator, AsyncGenerator):
            with contextlib.suppress(Exception):
                await iterator.aclose()


async def stream_text(client: ChatClient, messages: list[Message], **options: Any) -> AsyncIterator[str]:
    """Text pieces from ``client.stream`` when the client streams, else its whole completion at once."""
    if isinstance(client, StreamingClient):
        async for piece in client.stream(messages, **options):
            yield piece
        return
    completion = await client.complete(messages, **options)
    if completion.text:
        yield completion.text


async def stream_completion(
    client: ChatClient, messages: list[Message], *, max_tokens: int, **options: Any
) -> AsyncIterator[str | Completion]:
    """Text pieces, then one ``Completion`` with the reply's ``finish_reason`` and ``usage``.

    A ``StreamingChatClient`` knows them while streaming (pieces, then its ``Completion``) and is used as
    is. A ``StreamingClient`` whose ``stream`` yields text only gets them estimated from its tokenizer
    when it is a ``TokenizingClient`` (a local model's): the streamed text re-encoded, ``length`` when
    that reaches ``max_tokens``. A client that does not stream is asked for the whole completion.
    """
    if isinstance(client, StreamingChatClient):
        async for item in client.stream_completion(messages, max_tokens=max_tokens, **options):
            yield item
        return
    if not isinstance(client, StreamingClient):
        completion = await client.complete(messages, max_tokens=max_tokens, **options)
        if completion.text:
            yield completion.text
        yield completion
        return
    parts: list[str] = []
    async for piece in client.stream(messages, max_tokens=max_tokens, **options):
        parts.append(piece)
        yield piece
    yield _estimated_completion(client, messages, "".join(parts), max_tokens)


def _estimated_completion(client: object, messages: list[Message], text: str, max_tokens: int) -> Completion:
    if not isinstance(client, TokenizingClient):
        logger.debug("%s streams no finish reason and has no tokenizer: reporting 'stop'", type(client).__name__)
        return Completion(text=text)
    completion_tokens = len(client.loaded.tokenizer.encode(text, add_special_tokens=False))
    prompt_tokens = len(client.render_prompt(messages))
    return Completion(
        text=text,
        finish_reason="length" if completion_tokens >= max_tokens else "stop",
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens),
    )
