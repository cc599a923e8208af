"""Rendering the inspector's pages: the jinja2 environment, security headers, error pages.

The environment escapes every value (``autoescape=True``): text that came from
a conversation is shown as text, whatever it contains.  Every response of the
inspector carries :data:`SECURITY_HEADERS`: a Content-Security-Policy that
allows no script at all and only the inspector's own stylesheet, no framing,
no referrer, no caching of pages.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import urlencode

from starlette.responses import HTMLResponse, RedirectResponse, Response

from ... import errors as e
from ..errors import scrub, status_for

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

#: how the inspector names the operations hints refer to
UI = e.Vocabulary(
    "ui",
    option=lambda name: f"the {name.replace('_', ' ')} field",
    actions={
        "find_facts": "find fact ids on the Facts or Search page",
        "find_sessions": "find sessions through the Facts page (each fact links to its session)",
        "doctor": "see the health checks on the Overview page",
        "repair": "ask the server's operator to repair the project's indexes",
        "init": "ask the server's operator to create it",
        "list_tokens": "ask the server's operator",
        "create_token": "ask the server's operator for a new token",
        "probe_model": "ask the server's operator to probe the model endpoint",
        "ingest": "add conversations through the HTTP API or the command line",
    },
)


@lru_cache(maxsize=1)
def environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("uac.server.ui", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["qs"] = lambda **params: urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return env


def secure(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def page(name: str, *, status: int = 200, **context: Any) -> HTMLResponse:
    context.setdefault("signed", None)
    context.setdefault("active", "")
    context.setdefault("notice", None)
    html = environment().get_template(name).render(**context)
    return secure(HTMLResponse(html, status_code=status))  # type: ignore[return-value]


def redirect(url: str) -> RedirectResponse:
    return secure(RedirectResponse(url, status_code=303))  # type: ignore[return-value]


def error_page(status: int, title: str, message: str, *, hint: str | None = None, signed: Any = None) -> HTMLResponse:
    return page("error.html", status=status, title=title, message=message, hint=hint, signed=signed)


_TITLES = {400: "That input is not valid", 403: "Not allowed", 404: "Not found", 409: "Conflict",
           423: "The project is busy", 503: "Not available right now"}


def uac_error_page(exc: e.UacError, *, root: Any, signed: Any = None) -> HTMLResponse:
    """The page for a library error: its message and hint in the inspector's words, no server paths."""
    status = status_for(exc)
    message = scrub(exc.message, root) or ""
    hint = scrub(exc.hint_for(UI), root)
    title = _TITLES.get(status, "Something went wrong")
    response = error_page(status, title, message, hint=hint, signed=signed)
    if isinstance(exc, (e.ProjectLocked, e.ServerBusy)):
        response.headers["Retry-After"] = "2"
    return response
