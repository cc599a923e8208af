"""Request bodies: read only once the request is authenticated, within a memory budget.

:class:`BodyGate` is an ASGI middleware in front of the routes.  For a request
that carries a body it decides from the headers alone, before a byte of the
body is read:

1. who may send it: a route under ``/v1/projects/{project}`` needs a bearer
   token of that project, ``/v1/projects`` an admin token.  Anything else is
   refused at once with the routes' own 401/403 (400 for a bad project name)
   and ``Connection: close``; the body stays unread in the socket, so a flood of
   token-less uploads costs the server no memory.
2. how big it may be: a declared ``Content-Length`` over the limit is a 413
   at once; a body without one (chunked) is counted while it streams and
   refused with the same 413 as soon as it passes the limit.
3. whether there is room: the body's size (the limit, for a chunked body) is
   reserved in the server's budget for bodies in memory
   (:class:`~uac.server.admission.ByteBudget`: over all requests, and a share
   per project) and held until the response is done.  A request that finds no
   room waits for it in the event loop up to ``--busy-wait``, then gets
   ``503 server_busy`` with ``Retry-After``.

Inspector forms (``/ui``) carry their credentials in the form or a cookie the
inspector checks; their bodies are read up to the inspector's form limit only
(it answers larger forms itself), within the same budget.  Other paths take no
body: it is handed on unread, with the size limit enforced if a route reads it.

A body within every bound is read here and handed to the application in one
piece (reading it here keeps an overflow out of the framework's own body
parsing, which would report it as a bad body).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from ...errors import InvalidName, UacError
from ..errors import envelope, envelope_for, retry_after, status_for

if TYPE_CHECKING:
    from ..workspace import ServedWorkspace

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

DEFAULT_MAX_BODY = 16 * 1024 * 1024


def _message(limit: int) -> str:
    return (
        f"the request body is larger than the server's limit of {limit:,} bytes. "
        "Send smaller requests (split the sessions); the server's operator sets the limit."
    )


async def _answer(send: Send, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
    """A JSON answer that closes the connection (the body, if any, was not read)."""
    data = json.dumps(body).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
        (b"connection", b"close"),
    ]
    raw += [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


async def _refuse(send: Send, limit: int) -> None:
    await _answer(send, 413, envelope("request_too_large", _message(limit)))


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def bearer_of(scope: Scope) -> str | None:
    """The bearer token of the request's ``Authorization`` header, or None."""
    value = (_header(scope, b"authorization") or b"").decode("latin-1")
    scheme, _, token = value.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class BodyGate:
    def __init__(
        self, app: Callable[..., Awaitable[None]], workspace: "ServedWorkspace", max_bytes: int = DEFAULT_MAX_BODY
    ) -> None:
        from ..ui.signin import MAX_FORM
        from . import auth

        self._auth = auth  # the routes' own refusals (imported here: it needs the server extra)
        self.app = app
        self.workspace = workspace
        self.max_bytes = max_bytes
        self.form_bytes = min(MAX_FORM, max_bytes)
        self.budget = workspace.admission.bodies
        # one body of the largest size always fits a project's share
        self.budget.per_key = min(self.budget.total, max(self.budget.per_key, max_bytes))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        chunked = b"chunked" in (_header(scope, b"transfer-encoding") or b"").lower()
        if declared is not None and (not declared.strip().isdigit() or int(declared) > self.max_bytes):
            await _refuse(send, self.max_bytes)
            return
        size = int(declared) if declared is not None else (self.max_bytes if chunked else 0)
        if size == 0 and not chunked:
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        key: str | None
        if path.startswith("/ui"):
            key, limit, cap = "inspector", self.form_bytes + 1, True
        else:
            try:
                key = self._admitted(path, scope)
            except UacError as exc:
                await _answer(send, status_for(exc), envelope_for(exc, root=self.workspace.root))
                return
            except self._auth.ApiError as refusal:
                await _answer(send, refusal.status, envelope(refusal.code, refusal.message), refusal.headers)
                return
            if key is None:  # a route that takes no body: hand it on unread, still bounded
                try:
                    await self.app(scope, _bounded(receive, self.max_bytes), send)
                except _TooLarge:
                    await _refuse(send, self.max_bytes)
                return
            limit, cap = self.max_bytes, False
        try:
            async with self.budget.reserve(key, min(size, limit), self.workspace.limits.busy_wait_seconds):
                body = await _read(receive, limit, cap)
                if body is None:
                    if not cap:
                        await _refuse(send, limit)
                    return  # refused, or the client went away before its body was complete
                await self.app(scope, _replay(body, receive), send)
        except UacError as exc:  # no room for the body in time
            wait = retry_after(exc)
            await _answer(
                send,
                status_for(exc),
                envelope_for(exc, root=self.workspace.root),
                {"Retry-After": wait} if wait else None,
            )

    def _admitted(self, path: str, scope: Scope) -> str | None:
        """The budget key of an authenticated body-carrying API request, None for a path
        that takes no body; raises the route's own refusal otherwise."""
        auth = self._auth
        parts = path.split("/")
        if len(parts) < 3 or parts[1] != "v1" or parts[2] != "projects":
            return None
        token = bearer_of(scope)
        if token is None:
            raise auth.unauthenticated()
        if len(parts) == 3 or (len(parts) == 4 and parts[3] == ""):
            if not self.workspace.is_admin(token):
                raise auth.forbidden_admin()
            return "admin"
        project = parts[3]
        if not project:
            raise InvalidName("the project name is empty.")
        self.workspace.path_of(project)  # a bad name is refused before anything else
        if not self.workspace.token_grants(project, token):
            raise auth.forbidden_project(project)
        return project


async def _read(receive: Receive, limit: int, cap: bool) -> bytes | None:
    """The whole body; None if it passes ``limit`` (``cap``: the first ``limit`` bytes
    instead, for a reader that answers an oversized body itself) or the client left."""
    chunks: list[bytes] = []
    received = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        received += len(chunk)
        if received > limit:
            if not cap:
                return None
            chunks.append(chunk[: len(chunk) - (received - limit)])
            return b"".join(chunks)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class _TooLarge(Exception):
    pass


def _bounded(receive: Receive, limit: int) -> Receive:
    """``receive`` that fails once more than ``limit`` bytes were read."""
    received = 0

    async def bounded() -> Message:
        nonlocal received
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                raise _TooLarge()
        return message

    return bounded
