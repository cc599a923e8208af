"""JSON request bodies parsed with uac's input limits, before FastAPI validates them.

FastAPI parses a JSON body with ``json.loads``: a body that is not JSON
becomes a 422 "JSON decode error", and a body nested 100,000 deep or holding
a 100,000-digit integer a bare 400.  :class:`JsonBodyRoute` parses the body
first with :func:`uac.safejson.loads` (bounded nesting, bounded numbers, no
lone surrogates) and answers any problem with uac's ``input_error`` (400),
naming the spot.  The parsed value is handed on, so the body is parsed once.
"""

from __future__ import annotations

import email.message
from typing import Any, Callable, Coroutine

from fastapi import Request, Response
from fastapi.routing import APIRoute

from ... import safejson
from .bodies import not_text

WHERE = "the request body"


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return True  # FastAPI reads a body without a content type as JSON
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def parse_body(data: bytes) -> Any:
    """The JSON value of a request body, or an :class:`InputError` saying what is wrong."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise not_text(exc, WHERE) from None
    return safejson.loads(
        text.removeprefix("\ufeff"), WHERE, hint="Send one JSON object (Content-Type: application/json)."
    )


class JsonBodyRoute(APIRoute):
    """An API route whose JSON body goes through :func:`parse_body`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def route(request: Request) -> Response:
            if _is_json(request.headers.get("content-type")):
                data = await request.body()
                if data:
                    # Starlette's Request.json() returns this instead of parsing again
                    request._json = parse_body(data)
            return await handler(request)

        return route
