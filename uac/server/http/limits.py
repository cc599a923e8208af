"""Request size limit: an ASGI middleware that refuses big bodies with 413.

A declared ``Content-Length`` over the limit is refused before a byte of the
body is read.  A body without one (chunked) is read here, counted while it
streams, and refused with the same 413 as soon as it passes the limit; a body
within the limit is handed on to the application in one piece.  (Reading it
here, rather than in the application, keeps the overflow out of the
framework's own body parsing, which would report it as a bad body.)
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

from ..errors import envelope

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


async def _refuse(send: Send, limit: int) -> None:
    body = json.dumps(envelope("request_too_large", _message(limit))).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"connection", b"close")],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodySizeLimit:
    def __init__(self, app: Callable[..., Awaitable[None]], max_bytes: int = DEFAULT_MAX_BODY) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_bytes
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                if not value.strip().isdigit() or int(value) > limit:
                    await _refuse(send, limit)
                    return
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body was complete
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                await _refuse(send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
