"""Signing in to the inspector: a project token kept in a cookie, CSRF tokens for forms.

* The sign-in form posts a project name and one of its tokens (the tokens of
  the HTTP API).  On success the pair is kept in the cookie :data:`COOKIE`:
  ``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page
  sends it), ``Path=/ui``, and ``Secure`` when the page came over HTTPS.  A
  token never appears in a URL.
* Every request checks the cookie's token against the project's token store
  again, so a revoked token signs its pages out at once.  A cookie that does
  not decode, or whose token is no longer valid, is "stale": the page asks to
  sign in again and the cookie is cleared.
* Every form carries a CSRF token: an HMAC of the project name keyed with the
  signed-in token (:func:`csrf_token`), so it needs no server-side state and
  cannot be computed without the token.  The sign-in form itself, before there
  is a token, uses a random value kept in a second cookie (double submit).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs

from ...names import PROJECT_NAME

COOKIE = "uac_ui"
LOGIN_COOKIE = "uac_ui_signin"
PATH = "/ui"
#: a signed-in cookie lives this long (seconds); signing in again renews it
MAX_AGE = 12 * 3600
#: the largest form body the inspector reads
MAX_FORM = 256 * 1024


@dataclass(frozen=True)
class SignedIn:
    project: str
    token: str

    @property
    def csrf(self) -> str:
        return csrf_token(self.project, self.token)


def csrf_token(project: str, token: str) -> str:
    return hmac.new(token.encode("utf-8"), f"uac-ui-csrf:{project}".encode("utf-8"), hashlib.sha256).hexdigest()


def encode_cookie(project: str, token: str) -> str:
    raw = json.dumps({"p": project, "t": token}, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cookie(value: str | None) -> SignedIn | None:
    """The (project, token) a cookie holds, or ``None`` for a missing or malformed cookie."""
    if not value or len(value) > 1024:
        return None
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    project, token = data.get("p"), data.get("t")
    if not PROJECT_NAME.ok(project) or not isinstance(token, str) or not token:
        return None
    return SignedIn(project, token)


def new_login_nonce() -> str:
    return secrets.token_urlsafe(24)


def same(a: str | None, b: str | None) -> bool:
    """Constant-time equality of two optional strings (``None`` never matches)."""
    if not a or not b:
        return False
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))


def parse_form(body: bytes) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body: the first value of each field."""
    text = body.decode("utf-8", errors="replace")
    return {k: v[0] for k, v in parse_qs(text, keep_blank_values=True, max_num_fields=200).items()}


def cookie_options(secure: bool, max_age: int = MAX_AGE) -> dict[str, object]:
    return {"httponly": True, "samesite": "strict", "path": PATH, "secure": secure, "max_age": max_age}
