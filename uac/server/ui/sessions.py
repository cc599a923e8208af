"""The inspector's sign-ins, kept by the server: the cookie holds only a random session id.

A session is made at sign-in from a project token and remembers which token
it came from (its id and digest, never the token itself).  It is no API
credential: the ``/v1`` routes read only ``Authorization: Bearer``, and a
session id has neither the shape nor the digest of a token.

* The id is 256 random bits (:func:`secrets.token_urlsafe`); the store keys
  sessions by the id's sha256, so what it holds cannot be replayed as a cookie.
* A session ends :data:`IDLE_SECONDS` after its last request, and
  :data:`ABSOLUTE_SECONDS` after sign-in whatever happens; at sign-out; and
  at the first request after its token was revoked (the pages check the token
  store on every request).
* The store is bounded: at most :data:`MAX_PER_TOKEN` sessions per token,
  :data:`MAX_PER_PROJECT` per project and :data:`MAX_SESSIONS` in all; a new
  sign-in past a bound ends the least recently used session within it.
* Sessions live in the memory of one server process: a restart signs everyone
  out, and a sign-in on one server is unknown to another serving the same root.

:class:`NonceStore` keeps the sign-in form's one-time values the same way: a
sign-in is accepted only with a value this server put in a form it rendered.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Generic, TypeVar

#: a session ends this long after its last request (seconds) ...
IDLE_SECONDS = 3600
#: ... and this long after sign-in, however busy
ABSOLUTE_SECONDS = 12 * 3600
#: bounds on the sessions kept: in all, per project, per token
MAX_SESSIONS = 10_000
MAX_PER_PROJECT = 64
MAX_PER_TOKEN = 16
#: a sign-in form can be sent this long after it was rendered (seconds)
NONCE_SECONDS = 1800
#: sign-in forms outstanding at once (the oldest is dropped past it)
MAX_NONCES = 10_000
#: longer cookie values are not looked up at all
_MAX_ID = 128

V = TypeVar("V")


def _key(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class _SecretTable(Generic[V]):
    """Values kept under the sha256 of a secret handed out to a browser, oldest (or least
    recently used) first; safe to use from any thread (hold ``_lock`` to touch ``_entries``)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[str, V] = OrderedDict()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @staticmethod
    def _lookup(secret: str | None) -> str | None:
        """The key a secret a browser sent back is kept under; ``None`` for none, or one too long to be ours."""
        return None if not secret or len(secret) > _MAX_ID else _key(secret)


@dataclass(frozen=True)
class SessionLimits:
    idle_seconds: float = IDLE_SECONDS
    absolute_seconds: float = ABSOLUTE_SECONDS
    max_sessions: int = MAX_SESSIONS
    max_per_project: int = MAX_PER_PROJECT
    max_per_token: int = MAX_PER_TOKEN


@dataclass
class Session:
    """One sign-in: the project it opens, the token it came from, its forms' CSRF value."""

    project: str
    token_id: str
    #: the sha256 the token store keeps for that token: a revoked token no longer has it
    token_sha256: str
    csrf: str
    created: float
    last_seen: float
    #: the key the store keeps it under (sha256 of the cookie's id)
    key: str = field(repr=False, default="")


class SessionStore(_SecretTable[Session]):
    """The signed-in sessions of one server, in memory, bounded (least recently used first);
    safe to use from any thread."""

    def __init__(self, limits: SessionLimits | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(clock)
        self.limits = limits or SessionLimits()

    def create(self, project: str, token_id: str, token_sha256: str) -> str:
        """A new session for ``project`` made from token ``token_id``; returns the id for the cookie."""
        session_id = secrets.token_urlsafe(32)
        now = self._clock()
        session = Session(project, token_id, token_sha256, secrets.token_hex(32), now, now, _key(session_id))
        with self._lock:
            self._drop_expired(now)
            self._make_room(lambda s: s.project == project and s.token_id == token_id, self.limits.max_per_token)
            self._make_room(lambda s: s.project == project, self.limits.max_per_project)
            self._make_room(lambda s: True, self.limits.max_sessions)
            self._entries[session.key] = session
        return session_id

    def get(self, session_id: str | None) -> Session | None:
        """The live session with this id (its idle time starts again), else ``None``."""
        key = self._lookup(session_id)
        if key is None:
            return None
        now = self._clock()
        with self._lock:
            session = self._entries.get(key)
            if session is None:
                return None
            if self._expired(session, now):
                del self._entries[key]
                return None
            session.last_seen = now
            self._entries.move_to_end(key)
            return session

    def end(self, session: Session | str | None) -> None:
        """End a session (given itself or its id); nothing happens if it is gone already."""
        if session is None:
            return
        key = session.key if isinstance(session, Session) else _key(session)
        with self._lock:
            self._entries.pop(key, None)

    def end_token(self, project: str, token_id: str) -> int:
        """End every session made from token ``token_id`` of ``project``; returns how many."""
        with self._lock:
            keys = [k for k, s in self._entries.items() if s.project == project and s.token_id == token_id]
            for key in keys:
                del self._entries[key]
        return len(keys)

    # -- under the lock -----------------------------------------------------------

    def _expired(self, session: Session, now: float) -> bool:
        return (
            now - session.last_seen >= self.limits.idle_seconds or now - session.created >= self.limits.absolute_seconds
        )

    def _drop_expired(self, now: float) -> None:
        for key in [k for k, s in self._entries.items() if self._expired(s, now)]:
            del self._entries[key]

    def _make_room(self, within: Callable[[Session], bool], bound: int) -> None:
        """End the least recently used sessions ``within`` a group until one more fits ``bound``."""
        keys = [k for k, s in self._entries.items() if within(s)]
        for key in keys[: max(0, len(keys) - bound + 1)]:
            del self._entries[key]


class NonceStore(_SecretTable[float]):
    """One-time values for the sign-in form: issued when the form is rendered, used up when it is sent."""

    def __init__(
        self, seconds: float = NONCE_SECONDS, limit: int = MAX_NONCES, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(clock)  # key -> time issued, oldest first
        self.seconds = seconds
        self.limit = limit

    def issue(self) -> str:
        nonce = secrets.token_urlsafe(24)
        now = self._clock()
        with self._lock:
            while self._entries and (
                len(self._entries) >= self.limit or now - next(iter(self._entries.values())) >= self.seconds
            ):
                self._entries.popitem(last=False)
            self._entries[_key(nonce)] = now
        return nonce

    def redeem(self, nonce: str | None) -> bool:
        """True once for a value this store issued less than :attr:`seconds` ago."""
        key = self._lookup(nonce)
        if key is None:
            return False
        with self._lock:
            issued = self._entries.pop(key, None)
        return issued is not None and self._clock() - issued < self.seconds


@dataclass
class InspectorState:
    """What the inspector keeps for one app: its sessions and its sign-in forms."""

    sessions: SessionStore = field(default_factory=SessionStore)
    nonces: NonceStore = field(default_factory=NonceStore)
