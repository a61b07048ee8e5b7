"""The verifier as a service: ``POST /v1/verify``, ``POST /v1/verify/batch`` and ``POST /v1/rubrics``.

The request and response bodies are the Python API's own models (``VerifyRequest`` /
``VerifyResult``, ``Rubric``), so a remote reward client and ``Registry.verify()`` agree exactly.
The judge and the rubric model are the server's own (``MEDVERIFIER_JUDGE_*``, ``MEDVERIFIER_RUBRIC_*``),
never the served policy by default. A request that cannot be graded without a judge the server does
not have is refused (422 ``no_judge``) rather than answered with a reward of nothing.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Depends, Request
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)

from policy.graders import build_rubric_generator, judge_of
from rubric_gen.llm_rubric import RubricGenerationError
from serving.auth import Tenant, require_tenant
from serving.routes_common import ERROR_RESPONSES, ApiError, ErrorDetail, validation_error, within
from verifier.backends.medical import MedicalBackend
from verifier.llm import LLMError
from verifier.protocols import VerifierBackend
from verifier.registry import Registry, UnknownDomainError
from verifier.types import Case, MedicalVerifyRequest, Message, Rubric, VerifyRequest, VerifyResult

logger = logging.getLogger(__name__)
router = APIRouter(prefix="/v1", tags=["verifier"], responses=ERROR_RESPONSES)


class DomainList(BaseModel):
    data: list[str]


class RubricRequest(BaseModel):
    """``generator="case"``: the case-grounded rubric (no LLM); ``"llm"``: the LLM-backed generator."""

    model_config = ConfigDict(extra="forbid")

    case: Case | None = None
    conversation: list[Message] | None = None
    generator: Literal["case", "llm"] = "case"

    @model_validator(mode="after")
    def _needs_input(self) -> RubricRequest:
        if self.generator == "case" and self.case is None:
            raise ValueError("case: required when generator is 'case'")
        if self.case is None and not self.conversation:
            raise ValueError("give a case, a conversation, or both")
        return self


class _Invalid:
    """A batch entry that is not a valid ``VerifyRequest``: it fails on its own, not the batch."""

    def __init__(self, error: ValidationError) -> None:
        self.errors = error.errors(include_url=False)


def _keep_invalid(value: object, handler: ValidatorFunctionWrapHandler) -> object:
    try:
        return handler(value)
    except ValidationError as exc:
        return _Invalid(exc)


class VerifyBatchRequest(BaseModel):
    """Up to ``MEDVERIFIER_VERIFY_BATCH_MAX`` verify requests, answered in order."""

    model_config = ConfigDict(extra="forbid")

    requests: list[Annotated[VerifyRequest, WrapValidator(_keep_invalid)]]


class VerifyBatchItem(BaseModel):
    """One request's outcome: ``status`` 200 and its ``result``, or the HTTP status it would have got
    alone and its ``error`` (the one error shape's ``error`` object)."""

    status: int
    result: VerifyResult | None = None
    error: ErrorDetail | None = None


class VerifyBatchResponse(BaseModel):
    data: list[VerifyBatchItem] = Field(description="One item per request, in the order sent.")


def has_judge(backend: VerifierBackend) -> bool:
    """Whether a medical backend's grader can ask a judge (what ``grader_for`` would find)."""
    return isinstance(backend, MedicalBackend) and judge_of(backend.grader) is not None


def _no_judge(why: str, param: str) -> ApiError:
    return ApiError(
        422,
        f"{why}, and this server has no judge configured: set MEDVERIFIER_JUDGE_MODEL (and "
        "MEDVERIFIER_JUDGE_BASE_URL for a judge behind an OpenAI-compatible server), or grade with rule "
        "checks (rubric items with a `check`, grading 'rule' or 'hybrid')",
        code="no_judge",
        param=param,
    )


def _check_judge_needed(request: MedicalVerifyRequest) -> None:
    grading = request.options.grading
    if grading == "judge":
        raise _no_judge("grading 'judge' needs a judge", "options.grading")
    rubric = request.task.rubrics
    if grading == "hybrid" and rubric and not any(item.check is not None for item in rubric):
        raise _no_judge("no item of this rubric has a rule check, so grading it needs a judge", "task.rubrics")


async def verify_one(registry: Registry, request: VerifyRequest, timeout_s: float) -> VerifyResult:
    """Verify one request; every failure is an ``ApiError`` with the status it answers."""
    try:
        backend = registry.get(request.domain)
    except UnknownDomainError as exc:
        raise ApiError(400, str(exc), code="unknown_domain", param="domain") from exc
    judgeless = isinstance(request, MedicalVerifyRequest) and not has_judge(backend)
    if judgeless:
        _check_judge_needed(request)  # type: ignore[arg-type]
    try:
        result = await within(backend.verify(request), timeout_s)
    except LLMError as exc:
        raise ApiError(502, f"the judge or rubric model failed: {exc}", type="upstream_error") from exc
    except ValueError as exc:
        raise ApiError(400, str(exc)) from exc
    if judgeless and request.options.grading == "hybrid" and result.criteria and all(  # type: ignore[union-attr]
        c.grader == "none" for c in result.criteria
    ):  # a generated rubric (e.g. the LLM's) without a single rule-checkable item
        raise _no_judge("no item of the generated rubric has a rule check, so grading it needs a judge", "task")
    return result


@router.get("/verify/domains", response_model=DomainList)
async def verify_domains(request: Request, _: Tenant = Depends(require_tenant)) -> DomainList:
    return DomainList(data=request.app.state.registry.domains())


@router.post("/verify", response_model=VerifyResult)
async def verify(
    request: Request, body: VerifyRequest = Body(...), _: Tenant = Depends(require_tenant)
) -> VerifyResult:
    state = request.app.state
    async with state.admission.slot():
        return await verify_one(state.registry, body, state.settings.request_timeout_s)


@router.post("/verify/batch", response_model=VerifyBatchResponse)
async def verify_batch(
    request: Request, body: VerifyBatchRequest, _: Tenant = Depends(require_tenant)
) -> VerifyBatchResponse:
    """Every request verified on its own (at most ``MEDVERIFIER_VERIFY_CONCURRENCY`` at once); a request
    that fails gets its status and error in its place, and the batch still answers 200."""
    state = request.app.state
    settings = state.settings
    entries = body.requests
    if len(entries) > settings.verify_batch_max:
        raise ApiError(422, f"requests: at most {settings.verify_batch_max} per batch on this server, got "
                       f"{len(entries)}", param="requests", code="batch_too_large")
    workers = min(settings.verify_concurrency, len(entries), state.admission.capacity)
    if not workers:
        return VerifyBatchResponse(data=[])
    gate = asyncio.Semaphore(workers)

    async def one(index: int, entry: object) -> VerifyBatchItem:
        if isinstance(entry, _Invalid):
            error = validation_error(entry.errors, prefix=f"requests.{index}.")
            return VerifyBatchItem(status=error.status, error=error.body.error)
        async with gate:
            try:
                result = await verify_one(state.registry, entry, settings.request_timeout_s)  # type: ignore[arg-type]
            except ApiError as exc:
                return VerifyBatchItem(status=exc.status, error=exc.body.error)
            except Exception as exc:  # one broken request must not fail the others
                logger.exception("verify batch item %d failed", index)
                return VerifyBatchItem(status=500, error=ErrorDetail(
                    message=f"internal error: {type(exc).__name__}", type="server_error"))
        return VerifyBatchItem(status=200, result=result)

    async with state.admission.slot(workers):
        items = await asyncio.gather(*(one(i, entry) for i, entry in enumerate(entries)))
    return VerifyBatchResponse(data=list(items))


@router.post("/rubrics", response_model=Rubric)
async def rubrics(body: RubricRequest, request: Request, _: Tenant = Depends(require_tenant)) -> Rubric:
    """The case-grounded rubric, or the rubric model's with the case-grounded one as fallback."""
    state = request.app.state
    rubric_client = state.rubric_client
    if body.generator == "llm" and rubric_client is None:
        raise ApiError(422, "generator 'llm' needs a rubric model and this server has none configured: set "
                       "MEDVERIFIER_RUBRIC_MODEL (and MEDVERIFIER_RUBRIC_BASE_URL), or use generator 'case'",
                       code="no_rubric_model", param="generator")
    generator = build_rubric_generator(rubric_client if body.generator == "llm" else None)
    async with state.admission.slot():
        try:
            return await within(
                generator.generate(case=body.case, conversation=body.conversation), state.settings.request_timeout_s
            )
        except RubricGenerationError as exc:  # the model's rubric was unusable and there is no case to fall back on
            raise ApiError(422, f"{exc}: send the case as well, so that the case-grounded rubric can stand in",
                           code="rubric_unusable", param="case") from exc
        except LLMError as exc:
            raise ApiError(502, f"the rubric model failed: {exc}", type="upstream_error") from exc
        except ValueError as exc:
            raise ApiError(400, str(exc)) from exc
