"""Rendering the inspector's pages: the jinja2 environment, security headers, error pages.

The environment escapes every value (``autoescape=True``): text that came from
a conversation is shown as text, whatever it contains.  Templates pass every
such text through the ``isolate`` filter (:func:`isolate`): it is wrapped in
``<bdi>``, so its writing direction cannot spill over the rest of the page,
and its control characters are shown as visible codes (:func:`visible`).
Every response of the inspector carries :data:`SECURITY_HEADERS`: a
Content-Security-Policy that allows no script at all and only the inspector's
own stylesheet, no framing, no referrer sent to other sites, no opener shared
with pages of other paths, no caching of pages.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ... import errors as e
from ..errors import scrub, status_for

_R = TypeVar("_R", bound=Response)

CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    # same-origin: the browser names this origin in a form's Origin and Referer (the sign-in
    # check reads them) and sends no referrer at all to other sites
    "Referrer-Policy": "same-origin",
    # a page of another path (e.g. /docs) that opens an inspector page gets no handle on it
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cache-Control": "no-store",
}

#: shown as visible codes: C0 and C1 controls but tab and newlines, DEL, and the explicit
#: direction marks that reorder text (embeddings, overrides and isolates, U+202A-E, U+2066-9)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _code(match: "re.Match[str]") -> str:
    return f"U+{ord(match.group()):04X}"


def visible(value: Any) -> str:
    """``value`` as plain text (a page's title) with each control character shown as ``[U+202E]``."""
    return _CONTROL.sub(lambda m: f"[{_code(m)}]", "" if value is None else str(value))


def isolate(value: Any) -> Markup:
    """Untrusted text for a page: escaped, its control characters shown as codes, in a ``<bdi>``."""
    text = str(escape("" if value is None else str(value)))
    text = _CONTROL.sub(lambda m: f'<span class="ctl" title="control character">{_code(m)}</span>', text)
    return Markup(f"<bdi>{text}</bdi>")


def anchor(turn_id: str) -> str:
    """The HTML id of a turn in a session page (any turn id, percent-encoded)."""
    return "t-" + quote(turn_id, safe="")


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
    env.globals["anchor"] = anchor
    env.filters["isolate"] = isolate
    env.filters["visible"] = visible
    return env


def secure(response: _R) -> _R:
    for name, value in SECURITY_HEADERS.items():
        response.headers[name] = value
    return response


def page(name: str, *, status: int = 200, **context: Any) -> HTMLResponse:
    context.setdefault("signed", None)
    context.setdefault("active", "")
    context.setdefault("notice", None)
    html = environment().get_template(name).render(**context)
    return secure(HTMLResponse(html, status_code=status))


def redirect(url: str) -> RedirectResponse:
    return secure(RedirectResponse(url, status_code=303))


def error_page(status: int, title: str, message: str, *, hint: str | None = None, signed: Any = None) -> HTMLResponse:
    return page("error.html", status=status, title=title, message=message, hint=hint, signed=signed)


_TITLES = {
    400: "That input is not valid",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    423: "The project is busy",
    503: "Not available right now",
}


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
