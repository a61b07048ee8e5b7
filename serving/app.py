"""``create_app()``: the FastAPI composition root.

The lifespan builds the services and puts them on ``app.state``: ``settings``, ``client`` (the
policy, a ``ChatClient``), ``judge`` and ``rubric_client`` (the verifier's own models: None when not
configured, never the policy unless configured to be the same model), ``keys`` (hashed API keys),
``admission`` (the bounded queue), ``metrics``, ``consultations`` (the SQLite-backed store, with the
project's cases), ``reviews`` (clinician reviews in the same file) and
``registry`` (verifier backends). Every error, from a route, validation or the framework, leaves as
one ``ErrorBody``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from patient_sim.cases import project_cases
from policy.clients import build_client
from policy.graders import build_registry
from serving import routes_chat, routes_consultations, routes_reviews, routes_verify
from serving.auth import KeyStore, Tenant, require_tenant
from serving.metrics import CONTENT_TYPE, Metrics, MetricsMiddleware
from serving.reviews import ReviewStore
from serving.routes_common import Admission, ApiError, ErrorBody, ErrorDetail, validation_error
from serving.sessions import ConsultationStore
from serving.settings import Settings
from verifier.llm import ChatClient
from verifier.registry import Registry

logger = logging.getLogger(__name__)
STATIC_DIR = Path(__file__).parent / "static"


def _error(status: int, message: str, type: str, *, param: str | None = None, code: str | None = None,
           headers: dict[str, str] | None = None) -> JSONResponse:
    body = ErrorBody(error=ErrorDetail(message=message, type=type, param=param, code=code))
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


def _validation_response(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    content_type = request.headers.get("content-type", "")
    if request.method in ("POST", "PUT", "PATCH") and "json" not in content_type and any(
        tuple(e.get("loc", ())) == ("body",) for e in errors
    ):
        return _error(415 if content_type else 422,
                      f"the body must be JSON: send the header 'Content-Type: application/json' "
                      f"(got {content_type or 'none'!r})", "invalid_request_error", code="unsupported_media_type")
    for error in errors:
        if error.get("type") == "json_invalid":
            detail = (error.get("ctx") or {}).get("error", "invalid JSON")
            position = error["loc"][-1] if error.get("loc") else "?"
            return _error(400, f"malformed JSON body: {detail} at character {position}", "invalid_request_error",
                          code="json_invalid")
    invalid = validation_error(errors)
    return JSONResponse(invalid.body.model_dump(), status_code=invalid.status)


class BodyLimitMiddleware:
    """413 for bodies over ``limit`` bytes, by Content-Length or by counting a chunked body."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._reject(scope, receive, send)
            return
        if declared is not None:
            await self.app(scope, receive, send)
            return
        # No length given (chunked): buffer up to the limit, then replay.
        chunks: list[dict] = []
        total = 0
        while True:
            message = await receive()
            chunks.append(message)
            if message["type"] != "http.request":
                break
            total += len(message.get("body", b""))
            if total > self.limit:
                await self._reject(scope, receive, send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> dict:
            return chunks.pop(0) if chunks else await receive()

        await self.app(scope, replay, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = _error(413, f"request body larger than the limit of {self.limit} bytes", "invalid_request_error",
                          code="body_too_large")
        await response(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    *,
    client: ChatClient | None = None,
    judge: ChatClient | None = None,
    rubric_client: ChatClient | None = None,
    registry: Registry | None = None,
) -> FastAPI:
    """The app. ``client``, ``judge``, ``rubric_client`` and ``registry`` are built from ``settings`` when
    not given (the CLI path); the judge and the rubric model only when settings name them."""
    settings = settings or Settings()
    # The judge and the rubric model share the policy's client (one copy, one batch queue) when they
    # are the same local model: build_client caches by spec.
    if client is None:
        client = build_client(settings.policy())
    if judge is None and (judge_spec := settings.judge()) is not None:
        judge = build_client(judge_spec)
    if rubric_client is None and (rubric_spec := settings.rubric()) is not None:
        rubric_client = build_client(rubric_spec)
    keys = KeyStore(settings.key_hashes(), settings.labels_by_digest())  # a label naming no key fails here
    admission = Admission(settings.queue_size, settings.retry_after_s)
    metrics = Metrics(admission, client)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.client = client
        app.state.judge = judge
        app.state.rubric_client = rubric_client
        app.state.keys = keys
        app.state.admission = admission
        app.state.metrics = metrics
        app.state.started = int(time.time())
        app.state.registry = registry if registry is not None else build_registry(
            judge, rubric_client=rubric_client, gui_allowed_urls=settings.gui_allowed_urls)
        db_path = settings.resolved_db_path()
        app.state.consultations = await ConsultationStore.open(db_path, client, history_chars=settings.history_chars,
                                                               cases=project_cases())
        app.state.reviews = await ReviewStore.open(app.state.consultations)
        if not len(app.state.keys):
            logger.warning("no API keys configured: every request except /healthz will get 401")
        logger.info("serving %s; judge %s; rubric model %s; consultations in %s", client.model,
                    judge.model if judge else "none", rubric_client.model if rubric_client else "none", db_path)
        try:
            yield
        finally:
            await app.state.consultations.close()

    app = FastAPI(title="medverifier", version="0.1.0", lifespan=lifespan)
    app.add_middleware(BodyLimitMiddleware, limit=settings.max_body_bytes)
    app.add_middleware(MetricsMiddleware, metrics=metrics)

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(exc.body.model_dump(), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_response(request, exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        kind = "not_found_error" if exc.status_code == 404 else "invalid_request_error"
        return _error(exc.status_code, str(exc.detail), kind, headers=dict(exc.headers) if exc.headers else None)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error")
        return _error(500, f"internal error: {type(exc).__name__}", "server_error")

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok", "model": client.model}

    @app.get("/metrics", tags=["ops"], response_class=Response,
             responses={200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}},
                              "description": "Prometheus' text format."}})
    async def prometheus(_: Tenant = Depends(require_tenant)) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    app.include_router(routes_consultations.router)
    app.include_router(routes_reviews.router)
    app.include_router(routes_chat.router)
    app.include_router(routes_verify.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
