"""OpenAI-compatible ``POST /v1/chat/completions`` (plain and streamed) and ``GET /v1/models``.

Only what the served policy can honour is accepted: ``n`` must be 1, and unknown fields that change
sampling in ways we cannot (``logit_bias``, ``tools``) are refused with 422 rather than silently
ignored. Fields that are harmless to ignore (``user``, ``top_p``, penalties) are accepted.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from serving.auth import Tenant, require_tenant
from serving.routes_common import (
    ERROR_RESPONSES,
    STREAMED_200,
    ApiError,
    ErrorBody,
    ErrorDetail,
    stream_completion,
    stream_within,
    within,
)
from verifier.llm import Completion, LLMError
from verifier.types import Message

router = APIRouter(prefix="/v1", tags=["openai"], responses=ERROR_RESPONSES)


class TextPart(BaseModel):
    type: Literal["text"]
    text: str


class ChatMessageIn(BaseModel):
    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[TextPart] | None = None
    name: str | None = None

    def to_message(self) -> Message:
        content = self.content
        text = content if isinstance(content, str) else "".join(p.text for p in content or [])
        role = "system" if self.role == "developer" else self.role
        return Message(role=role, content=text)


class StreamOptions(BaseModel):
    include_usage: bool = False


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")

    model: str = Field(min_length=1)
    messages: list[ChatMessageIn] = Field(min_length=1)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    stop: str | list[str] | None = None
    seed: int | None = None
    n: Literal[1] = 1
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: str | None = None

    @field_validator("stop")
    @classmethod
    def _stop_list(cls, value: str | list[str] | None) -> list[str] | None:
        if value is None:
            return None
        stops = [value] if isinstance(value, str) else value
        if len(stops) > 4:
            raise ValueError("at most 4 stop sequences")
        return stops


class ChoiceMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: ChoiceMessage
    finish_reason: str


class UsageOut(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: UsageOut


class ModelCard(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "medverifier"


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelCard]


@router.get("/models", response_model=ModelList)
async def list_models(request: Request, _: Tenant = Depends(require_tenant)) -> ModelList:
    return ModelList(data=[ModelCard(id=request.app.state.client.model, created=request.app.state.started)])


def _options(body: ChatCompletionRequest, limit: int, default: int) -> dict[str, object]:
    max_tokens = body.max_completion_tokens or body.max_tokens or default
    if max_tokens > limit:
        raise ApiError(422, f"max_tokens: at most {limit} on this server, got {max_tokens}", param="max_tokens")
    return {"max_tokens": max_tokens, "temperature": body.temperature, "stop": body.stop, "seed": body.seed}


def _check_model(body: ChatCompletionRequest, served: str) -> None:
    if body.model != served:
        raise ApiError(
            404, f"model {body.model!r} is not served here; this server serves {served!r}",
            type="not_found_error", code="model_not_found", param="model",
        )


@router.post("/chat/completions", response_model=ChatCompletion, responses=STREAMED_200)
async def chat_completions(
    body: ChatCompletionRequest, request: Request, _: Tenant = Depends(require_tenant)
) -> ChatCompletion | StreamingResponse:
    state = request.app.state
    client = state.client
    _check_model(body, client.model)
    settings = state.settings
    options = _options(body, settings.max_tokens_limit, settings.default_max_tokens)
    messages = [m.to_message() for m in body.messages]
    completion_id = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    if body.stream:
        state.admission.acquire()  # refused before the 200 and the first byte
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        return StreamingResponse(
            _sse(state, messages, options, completion_id, created, include_usage=include_usage),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    async with state.admission.slot():
        try:
            completion = await within(client.complete(messages, **options), settings.request_timeout_s)
        except LLMError as exc:
            raise ApiError(502, f"the model server failed: {exc}", type="upstream_error") from exc
        except ValueError as exc:  # the client's own input checks (e.g. the context length)
            raise ApiError(400, str(exc), param="messages") from exc
    state.metrics.add_completion_tokens(completion.usage.completion_tokens)
    return ChatCompletion(
        id=completion_id,
        created=created,
        model=client.model,
        choices=[Choice(message=ChoiceMessage(content=completion.text),
                        finish_reason=completion.finish_reason or "stop")],
        usage=_usage(completion),
    )


def _usage(completion: Completion) -> UsageOut:
    usage = completion.usage
    return UsageOut(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
                    total_tokens=usage.prompt_tokens + usage.completion_tokens)


def _chunk(completion_id: str, created: int, model: str, choices: list[dict[str, object]],
           usage: dict[str, int] | None = None, *, include_usage: bool = False) -> str:
    payload: dict[str, object] = {
        "id": completion_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": choices,
    }
    if include_usage:  # OpenAI's shape: null in every chunk but the last, which has no choices
        payload["usage"] = usage
    return f"data: {json.dumps(payload)}\n\n"


def _delta(delta: dict[str, str], finish: str | None = None) -> list[dict[str, object]]:
    return [{"index": 0, "delta": delta, "finish_reason": finish}]


async def _sse(
    state: object, messages: list[Message], options: dict[str, object], completion_id: str, created: int,
    *, include_usage: bool = False,
) -> AsyncIterator[str]:
    """OpenAI's chunk stream: the reply's pieces, a last choice chunk with its ``finish_reason``
    (``length`` when ``max_tokens`` cut it), then, with ``stream_options.include_usage``, a chunk with
    empty ``choices`` and the ``usage``. An error after the 200 is sent as one ``data: {"error": ...}`` event.
    """
    client = state.client  # type: ignore[attr-defined]
    settings = state.settings  # type: ignore[attr-defined]
    model = client.model

    def chunk(choices: list[dict[str, object]], usage: dict[str, int] | None = None) -> str:
        return _chunk(completion_id, created, model, choices, usage, include_usage=include_usage)

    try:
        yield chunk(_delta({"role": "assistant", "content": ""}))
        final: Completion | None = None
        pieces = stream_completion(client, messages, **options)  # type: ignore[arg-type]
        async for item in stream_within(pieces, settings.request_timeout_s):
            if isinstance(item, Completion):
                final = item
            elif item:
                yield chunk(_delta({"content": item}))
        final = final or Completion(text="")
        state.metrics.add_completion_tokens(final.usage.completion_tokens)  # type: ignore[attr-defined]
        yield chunk(_delta({}, final.finish_reason or "stop"))
        if include_usage:
            yield chunk([], _usage(final).model_dump())
        yield "data: [DONE]\n\n"
    except ApiError as exc:
        state.metrics.rejected.labels(exc.body.error.code or "error").inc()  # type: ignore[attr-defined]
        yield f"data: {exc.body.model_dump_json()}\n\n"
    except (ValueError, LLMError) as exc:  # input checks (e.g. the context length) or the model server
        error = ErrorBody(error=ErrorDetail(message=str(exc), type="invalid_request_error", param="messages"))
        yield f"data: {error.model_dump_json()}\n\n"
    finally:
        state.admission.release()  # type: ignore[attr-defined]
