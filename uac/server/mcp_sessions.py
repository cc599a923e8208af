"""MCP over HTTP: who may open a session, how many, and for how long.

:class:`SessionGate` is the ASGI application in front of the MCP package's
streamable HTTP app.  Every request to ``/mcp`` must carry a bearer token that
opens the connection's project -- the server's ``--project``, or the one the
client names in the endpoint URL (``/mcp?project=NAME``) -- checked from the
headers before anything else happens, so a session exists only for a valid
token.  The request then reaches the MCP app as that token's (the MCP package
lets only the credential that opened a session use it), and tool calls default
to the connection's project.

Sessions are bounded (:class:`SessionLimits`):

* per token and per project: opening one more closes that token's (or
  project's) least recently used session, so a client that reconnects without
  closing its sessions never locks itself or its project out;
* over the server: beyond ``total`` open sessions a new one is refused with
  ``503 server_busy`` and ``Retry-After`` (existing sessions are unaffected);
* in time: a session no request used for ``idle_seconds`` is closed, and so is
  every session of a token that stops opening its project (revoked, or its
  project deleted), at the next sweep (every ``sweep_seconds``) or at once when
  that token is refused.

A session is closed the way a client closes it: a ``DELETE`` with its session
id, handed to the MCP app as its owner.  ``GET /health`` answers the process's
health (no token), as ``GET /v1/health`` does for the HTTP API.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable
from urllib.parse import parse_qs

from ..errors import InvalidName, UacError
from .bounds import SessionLimits
from .errors import envelope, envelope_for

if TYPE_CHECKING:
    from .readiness import Readiness
    from .workspace import ServedWorkspace

log = logging.getLogger(__name__)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

SESSION_HEADER = b"mcp-session-id"
PROJECT_HEADER = b"x-uac-project"
ENDPOINT = "/mcp"


@dataclass
class _Session:
    id: str
    owner: str
    project: str
    token: str
    host: bytes
    last_used: float
    in_flight: int = 0
    closing: bool = False


@dataclass
class SessionTable:
    """The open sessions, least recently used first (kept by :class:`SessionGate`)."""

    limits: SessionLimits
    sessions: "OrderedDict[str, _Session]" = field(default_factory=OrderedDict)
    opening: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"opened": 0, "evicted": 0, "expired": 0, "revoked": 0})

    def of(self, *, owner: str | None = None, project: str | None = None) -> list[_Session]:
        return [
            s
            for s in self.sessions.values()
            if not s.closing and (owner is None or s.owner == owner) and (project is None or s.project == project)
        ]

    def __len__(self) -> int:
        return sum(1 for s in self.sessions.values() if not s.closing)


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


async def _answer(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    raw += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


class SessionGate:
    def __init__(
        self,
        app: Callable[..., Awaitable[None]],
        workspace: "ServedWorkspace",
        *,
        pinned: str | None = None,
        limits: SessionLimits | None = None,
        readiness: "Readiness | None" = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.workspace = workspace
        self.pinned = pinned
        self.limits = limits or SessionLimits()
        self.table = SessionTable(self.limits)
        self.readiness = readiness
        self._clock = clock
        self._sweeper: asyncio.Task[None] | None = None

    # -- the ASGI entry ------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path == "/health" and self.readiness is not None:
            await self._health(send)
            return
        if path.rstrip("/") != ENDPOINT:
            await self.app(scope, receive, send)
            return
        self._start_sweeper()
        try:
            project, token = self._admit(scope)
        except _Refused as refusal:
            await _answer(send, refusal.status, refusal.body, refusal.headers)
            return
        except UacError as exc:
            from .errors import status_for

            await _answer(send, status_for(exc), envelope_for(exc, root=self.workspace.root))
            return
        owner = f"{project}/{token.split('_')[1]}"
        scope = self._as_owner(scope, owner, token, project)
        session_id = (_header(scope, SESSION_HEADER) or b"").decode("latin-1")
        if session_id:
            await self._existing(session_id, owner, scope, receive, send)
        else:
            await self._opening(owner, project, token, scope, receive, send)

    # -- who may call --------------------------------------------------------------------

    def _admit(self, scope: Scope) -> tuple[str, str]:
        value = (_header(scope, b"authorization") or b"").decode("latin-1")
        scheme, _, token = value.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _Refused(
                401,
                envelope("unauthenticated", "send 'Authorization: Bearer <project token>'."),
                {"WWW-Authenticate": "Bearer"},
            )
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        named = (query.get("project") or [None])[0]
        if self.pinned is not None and named not in (None, self.pinned):
            raise InvalidName(f"this server serves only project {self.pinned!r}, not {named!r}.")
        project = self.pinned or named
        if not project:
            raise InvalidName(
                "name the project of this connection in the endpoint URL: /mcp?project=NAME.",
                hint="Use the URL http://HOST:PORT/mcp?project=NAME, with a token of that project.",
            )
        self.workspace.path_of(project)  # validates the name
        if not self.workspace.token_grants(project, token):
            self._close_where(lambda s: s.token == token, "revoked")
            raise _Refused(
                403, envelope("forbidden", f"the bearer token does not grant access to project {project!r}.")
            )
        return project, token

    def _as_owner(self, scope: Scope, owner: str, token: str, project: str) -> Scope:
        """The request as the token's: the MCP app binds sessions to this credential, and
        tools read the connection's project from a header only this gate sets."""
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        headers = [(k, v) for k, v in scope.get("headers", ()) if k != PROJECT_HEADER]
        headers.append((PROJECT_HEADER, project.encode()))
        user = AuthenticatedUser(AccessToken(token=token, client_id=owner, scopes=[]))
        return {**scope, "headers": headers, "user": user}

    # -- sessions ----------------------------------------------------------------------------

    async def _existing(self, session_id: str, owner: str, scope: Scope, receive: Receive, send: Send) -> None:
        session = self.table.sessions.get(session_id)
        if session is None or session.owner != owner or session.closing:
            await self.app(scope, receive, send)  # the MCP app answers 404 for sessions it does not know
            return
        session.in_flight += 1
        session.last_used = self._clock()
        self.table.sessions.move_to_end(session_id)
        try:
            await self.app(scope, receive, send)
        finally:
            session.in_flight -= 1
            session.last_used = self._clock()
            if scope.get("method") == "DELETE":
                self.table.sessions.pop(session_id, None)

    async def _opening(self, owner: str, project: str, token: str, scope: Scope, receive: Receive, send: Send) -> None:
        limits = self.limits
        for mine, cap in (
            (self.table.of(owner=owner), limits.per_token),
            (self.table.of(project=project), limits.per_project),
        ):
            for old in mine[: max(0, len(mine) - cap + 1)]:  # least recently used first
                self._close(old, "evicted")
        if len(self.table) + self.table.opening >= limits.total:
            from .errors import envelope as _envelope

            await _answer(
                send,
                503,
                _envelope(
                    "server_busy",
                    f"this server has {limits.total} MCP sessions open, its most.",
                    hint="Retry later, and close sessions you no longer use.",
                ),
                {"Retry-After": "5"},
            )
            return
        host = _header(scope, b"host") or b"127.0.0.1"
        pending = [True]  # counted among the sessions being opened until it is one, or fails

        async def watch(message: dict[str, Any]) -> None:
            # recorded before the client sees the answer: its next request already counts it
            if message["type"] == "http.response.start" and message["status"] < 400:
                value = dict(message.get("headers") or ()).get(SESSION_HEADER)
                if value:
                    session_id = value.decode("latin-1")
                    self.table.sessions[session_id] = _Session(session_id, owner, project, token, host, self._clock())
                    self.table.counts["opened"] += 1
                    self.table.opening -= 1
                    pending[0] = False
            await send(message)

        self.table.opening += 1
        try:
            await self.app(scope, receive, watch)
        finally:
            if pending[0]:
                self.table.opening -= 1

    def _close_where(self, match: Callable[[_Session], bool], why: str) -> int:
        chosen = [s for s in self.table.sessions.values() if not s.closing and match(s)]
        for session in chosen:
            self._close(session, why)
        return len(chosen)

    def _close(self, session: _Session, why: str) -> None:
        """Close ``session`` as its client would (a DELETE), in the background."""
        session.closing = True
        self.table.counts[why] = self.table.counts.get(why, 0) + 1
        log.info("closing MCP session %s of %s: %s", session.id[:8], session.owner, why)
        asyncio.get_running_loop().create_task(self._delete(session))

    async def _delete(self, session: _Session) -> None:
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": ENDPOINT,
            "raw_path": ENDPOINT.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", session.host), (SESSION_HEADER, session.id.encode())],
            "client": ("127.0.0.1", 0),
            "server": ("127.0.0.1", 0),
            "user": AuthenticatedUser(AccessToken(token=session.token, client_id=session.owner, scopes=[])),
        }

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(_message: dict[str, Any]) -> None:
            return None

        try:
            await self.app(scope, receive, send)
        except Exception:  # the session may have ended by itself meanwhile
            log.debug("closing MCP session %s", session.id[:8], exc_info=True)
        finally:
            self.table.sessions.pop(session.id, None)

    # -- the sweep -------------------------------------------------------------------------------

    def _start_sweeper(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
        period = min(self.limits.sweep_seconds, self.limits.idle_seconds / 2)
        while True:
            await asyncio.sleep(period)
            self.sweep()

    def sweep(self) -> None:
        """Close idle sessions and the sessions of tokens that no longer open their project."""
        cutoff = self._clock() - self.limits.idle_seconds
        self._close_where(lambda s: s.in_flight == 0 and s.last_used <= cutoff, "expired")
        verdict: dict[tuple[str, str], bool] = {}
        for session in self.table.of():
            key = (session.project, session.token)
            if key not in verdict:
                verdict[key] = self.workspace.token_grants(session.project, session.token)
            if not verdict[key]:
                self._close(session, "revoked")

    async def _health(self, send: Send) -> None:
        from .._version import __version__

        assert self.readiness is not None
        problems = await self.readiness.check_async()
        body: dict[str, Any] = {
            "status": "broken" if problems else "ok",
            "version": __version__,
            "sessions": len(self.table),
            "checks": {n: problems.get(n, "ok") for n in ("imports", "search")},
        }
        if problems:
            error = envelope(
                "server_broken",
                "this server process cannot serve: " + "; ".join(problems.values()),
                hint="Restart the server; if it stays broken, see its log.",
            )
            error["error"]["details"] = body
            body = error
        await _answer(send, 503 if problems else 200, body)


class _Refused(Exception):
    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers
