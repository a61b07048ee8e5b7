"""Cases, clinician reviews, sharing, the reviews' exports and the agreement table.

* ``GET /v1/cases``, ``GET /v1/cases/{id}`` — the project's cases a consultation can start from.
* ``PUT /v1/consultations/{id}/case`` — attach a case to a consultation (the owner).
* ``GET/PUT /v1/consultations/{id}/shares`` — the reviewer keys (by label) a consultation is shared
  with, read-only (the owner).
* ``GET/PUT /v1/consultations/{id}/review`` — the verifier's rubric and verdicts, and the caller's review.
  A review made against an older version of the rubric is regraded and carried onto the current one when
  opened; the page says so (``regraded_from_version``) and lists the verdicts that changed.
* ``GET /v1/reviews/export?format=healthbench|responses|consultations`` — JSONL of the reviews the caller
  wrote and the reviews of consultations it owns; ``GET /v1/reviews/agreement`` — their agreement table.

Access: the owner and the keys it shared a consultation with may read it and its review; only the owner
may share it or attach a case; any other key gets 404, exactly as for an unknown id.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from evaluation.agreement import AgreementReport, agreement_report
from evaluation.reviews import (
    EXPORT_FORMATS,
    ExportFormat,
    GradedRubric,
    Review,
    ReviewInput,
    VerdictChange,
    export_lines,
    other_version,
    verdict_changes,
)
from serving.auth import KeyStore, Tenant, require_tenant
from serving.reviews import ReviewStore, RubricUnavailable
from serving.routes_common import ERROR_RESPONSES, ApiError, not_found, within
from serving.sessions import ConsultationStore, ConsultationSummary
from verifier.types import Case

router = APIRouter(tags=["reviews"], responses=ERROR_RESPONSES)
MAX_SHARES = 20


class CaseSummary(BaseModel):
    id: str
    title: str
    specialty: str
    chief_complaint: str
    patient: str  # "58-year-old man", ...


class CaseList(BaseModel):
    data: list[CaseSummary]


class CaseAttach(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str = Field(min_length=1, max_length=200)


class Shares(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reviewers: list[str] = Field(default_factory=list, max_length=MAX_SHARES,
                                 description="Labels of the reviewer keys (the server's key_labels).")


class ReviewPage(BaseModel):
    """What a reviewer sees: the verifier's rubric and verdicts (or why there is none) and their review."""

    consultation_id: str
    case_id: str | None
    reviewer: str
    access: str
    rubric: GradedRubric | None
    rubric_unavailable: str | None = None
    review: Review | None = None
    # The rubric version (e.g. "case@3") the caller's review was made against, when it has since been
    # regraded with the current one and not saved again; what the current rubric decides differently.
    regraded_from_version: str | None = None
    verdict_changes: list[VerdictChange] = Field(default_factory=list)


def _consultations(request: Request) -> ConsultationStore:
    return request.app.state.consultations


def _reviews(request: Request) -> ReviewStore:
    return request.app.state.reviews


def _case_summary(case: Case) -> CaseSummary:
    demo = case.demographics
    patient = demo.description or " ".join(p for p in (f"{demo.age}-year-old" if demo.age else "", demo.sex or "") if p)
    return CaseSummary(id=case.id, title=case.title or case.id, specialty=case.specialty,
                       chief_complaint=case.chief_complaint, patient=patient)


async def _readable(request: Request, tenant: Tenant, consultation_id: str) -> ConsultationSummary:
    found = await _consultations(request).summary(tenant.id, consultation_id, shared=True)
    if found is None:
        raise not_found(f"consultation {consultation_id!r}")
    return found


async def _owned(request: Request, tenant: Tenant, consultation_id: str) -> ConsultationSummary:
    found = await _readable(request, tenant, consultation_id)
    if found.access != "owner":
        raise ApiError(403, f"consultation {consultation_id!r} is shared with you read-only: only its owner may "
                       "change it", type="permission_error", code="read_only")
    return found


# --------------------------------------------------------------------------- cases
@router.get("/v1/cases", response_model=CaseList)
async def list_cases(request: Request, _: Tenant = Depends(require_tenant)) -> CaseList:
    return CaseList(data=[_case_summary(c) for c in _consultations(request).cases.values()])


@router.get("/v1/cases/{case_id}", response_model=Case)
async def get_case(case_id: str, request: Request, _: Tenant = Depends(require_tenant)) -> Case:
    """The whole case, for a clinician who plays its patient."""
    case = _consultations(request).cases.get(case_id)
    if case is None:
        raise not_found(f"case {case_id!r}")
    return case


@router.put("/v1/consultations/{consultation_id}/case", response_model=ConsultationSummary)
async def attach_case(consultation_id: str, body: CaseAttach, request: Request,
                      tenant: Tenant = Depends(require_tenant)) -> ConsultationSummary:
    found = await _owned(request, tenant, consultation_id)
    if found.clinician_role == "doctor":
        raise ApiError(409, "this consultation interviews a case's simulated patient: its case cannot change",
                       code="case_fixed", param="case_id")
    try:
        await _consultations(request).attach_case(consultation_id, body.case_id)
    except KeyError:
        raise ApiError(422, f"case_id: unknown case {body.case_id!r} (GET /v1/cases lists them)",
                       param="case_id", code="unknown_case") from None
    return found.model_copy(update={"case_id": body.case_id})


# --------------------------------------------------------------------------- sharing
@router.get("/v1/consultations/{consultation_id}/shares", response_model=Shares)
async def get_shares(consultation_id: str, request: Request, tenant: Tenant = Depends(require_tenant)) -> Shares:
    await _owned(request, tenant, consultation_id)
    keys: KeyStore = request.app.state.keys
    return Shares(reviewers=[keys.label(t) for t in await _consultations(request).shares(consultation_id)])


@router.put("/v1/consultations/{consultation_id}/shares", response_model=Shares)
async def set_shares(consultation_id: str, body: Shares, request: Request,
                     tenant: Tenant = Depends(require_tenant)) -> Shares:
    """Share the consultation read-only with these reviewer keys (replaces the list; [] unshares)."""
    await _owned(request, tenant, consultation_id)
    keys: KeyStore = request.app.state.keys
    tenants: list[str] = []
    for index, label in enumerate(body.reviewers):
        reviewer = keys.tenant_by_label(label)
        if reviewer is None:
            raise ApiError(422, f"reviewers.{index}: no API key is labelled {label!r}", param=f"reviewers.{index}",
                           code="unknown_reviewer")
        if reviewer == tenant.id:
            raise ApiError(422, f"reviewers.{index}: {label!r} is your own key", param=f"reviewers.{index}")
        tenants.append(reviewer)
    await _consultations(request).set_shares(consultation_id, sorted(set(tenants)))
    return Shares(reviewers=sorted(set(body.reviewers)))


# --------------------------------------------------------------------------- the review
async def _rubric(request: Request, found: ConsultationSummary) -> tuple[GradedRubric | None, str | None]:
    state = request.app.state
    backend = state.registry.get("medical")
    try:
        # Grading may ask the judge and the rubric model: admitted and timed like any model-backed request.
        async with state.admission.slot():
            rubric = await within(_reviews(request).rubric(
                found.id, found.case_id, backend.rubric_generator, backend.grader,
                has_rubric_model=state.rubric_client is not None), state.settings.request_timeout_s)
    except RubricUnavailable as exc:
        return None, str(exc)
    return rubric, None


async def _followed(request: Request, review: Review | None, tenant: Tenant, rubric: GradedRubric | None) -> Review | None:
    """The caller's review, regraded and carried onto the current rubric when it was made by an older version."""
    if review is None or review.rubric is None or rubric is None \
            or not other_version(review.rubric.generator, rubric.generator):
        return review
    state = request.app.state
    backend = state.registry.get("medical")
    async with state.admission.slot():
        return await within(_reviews(request).follow(
            review, tenant.id, rubric, backend.rubric_generator, backend.grader,
            has_rubric_model=state.rubric_client is not None), state.settings.request_timeout_s)


def _changes(review: Review | None) -> list[VerdictChange]:
    if review is None or review.regraded_from is None or review.rubric is None:
        return []
    before = next((e.rubric for e in reversed(review.earlier) if e.rubric.generator == review.regraded_from), None)
    return verdict_changes(before, review.rubric) if before is not None else []


@router.get("/v1/consultations/{consultation_id}/review", response_model=ReviewPage)
async def get_review(consultation_id: str, request: Request, tenant: Tenant = Depends(require_tenant)) -> ReviewPage:
    found = await _readable(request, tenant, consultation_id)
    rubric, unavailable = await _rubric(request, found)
    review = await _followed(request, await _reviews(request).get(found.id, tenant.id), tenant, rubric)
    return ReviewPage(consultation_id=found.id, case_id=found.case_id, reviewer=tenant.label, access=found.access,
                      rubric=rubric, rubric_unavailable=unavailable, review=review,
                      regraded_from_version=review.regraded_from if review is not None else None,
                      verdict_changes=_changes(review))


@router.put("/v1/consultations/{consultation_id}/review", response_model=Review)
async def put_review(consultation_id: str, body: ReviewInput, request: Request,
                     tenant: Tenant = Depends(require_tenant)) -> Review:
    """Save the caller's whole review of the consultation (replacing their last one)."""
    found = await _readable(request, tenant, consultation_id)
    rubric, _ = await _rubric(request, found)
    if body.rubric_messages is not None and rubric is not None and body.rubric_messages != rubric.messages:
        raise ApiError(409, f"the consultation has moved on since you opened the review (graded at "
                       f"{body.rubric_messages} messages, now {rubric.messages}): reopen it, check the verdicts, "
                       "save again", code="review_stale", param="rubric_messages")
    if body.rubric_generator is not None and rubric is not None and body.rubric_generator != rubric.generator:
        raise ApiError(409, f"the rubric has changed since you opened the review ({body.rubric_generator}, now "
                       f"{rubric.generator}): reopen it, check the regraded verdicts, save again",
                       code="review_stale", param="rubric_generator")
    try:
        return await _reviews(request).save(found.id, tenant.id, tenant.label, body, rubric)
    except ValueError as exc:
        raise ApiError(422, str(exc), param=str(exc).split(":", 1)[0], code="unknown_criterion") from exc


# --------------------------------------------------------------------------- exports and agreement
@router.get("/v1/reviews/export", response_class=Response,
            responses={200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                             "description": "One JSON record a line."}})
async def export_reviews(request: Request, format: ExportFormat = Query(
        "healthbench", description=f"One of {', '.join(EXPORT_FORMATS)}."),
        tenant: Tenant = Depends(require_tenant)) -> Response:
    reviews = _reviews(request)
    lines = export_lines(await reviews.reviewed(await reviews.visible(tenant.id)), format)
    return Response("".join(line + "\n" for line in lines), media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="reviews-{format}.jsonl"'})


@router.get("/v1/reviews/agreement", response_model=AgreementReport)
async def review_agreement(request: Request, tenant: Tenant = Depends(require_tenant)) -> AgreementReport:
    return agreement_report(await _reviews(request).visible(tenant.id))

