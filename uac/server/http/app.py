"""The FastAPI application: :func:`create_app` serves every project under a root."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, AsyncIterator, Callable

from ..._version import __version__
from ...errors import UacError
from ..errors import envelope, envelope_for, status_for
from ..extras import require_http
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

Every project route needs `Authorization: Bearer <token>` with a token of that
project (`uac token create PROJECT`); creating projects needs an admin token.
Errors are `{"error": {"code", "message"}}` with a matching status code.
"""


def create_app(
    root: str | Path,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    job_workers: int = 2,
    llm_factory: "Callable[[Project], LLMClient | None] | None" = None,
) -> "FastAPI":
    """Build the app serving every user project directly under ``root``.

    ``llm_factory`` chooses each project's model (default: the project's
    ``uac.toml`` and environment, as :class:`~uac.UserMemory` does).
    """
    require_http()
    from fastapi import FastAPI, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException

    from .auth import ApiError
    from .jobs import JobRunner
    from .limits import BodySizeLimit
    from .routes import router

    workspace = ServedWorkspace(root, llm_factory=llm_factory)
    jobs = JobRunner(job_workers)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        jobs.shutdown()

    app = FastAPI(title="uac", version=__version__, description=DESCRIPTION, lifespan=lifespan)
    app.state.workspace = workspace
    app.state.jobs = jobs
    app.include_router(router)
    app.add_middleware(BodySizeLimit, max_bytes=max_body_bytes)

    @app.exception_handler(UacError)
    async def _uac_error(_request: Request, exc: UacError) -> JSONResponse:
        return JSONResponse(envelope_for(exc), status_code=status_for(exc))

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
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            envelope(code, str(exc.detail)), status_code=exc.status_code, headers=getattr(exc, "headers", None)
        )

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error in a request")
        return JSONResponse(
            envelope("internal_error", f"the server failed unexpectedly ({type(exc).__name__}); see its log."),
            status_code=500,
        )

    return app
