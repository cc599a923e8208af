"""uac's exception tree mapped to HTTP status codes and stable error codes."""

from __future__ import annotations

import re

from .. import errors as e

#: most specific class first; the first ``isinstance`` match wins
_STATUS: list[tuple[type[e.UacError], int]] = [
    (e.ProjectNotFound, 404),
    (e.NotAProject, 404),
    (e.ProjectExists, 409),
    (e.SessionConflict, 409),
    (e.FormatVersionError, 409),
    (e.AccessDenied, 403),
    (e.InvalidName, 400),
    (e.InputError, 400),
    (e.ConfigError, 400),
    (e.UserError, 400),
    (e.ProjectLocked, 423),
    (e.ModelNotConfigured, 503),
    (e.TransientModelError, 503),
    (e.ModelError, 502),
    (e.StoreError, 503),
    (e.SandboxError, 500),
    (e.CompileError, 500),
    (e.MigrationError, 500),
    (e.RuntimeFailure, 500),
]


def status_for(exc: e.UacError) -> int:
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def code_for(exc: BaseException) -> str:
    """``ProjectNotFound`` -> ``project_not_found``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).lower()


def envelope(code: str, message: str, *, hint: str | None = None) -> dict:
    error: dict = {"code": code, "message": message}
    if hint:
        error["hint"] = hint
    return {"error": error}


def envelope_for(exc: e.UacError) -> dict:
    return envelope(code_for(exc), str(exc), hint=exc.hint)
