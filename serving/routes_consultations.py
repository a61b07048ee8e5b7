"""Clinician consultations: create, send a message (optionally streamed as SSE), read, list, delete.

A key sees only its own consultations and those shared with it for review (read-only: sending to
or deleting one answers 403); any other key's id answers 404, exactly like an unknown id. A
consultation may start from a project case (``case_id``), the clinician playing its patient or, with
``clinician_role: "doctor"``, interviewing its simulated patient on the project's consultation
environment (its turn limit, "the patient leaves", the measurement responder). An interview that is
over (``ended`` in the consultation and in the reply that ended it) answers a further message with 409
``consultation_over``.
Server-sent events of ``POST /v1/consultations/{id}/messages?stream=true``::

    event: delta   data: {"text": "..."}          (repeated)
    event: done    data: <Reply>                   (the stored reply)
    event: error   data: <ErrorBody>               (instead of done, e.g. a 504)
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from serving.auth import Tenant, require_tenant
from serving.routes_common import (
    ERROR_RESPONSES,
    STREAMED_200,
    ApiError,
    ErrorBody,
    ErrorDetail,
    not_found,
    stream_within,
)
from serving.sessions import (
    ClinicianRole,
    Consultation,
    ConsultationOver,
    ConsultationStore,
    ConsultationSummary,
    Reply,
)
from verifier.llm import LLMError

router = APIRouter(prefix="/v1/consultations", tags=["consultations"], responses=ERROR_RESPONSES)


class ConsultationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field("", max_length=200)
    case_id: str | None = Field(None, min_length=1, max_length=200, description="A project case (GET /v1/cases).")
    clinician_role: ClinicianRole = Field(
        "patient", description="patient: the agent is the doctor; doctor: you interview the case's simulated patient.")
    persona_seed: int = Field(0, ge=0, le=2**31 - 1, description="The simulated patient's persona (doctor role).")


class MessageCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1, max_length=8000)
    max_tokens: int | None = Field(None, ge=1)
    temperature: float | None = Field(None, ge=0.0, le=2.0)


class ConsultationList(BaseModel):
    data: list[ConsultationSummary]


def _store(request: Request) -> ConsultationStore:
    return request.app.state.consultations


async def _owner_only(request: Request, tenant: Tenant, consultation_id: str) -> None:
    found = await _store(request).summary(tenant.id, consultation_id, shared=True)
    if found is None:
        raise not_found(f"consultation {consultation_id!r}")
    if found.access != "owner":
        raise ApiError(403, f"consultation {consultation_id!r} is shared with you read-only: review it, or start "
                       "your own", type="permission_error", code="read_only")


@router.post("", status_code=201, response_model=ConsultationSummary)
async def create_consultation(
    request: Request, body: ConsultationCreate | None = None, tenant: Tenant = Depends(require_tenant)
) -> ConsultationSummary:
    body = body or ConsultationCreate()
    store = _store(request)
    case = store.cases.get(body.case_id) if body.case_id is not None else None
    if body.case_id is not None and case is None:
        raise ApiError(422, f"case_id: unknown case {body.case_id!r} (GET /v1/cases lists them)", param="case_id",
                       code="unknown_case")
    if body.clinician_role == "doctor" and case is None:
        raise ApiError(422, "case_id: interviewing the simulated patient (clinician_role 'doctor') needs a case",
                       param="case_id")
    title = body.title.strip() or (case.title or case.id if case else "Consultation")
    return await store.create(tenant.id, title, case_id=body.case_id, clinician_role=body.clinician_role,
                              persona_seed=body.persona_seed)


@router.get("", response_model=ConsultationList)
async def list_consultations(
    request: Request, limit: int = Query(100, ge=1, le=1000), tenant: Tenant = Depends(require_tenant)
) -> ConsultationList:
    return ConsultationList(data=await _store(request).list(tenant.id, limit))


@router.get("/{consultation_id}", response_model=Consultation)
async def get_consultation(
    consultation_id: str, request: Request, tenant: Tenant = Depends(require_tenant)
) -> Consultation:
    found = await _store(request).get(tenant.id, consultation_id, shared=True)
    if found is None:
        raise not_found(f"consultation {consultation_id!r}")
    return found


@router.delete("/{consultation_id}", status_code=204)
async def delete_consultation(
    consultation_id: str, request: Request, tenant: Tenant = Depends(require_tenant)
) -> Response:
    await _owner_only(request, tenant, consultation_id)
    if not await _store(request).delete(tenant.id, consultation_id):
        raise not_found(f"consultation {consultation_id!r}")
    await request.app.state.reviews.forget(consultation_id)
    return Response(status_code=204)


@router.post("/{consultation_id}/messages", response_model=Reply, responses=STREAMED_200)
async def send_message(
    consultation_id: str,
    body: MessageCreate,
    request: Request,
    stream: bool = Query(False, description="Stream the reply as server-sent events."),
    tenant: Tenant = Depends(require_tenant),
) -> Reply | StreamingResponse:
    state = request.app.state
    settings = state.settings
    store = _store(request)
    await _owner_only(request, tenant, consultation_id)
    max_tokens = body.max_tokens or settings.default_max_tokens
    if max_tokens > settings.max_tokens_limit:
        raise ApiError(
            422, f"max_tokens: at most {settings.max_tokens_limit} on this server, got {max_tokens}",
            param="max_tokens",
        )
    temperature = settings.consultation_temperature if body.temperature is None else body.temperature
    interview = await store.interview(consultation_id)
    if interview is not None and interview.done:
        raise _over(ConsultationOver(consultation_id, interview.reason))
    pieces = store.send(consultation_id, body.content, max_tokens=max_tokens, temperature=temperature)
    wants_sse = stream or "text/event-stream" in request.headers.get("accept", "")
    state.admission.acquire()
    if wants_sse:
        return StreamingResponse(
            _sse(state, pieces), media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )
    try:
        reply: Reply | None = None
        async for item in stream_within(pieces, settings.request_timeout_s):
            if isinstance(item, Reply):
                reply = item
    except LLMError as exc:
        raise ApiError(502, f"the model server failed: {exc}", type="upstream_error") from exc
    except ConsultationOver as exc:  # another turn ended it while this one waited for the lock
        raise _over(exc) from exc
    except ValueError as exc:  # the client's own input checks (e.g. the context length)
        raise ApiError(400, str(exc), param="content") from exc
    finally:
        state.admission.release()
    assert reply is not None  # ConsultationStore.send always ends with the Reply
    return reply


def _over(exc: ConsultationOver) -> ApiError:
    return ApiError(409, str(exc), code="consultation_over", param="content")


def _event(name: str, data: str) -> str:
    return f"event: {name}\ndata: {data}\n\n"


async def _sse(state: object, pieces: AsyncIterator[str | Reply]) -> AsyncIterator[str]:
    try:
        async for item in stream_within(pieces, state.settings.request_timeout_s):  # type: ignore[attr-defined]
            if isinstance(item, Reply):
                yield _event("done", item.model_dump_json())
            else:
                yield _event("delta", json.dumps({"text": item}))
    except ApiError as exc:
        state.metrics.rejected.labels(exc.body.error.code or "error").inc()  # type: ignore[attr-defined]
        yield _event("error", exc.body.model_dump_json())
    except ConsultationOver as exc:
        yield _event("error", _over(exc).body.model_dump_json())
    except Exception as exc:  # reported in-band: the 200 has already been sent
        error = ErrorBody(error=ErrorDetail(message=f"generation failed: {exc}", type="server_error"))
        yield _event("error", error.model_dump_json())
    finally:
        state.admission.release()  # type: ignore[attr-defined]
