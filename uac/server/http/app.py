"""The FastAPI application: :func:`create_app` serves every project under a root."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator, Callable

from ..._version import __version__
from ...errors import UacError
from ..admission import ServerLimits
from ..errors import CODES, envelope, envelope_for, retry_after, status_for
from ..extras import require_http
from ..readiness import Readiness
from ..workspace import ServedWorkspace
from .limits import DEFAULT_MAX_BODY

if TYPE_CHECKING:
    from fastapi import FastAPI

    from ...llm import LLMClient
    from ...project import Project

log = logging.getLogger(__name__)

DESCRIPTION = """\
The HTTP API of uac (User as Code): add sessions, compile, search, ask and run
sandboxed Python over the user projects under one root directory.

A web inspector for people is served at `/ui` (sign in with a project token).

Every project route needs `Authorization: Bearer <token>` with a token of that
project (`uac token create PROJECT`); creating projects needs an admin token.
Errors are `{"error": {"code", "message", "hint"}}` with a matching status code;
a locked project (423) or a busy server (503) also sends `Retry-After`.
"""

#: status -> code for errors raised by the framework itself (routing, body parsing)
_FRAMEWORK_CODES = {
    400: "input_error",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "request_too_large",
    422: "validation_error",
}


def create_app(
    root: str | Path,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    job_workers: int = 2,
    llm_factory: "Callable[[Project], LLMClient | None] | None" = None,
    limits: ServerLimits | None = None,
    readiness: Readiness | None = None,
) -> "FastAPI":
    """Build the app serving every user project directly under ``root``.

    ``llm_factory`` chooses each project's model (default: the project's
    ``uac.toml`` and environment, as :class:`~uac.UserMemory` does);
    ``limits`` bounds concurrent work (:class:`~uac.server.admission.ServerLimits`);
    ``readiness`` warms the process up before its first request and answers
    ``/v1/health`` (:class:`~uac.server.readiness.Readiness`).
    """
    require_http()
    from fastapi import FastAPI

    from ..ui.pages import router as ui_router
    from ..ui.sessions import InspectorState
    from .docs import router as docs_router
    from .jobs import JobRunner, JobStore
    from .limits import BodyGate
    from .routes import router

    workspace = ServedWorkspace(root, llm_factory=llm_factory, limits=limits)
    jobs = JobRunner(job_workers, JobStore(workspace.root), max_queued=workspace.limits.queued_per_project)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        import anyio.to_thread

        # one bounded pool for the library calls and the framework's sync routes alike
        anyio.to_thread.current_default_thread_limiter().total_tokens = workspace.limits.threads
        # before the first request: a burst right after start must find everything imported
        await anyio.to_thread.run_sync(app.state.readiness.warm_up)
        yield
        jobs.shutdown()
        workspace.close()

    # the docs pages are served from local files under a strict policy (.docs), not from a CDN
    app = FastAPI(
        title="uac", version=__version__, description=DESCRIPTION, lifespan=lifespan, docs_url=None, redoc_url=None
    )
    app.state.workspace = workspace
    app.state.jobs = jobs
    app.state.inspector = InspectorState()
    app.state.readiness = readiness or Readiness()
    app.include_router(router)
    app.include_router(ui_router)
    app.include_router(docs_router)
    app.add_middleware(BodyGate, workspace=workspace, max_bytes=max_body_bytes)

    _add_error_handlers(app, workspace)
    return app


def _add_error_handlers(app: "FastAPI", workspace: ServedWorkspace) -> None:
    """Every error a request can end in, as the one envelope ``{"error": {"code", "message", "hint"}}``."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from .auth import ApiError

    @app.exception_handler(UacError)
    async def _uac_error(request: Request, exc: UacError) -> JSONResponse:
        wait = retry_after(exc)
        body = envelope_for(exc, root=workspace.root)
        project = request.path_params.get("project")
        if project and "hint" in body["error"]:
            body["error"]["hint"] = body["error"]["hint"].replace("{project}", project)
        return JSONResponse(
            body,
            status_code=status_for(exc),
            headers={"Retry-After": wait} if wait else None,
        )

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(envelope(exc.code, exc.message), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error.get("loc", ()))
            problems.append(f"{where}: {error.get('msg', 'invalid')}")
        body = envelope("validation_error", "the request is invalid: " + "; ".join(problems) + ".")
        body["error"]["details"] = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")} for e in exc.errors()
        ]
        return JSONResponse(body, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code, status = _FRAMEWORK_CODES.get(exc.status_code), exc.status_code
        if code is None:  # not raised by uac's routes; keep the vocabulary closed
            log.error("unexpected HTTP error %s: %s", exc.status_code, exc.detail)
            code = "input_error" if 400 <= exc.status_code < 500 else "internal_error"
            status = CODES[code]
        message = str(exc.detail)
        if exc.status_code == 404 and message == "Not Found":
            message = "no such route; the API is under /v1 (see /docs)."
        elif exc.status_code == 405:
            message = "this route does not take that method (see /docs)."
        return JSONResponse(envelope(code, message), status_code=status, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error in a request")
        return JSONResponse(
            envelope("internal_error", f"the server failed unexpectedly ({type(exc).__name__}); see its log."),
            status_code=500,
        )
