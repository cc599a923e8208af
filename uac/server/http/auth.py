"""Bearer-token checks as FastAPI dependencies.

* :func:`project_access` -- the ``{project}`` path parameter is validated (no
  traversal) and the token must be one of that project's tokens.  A token of
  another project, and any token for a project that does not exist, get the
  same 403: the answer never reveals which projects exist.
* :func:`admin_access` -- an admin token (``UAC_ADMIN_TOKEN`` or
  ``uac token create --admin``) for workspace-level routes.
"""

from __future__ import annotations

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from ...workspace import validate_project_name
from ..workspace import ServedWorkspace

bearer = HTTPBearer(auto_error=False, description="A project token or an admin token.")


class ApiError(Exception):
    """An HTTP error with the envelope's code and message."""

    def __init__(self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


def served(request: Request) -> ServedWorkspace:
    return request.app.state.workspace


def unauthenticated() -> ApiError:
    return ApiError(
        401,
        "unauthenticated",
        "this route needs a bearer token: send 'Authorization: Bearer <token>' with a token of the "
        "project (the server's operator creates them).",
        headers={"WWW-Authenticate": "Bearer"},
    )


def forbidden_project(project: str) -> ApiError:
    return ApiError(403, "forbidden", f"the token does not grant access to project {project!r}.")


def forbidden_admin() -> ApiError:
    return ApiError(
        403,
        "forbidden",
        "this route needs an admin token (the server's UAC_ADMIN_TOKEN, or an admin token its operator created).",
    )


def bearer_token(credentials: HTTPAuthorizationCredentials | None) -> str:
    if credentials is None or not credentials.credentials:
        raise unauthenticated()
    return credentials.credentials


async def project_access(
    project: str,
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
) -> str:
    """The validated project name, if the bearer token grants access to it.

    Runs in the event loop (a few ``stat`` calls and a hash; the token file is
    cached by its mtime): a refused request costs no thread hop."""
    validate_project_name(project)
    token = bearer_token(credentials)
    if not served(request).token_grants(project, token):
        raise forbidden_project(project)
    return project


async def admin_access(
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
) -> None:
    token = bearer_token(credentials)
    if not served(request).is_admin(token):
        raise forbidden_admin()
