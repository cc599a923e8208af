"""Bearer tokens for the servers, stored hashed.

A project's tokens live in ``<project>/auth/tokens.json`` -- outside ``.uac/``,
which holds only derived data that ``doctor --repair`` may rebuild.  The
workspace's admin tokens (they may create projects) live in
``<root>/.uac-admin/tokens.json``; the environment variable
``UAC_ADMIN_TOKEN`` is accepted as an admin token too.

A token reads ``uac_<id>_<secret>``: ``id`` (8 hex digits) names the token in
``list``/``revoke``; the 256-bit ``secret`` is never stored, only the sha256
of the whole token (a salt adds nothing to a random 256-bit secret).  Checks
compare digests in constant time.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, NotFound, StoreError
from ..filestamp import FileStamp
from ..fsutil import atomic_write_text

TOKEN_FILE = Path("auth") / "tokens.json"
ADMIN_DIR = ".uac-admin"
ADMIN_ENV = "UAC_ADMIN_TOKEN"

_TOKEN_RE = re.compile(r"^uac_([0-9a-f]{8})_([A-Za-z0-9_-]{20,})$")
_FORMAT = 1
_cache_guard = threading.Lock()
#: path -> (stamp of the file, parsed records): tokens are checked on every request
_cache: dict[str, tuple[FileStamp, list["TokenRecord"]]] = {}


def well_formed(token: str | None) -> bool:
    """Does ``token`` read ``uac_<id>_<secret>``?  (Checked before any file is read.)"""
    return token is not None and _TOKEN_RE.match(token) is not None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TokenRecord:
    id: str
    name: str
    sha256: str
    created: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "sha256": self.sha256, "created": self.created}

    def public(self) -> dict[str, Any]:
        """What ``token list`` shows: never the digest."""
        return {"id": self.id, "name": self.name, "created": self.created}


class TokenStore:
    """The hashed tokens in one JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @classmethod
    def for_project(cls, project_root: Path) -> "TokenStore":
        return cls(Path(project_root) / TOKEN_FILE)

    @classmethod
    def for_admin(cls, root: Path) -> "TokenStore":
        return cls(Path(root) / ADMIN_DIR / "tokens.json")

    # -- reading --------------------------------------------------------------

    def records(self) -> list[TokenRecord]:
        stamp = FileStamp.of(self.path)
        if not stamp.exists:
            return []
        key = str(self.path)
        with _cache_guard:
            cached = _cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        records = self._parse()
        with _cache_guard:
            _cache[key] = (stamp, records)
        return records

    def _parse(self) -> list[TokenRecord]:
        try:
            data = json.loads(self.path.read_text("utf-8"))
            return [
                TokenRecord(str(r["id"]), str(r.get("name", "")), str(r["sha256"]), str(r.get("created", "")))
                for r in data["tokens"]
            ]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(
                f"the token file {self.path} is unreadable ({exc}).",
                hint="Restore it from a copy, or delete it and {do:create_token}.",
            ) from None

    def verify(self, token: str | None) -> TokenRecord | None:
        """The record of ``token`` if it is valid for this store, else ``None``."""
        if not token:
            return None
        match = _TOKEN_RE.match(token)
        if match is None:
            return None
        digest = _digest(token)
        found = None
        for record in self.records():
            # compare every candidate so the time does not depend on which one matched
            if hmac.compare_digest(record.sha256, digest) and record.id == match.group(1):
                found = record
        return found

    def holds(self, token_id: str, sha256: str) -> bool:
        """True while the token with this id and digest is in the store (it has not been revoked)."""
        held = False
        for record in self.records():
            if hmac.compare_digest(record.sha256, sha256) and record.id == token_id:
                held = True
        return held

    # -- writing (the caller serialises writers, e.g. with the project lock) --

    def create(self, name: str = "") -> tuple[str, TokenRecord]:
        """Add a new token; returns ``(token, record)``.  The token is shown only now."""
        if len(name) > 100 or any(ord(c) < 32 for c in name):
            raise InputError("a token name must be at most 100 printable characters.")
        records = self.records()
        used = {r.id for r in records}
        token_id = secrets.token_hex(4)
        while token_id in used:
            token_id = secrets.token_hex(4)
        token = f"uac_{token_id}_{secrets.token_urlsafe(32)}"
        record = TokenRecord(
            token_id,
            name,
            _digest(token),
            _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        )
        self._write([*records, record])
        return token, record

    def revoke(self, token_id: str) -> TokenRecord:
        records = self.records()
        kept = [r for r in records if r.id != token_id]
        if len(kept) == len(records):
            known = ", ".join(r.id for r in records) or "none"
            raise NotFound(
                f"no token with id {token_id!r} in this project.", hint=f"Known token ids: {known}; {{do:list_tokens}}."
            )
        self._write(kept)
        return next(r for r in records if r.id == token_id)

    def _write(self, records: list[TokenRecord]) -> None:
        text = json.dumps({"format": _FORMAT, "tokens": [r.to_json() for r in records]}, indent=2) + "\n"
        atomic_write_text(self.path, text)  # 0600, in directories made 0700


def admin_token_valid(root: Path, token: str | None, env: Mapping[str, str] | None = None) -> bool:
    """True if ``token`` is the ``UAC_ADMIN_TOKEN`` value or an admin token of ``root``."""
    if not token:
        return False
    env = os.environ if env is None else env
    configured = env.get(ADMIN_ENV, "")
    if configured and hmac.compare_digest(_digest(configured), _digest(token)):
        return True
    return TokenStore.for_admin(root).verify(token) is not None
