"""One error vocabulary for the servers: uac's exception tree as stable codes.

:data:`CODES` is the table of every error code the HTTP API and the MCP server
can return, with its HTTP status; ``docs/serving.md`` documents the same
table (a test keeps the two equal).  An exception maps to the code of its
nearest class in :data:`CLASS_CODES` (so a new subclass is never an unknown
code).  Messages are the library's adapter-neutral messages; the hint is
rendered in the adapter's words (:data:`HTTP`, :data:`MCP`), and the served
root is cut out of both, so no response names a path on the server.
"""

from __future__ import annotations

import math
from pathlib import Path

from .. import errors as e

#: code -> HTTP status; every code either adapter returns is here
CODES: dict[str, int] = {
    "input_error": 400,
    "invalid_name": 400,
    "unsafe_path": 400,
    "config_error": 400,
    "user_error": 400,
    "unauthenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "project_not_found": 404,
    "fact_not_found": 404,
    "session_not_found": 404,
    "domain_not_found": 404,
    "job_not_found": 404,
    "method_not_allowed": 405,
    "project_exists": 409,
    "session_conflict": 409,
    "format_version_error": 409,
    "request_too_large": 413,
    "validation_error": 422,
    "project_locked": 423,
    "internal_error": 500,
    "sandbox_error": 500,
    "compile_error": 500,
    "model_error": 502,
    "model_not_configured": 503,
    "store_error": 503,
    "server_busy": 503,
    "server_broken": 503,
    "job_interrupted": 500,
}

#: most specific class first; an exception takes the code of the first class it is an instance of
CLASS_CODES: list[tuple[type[e.UacError], str]] = [
    (e.ProjectNotFound, "project_not_found"),
    (e.NotAProject, "project_not_found"),
    (e.FactNotFound, "fact_not_found"),
    (e.SessionNotFound, "session_not_found"),
    (e.DomainNotFound, "domain_not_found"),
    (e.JobNotFound, "job_not_found"),
    (e.NotFound, "not_found"),
    (e.ProjectExists, "project_exists"),
    (e.SessionConflict, "session_conflict"),
    (e.UnsafePath, "unsafe_path"),
    (e.FormatVersionError, "format_version_error"),
    (e.AccessDenied, "forbidden"),
    (e.InvalidName, "invalid_name"),
    (e.InputError, "input_error"),
    (e.ConfigError, "config_error"),
    (e.UserError, "user_error"),
    (e.ProjectLocked, "project_locked"),
    (e.ServerBusy, "server_busy"),
    (e.ModelNotConfigured, "model_not_configured"),
    (e.ModelError, "model_error"),
    (e.StoreError, "store_error"),
    (e.SandboxError, "sandbox_error"),
    (e.CompileError, "compile_error"),
    (e.UacError, "internal_error"),
]

#: how long a client should wait before retrying a locked or busy call, when the error does not say
DEFAULT_RETRY_AFTER = 2.0


def _http_option(name: str) -> str:
    return f'"{name}"'


HTTP = e.Vocabulary(
    "http",
    option=_http_option,
    actions={
        "find_facts": "find fact ids with GET /v1/projects/{project}/facts or POST /v1/projects/{project}/search",
        "find_sessions": "find session ids with GET /v1/projects/{project}/facts (each fact names its session_id)",
        "doctor": "see POST /v1/projects/{project}/doctor",
        "repair": 'rebuild the indexes with POST /v1/projects/{project}/doctor and {"repair": true}',
        "init": "an admin creates projects with POST /v1/projects",
        "list_tokens": "see GET /v1/projects/{project}/tokens",
        "create_token": "ask the server's operator for new tokens",
        "probe_model": "ask the server's operator to probe the model endpoint",
        "ingest": "add conversations with POST /v1/projects/{project}/sessions",
    },
)

#: how hints send an agent to the ``search_memory`` tool, which the MCP server and the agent tools both offer
SEARCH_TOOL_ACTIONS = {
    "find_facts": "find facts and their ids with the search_memory tool",
    "find_sessions": "find session ids with the search_memory tool (each hit names its session_id)",
}


def tool_vocabulary(name: str, actions: dict[str, str]) -> e.Vocabulary:
    """How hints read to a model that calls tools: an argument by its own name, facts and
    sessions found with ``search_memory``, and the other ``actions`` in the words of whoever
    serves the tools."""
    return e.Vocabulary(name, option=lambda option: option, actions={**SEARCH_TOOL_ACTIONS, **actions})


MCP = tool_vocabulary(
    "mcp",
    {
        "doctor": "ask the server's operator to check the project",
        "repair": "ask the server's operator to repair the project's indexes",
        "init": "ask the server's operator to create it",
        "list_tokens": "ask the server's operator",
        "create_token": "ask the server's operator for new tokens",
        "probe_model": "ask the server's operator to probe the model endpoint",
        "ingest": "add conversations with the add_session tool",
    },
)


def code_for(exc: e.UacError) -> str:
    """``FactNotFound`` -> ``fact_not_found``; a class not listed takes its nearest listed parent's code."""
    for cls, code in CLASS_CODES:
        if isinstance(exc, cls):
            return code
    return "internal_error"


def status_for(exc: e.UacError) -> int:
    return CODES[code_for(exc)]


def retry_after(exc: e.UacError) -> str | None:
    """The ``Retry-After`` header (whole seconds) for a locked or busy call, else None."""
    if not isinstance(exc, (e.ProjectLocked, e.ServerBusy)):
        return None
    seconds = exc.retry_after if exc.retry_after is not None else DEFAULT_RETRY_AFTER
    return str(max(1, math.ceil(seconds)))


def scrub(text: str | None, root: Path | None) -> str | None:
    """``text`` without the served root: ``<root>/alice/memory`` becomes ``alice/memory``."""
    if text is None or root is None:
        return text
    base = str(root).rstrip("/")
    return text.replace(base + "/", "").replace(base, ".")


def envelope(code: str, message: str, *, hint: str | None = None) -> dict:
    if code not in CODES:
        raise ValueError(f"undocumented error code {code!r}: add it to uac.server.errors.CODES and docs/serving.md")
    error: dict = {"code": code, "message": message}
    if hint:
        error["hint"] = hint
    return {"error": error}


def envelope_for(exc: e.UacError, *, vocabulary: e.Vocabulary = HTTP, root: Path | None = None) -> dict:
    """The error body for ``exc``: its code, its neutral message and the hint in ``vocabulary``'s words."""
    return envelope(code_for(exc), scrub(exc.message, root) or "", hint=scrub(exc.hint_for(vocabulary), root))


def tool_error_text(exc: e.UacError, *, root: Path | None = None) -> str:
    """An MCP tool error: ``code: message hint``."""
    hint = scrub(exc.hint_for(MCP), root)
    message = scrub(exc.message, root)
    return f"{code_for(exc)}: {message}" + (f" {hint}" if hint else "")
