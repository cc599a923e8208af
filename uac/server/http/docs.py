"""The API's interactive docs, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served by this server alone.

The pages load their scripts and styles from ``/docs/assets/``: Swagger UI
and ReDoc come from the ``fastapi-offline`` package (part of the ``server``
extra), and the two lines that start each are files of their own, so a page
holds no inline script and works with no network.  Each response carries a
Content-Security-Policy built by :func:`docs_policy`: scripts only from this
server, requests only to ``/openapi.json`` and the API under ``/v1/`` (so a
script on these pages cannot read or post the inspector's pages), no forms, no
frames.  The inspector's cookie is scoped to ``/ui`` and never sent here.
"""

from __future__ import annotations

import html
import importlib.util
import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, HTMLResponse, Response

ASSETS = "/docs/assets"
#: the files served from the assets package, with their media types
_FILES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "redoc.standalone.js": "text/javascript",
    "favicon.png": "image/png",
}
#: the scripts that start each viewer, served as files (no inline script on the pages)
_STARTERS = {
    "swagger-start.js": (
        'window.ui = SwaggerUIBundle({url: document.body.dataset.openapi, dom_id: "#swagger-ui",\n'
        '  layout: "BaseLayout", deepLinking: true, validatorUrl: null,\n'
        "  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset]});\n"
    ),
    "redoc-start.js": 'Redoc.init(document.body.dataset.openapi, {}, document.getElementById("redoc"));\n',
}
_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" type="image/png" href="{assets}/favicon.png">
{style}</head>
<body data-openapi="{openapi}">
<div id="{element}"></div>
<script src="{assets}/{bundle}"></script>
<script src="{assets}/{starter}"></script>
</body>
</html>
"""
_MISSING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API docs</title></head>
<body><h1>The API docs are not installed</h1>
<p>This server lacks the package with Swagger UI and ReDoc. Install the server extra:
<code>pip install 'uac[server]'</code> (it brings <code>fastapi-offline</code>).
The schema itself is at <a href="{openapi}">{openapi}</a>.</p></body></html>
"""

router = APIRouter(include_in_schema=False)


@lru_cache(maxsize=1)
def assets_dir() -> Path | None:
    """The folder of the bundled Swagger UI and ReDoc files, or ``None`` if the package is missing."""
    spec = importlib.util.find_spec("fastapi_offline")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "static"
    return folder if all((folder / name).is_file() for name in _FILES) else None


_HOST = re.compile(r"\A[A-Za-z0-9.-]+(:[0-9]{1,5})?\Z|\A\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?\Z")
_ROOT_PATH = re.compile(r"\A(/[A-Za-z0-9._~-]+)*\Z")


def _connect_sources(request: Request) -> str:
    """Where a docs page may send requests: the schema and ``/v1/`` on this server's origin."""
    netloc, root_path = request.url.netloc, request.scope.get("root_path", "")
    if not _HOST.fullmatch(netloc) or not _ROOT_PATH.fullmatch(root_path):
        return "'none'"  # a Host this policy cannot name: the pages still render from the assets
    base = f"{request.url.scheme}://{netloc}{root_path}"
    return f"{base}{request.app.openapi_url} {base}/v1/"


def docs_policy(request: Request, *, redoc: bool = False) -> str:
    """The Content-Security-Policy of the docs pages: this server's scripts, requests to the API only.

    ReDoc needs two allowances Swagger UI does not: the ``<style>`` elements it
    adds as it renders, and the worker its search runs in (made from a blob by
    its own script)."""
    return "; ".join(
        (
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self' 'unsafe-inline'" if redoc else "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self' data:",
            # a path in a source limits requests to it: the schema and the API, never the inspector
            f"connect-src {_connect_sources(request)}",
            *(["worker-src blob:"] if redoc else []),
            "form-action 'none'",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        )
    )


def _headers(request: Request, *, redoc: bool = False) -> dict[str, str]:
    return {
        "Content-Security-Policy": docs_policy(request, redoc=redoc),
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


def _page(
    request: Request, *, title: str, element: str, bundle: str, starter: str, style: str = "", redoc: bool = False
) -> Response:
    root = html.escape(request.scope.get("root_path", ""))
    openapi = root + html.escape(request.app.openapi_url or "/openapi.json")
    if assets_dir() is None:
        return HTMLResponse(_MISSING.format(openapi=openapi), status_code=503, headers=_headers(request, redoc=redoc))
    text = _PAGE.format(
        title=html.escape(title),
        assets=root + ASSETS,
        style=style.format(assets=root + ASSETS),
        openapi=openapi,
        element=element,
        bundle=bundle,
        starter=starter,
    )
    return HTMLResponse(text, headers=_headers(request, redoc=redoc))


@router.get("/docs")
def swagger_ui(request: Request) -> Response:
    style = '<link rel="stylesheet" href="{assets}/swagger-ui.css">\n'
    return _page(
        request,
        title=f"{request.app.title} - Swagger UI",
        element="swagger-ui",
        bundle="swagger-ui-bundle.js",
        starter="swagger-start.js",
        style=style,
    )


@router.get("/redoc")
def redoc(request: Request) -> Response:
    return _page(
        request,
        title=f"{request.app.title} - ReDoc",
        element="redoc",
        bundle="redoc.standalone.js",
        starter="redoc-start.js",
        redoc=True,
    )


@router.get(ASSETS + "/{name}")
def asset(name: str, request: Request) -> Response:
    headers = {**_headers(request), "Cache-Control": "max-age=86400"}
    if name in _STARTERS:
        return Response(_STARTERS[name], media_type="text/javascript", headers=headers)
    folder = assets_dir()
    if name not in _FILES or folder is None:
        raise HTTPException(404, f"no file {name!r} among the API docs' assets.")
    return FileResponse(folder / name, media_type=_FILES[name], headers=headers)
