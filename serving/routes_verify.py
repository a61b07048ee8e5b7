"""The verifier as a service: ``POST /v1/verify`` and ``POST /v1/rubrics``.

The request and response bodies are the Python API's own models (``VerifyRequest`` /
``VerifyResult``, ``Rubric``), so a remote reward client and ``verifier.verify()`` agree exactly.
"""

from __future__ import annotations

import logging
from typing import Literal

from fastapi import APIRouter, Body, Depends, Request
from pydantic import BaseModel, ConfigDict, model_validator

from serving.auth import Tenant, require_tenant
from serving.routes_common import ERROR_RESPONSES, ApiError, within
from verifier.llm import LLMError
from verifier.registry import UnknownDomainError
from verifier.types import Case, Message, Rubric, VerifyRequest, VerifyResult

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


@router.get("/verify/domains", response_model=DomainList)
async def verify_domains(request: Request, _: Tenant = Depends(require_tenant)) -> DomainList:
    return DomainList(data=request.app.state.registry.domains())


@router.post("/verify", response_model=VerifyResult)
async def verify(
    request: Request, body: VerifyRequest = Body(...), _: Tenant = Depends(require_tenant)
) -> VerifyResult:
    state = request.app.state
    async with state.admission.slot():
        try:
            return await within(state.registry.verify(body), state.settings.request_timeout_s)
        except UnknownDomainError as exc:
            raise ApiError(400, str(exc), code="unknown_domain", param="domain") from exc
        except LLMError as exc:
            raise ApiError(502, f"the judge model failed: {exc}", type="upstream_error") from exc
        except ValueError as exc:
            raise ApiError(400, str(exc)) from exc


@router.post("/rubrics", response_model=Rubric)
async def rubrics(body: RubricRequest, request: Request, _: Tenant = Depends(require_tenant)) -> Rubric:
    """The case-grounded rubric, or the LLM's (served model) with the case-grounded one as fallback."""
    state = request.app.state
    try:
        from serving.wiring import build_rubric_generator  # type: ignore[import-not-found]
    except ImportError as exc:
        raise ApiError(501, "the rubric generators are not installed", type="not_implemented") from exc
    generator = build_rubric_generator(state.client if body.generator == "llm" else None)
    async with state.admission.slot():
        try:
            return await within(
                generator.generate(case=body.case, conversation=body.conversation), state.settings.request_timeout_s
            )
        except LLMError as exc:
            raise ApiError(502, f"the rubric model failed: {exc}", type="upstream_error") from exc
        except ValueError as exc:
            raise ApiError(400, str(exc)) from exc
