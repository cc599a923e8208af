"""Signing in to the inspector: the session cookie, the origin check, form bodies.

* The sign-in form posts a project name and one of its tokens (the tokens of
  the HTTP API).  On success the server makes a session
  (:mod:`~uac.server.ui.sessions`) and the cookie :data:`COOKIE` holds only its
  random id: ``HttpOnly`` (no script reads it), ``SameSite=Strict``,
  ``Path=/ui`` (sent to the inspector's pages only, not to ``/v1`` or
  ``/docs``), and ``Secure`` when the page came over HTTPS.  A token is never
  kept in a cookie and never appears in a URL.
* ``SameSite`` does not tell ports apart: a page served from another port of
  the same host is "same site" and its forms do carry the cookie.  So every
  ``POST`` of the inspector must also come from the inspector's own origin
  (:func:`from_own_origin`), and every form carries a CSRF value: the
  session's own random value, or, for the sign-in form, a one-time value the
  server issued with the form (checked against its store and against the
  second cookie :data:`LOGIN_COOKIE`).
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request
from starlette.responses import Response

COOKIE = "uac_ui"
LOGIN_COOKIE = "uac_ui_signin"
PATH = "/ui"
#: the largest form body the inspector reads
MAX_FORM = 256 * 1024

_DEFAULT_PORTS = {"http": 80, "https": 443}


def same(a: str | None, b: str | None) -> bool:
    """Constant-time equality of two optional strings (``None`` never matches)."""
    if not a or not b:
        return False
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def parse_form(body: bytes) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body: the first value of each field."""
    text = body.decode("utf-8", errors="replace")
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True, max_num_fields=200).items()}


def cookie_options(secure: bool, max_age: int) -> dict[str, Any]:
    return {"httponly": True, "samesite": "strict", "path": PATH, "secure": secure, "max_age": max_age}


def clear_cookie(response: Response, name: str, secure: bool) -> None:
    """Tell the browser to drop cookie ``name`` (set with :func:`cookie_options`)."""
    response.delete_cookie(name, path=PATH, secure=secure, httponly=True, samesite="strict")


def _origin(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a URL, the port filled in; ``None`` if it has none."""
    try:
        parts = urlsplit(url)
        scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if not scheme or not host or port is None:
        return None
    return scheme, host, port


def own_origin(request: Request) -> tuple[str, str, int] | None:
    """The origin this request was sent to: its scheme and its ``Host``."""
    return _origin(f"{request.url.scheme}://{request.url.netloc}/")


def from_own_origin(request: Request) -> bool:
    """True if the browser says the request comes from a page of this very origin.

    ``Sec-Fetch-Site`` (set by the browser, never by a page) decides when it is
    present: only ``same-origin`` passes.  Otherwise ``Origin`` must name this
    scheme, host and port; without ``Origin``, so must ``Referer``.  A request
    with none of the three is refused: browsers send at least one with a form."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site.strip().lower() == "same-origin"
    own = own_origin(request)
    origin = request.headers.get("origin")
    if origin is not None:
        return own is not None and _origin(origin) == own
    referer = request.headers.get("referer")
    if referer:
        return own is not None and _origin(referer) == own
    return False
