"""Request size limit: an ASGI middleware that refuses big bodies with 413.

A declared ``Content-Length`` over the limit is refused before a byte of the
body is read; a body without one (chunked) is counted while it streams and
refused as soon as it passes the limit.
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


class _TooLarge(Exception):
    pass


def _message(limit: int) -> str:
    return (
        f"the request body is larger than the server's limit of {limit:,} bytes. "
        "Send smaller requests (split the sessions), or start the server with a larger --max-body-mb."
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
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _TooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _refuse(send, limit)
