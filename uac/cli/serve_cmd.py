"""``uac serve``: the HTTP API and the MCP server over a directory of user projects."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path

import typer

from .common import echo

ROOT_HELP = "Directory holding the user projects (one sub-directory each)."


def _warn_if_public(host: str) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        print(
            f"uac: warning: listening on {host}, reachable from other machines; put TLS in front of it.",
            file=sys.stderr,
        )


def register(app: typer.Typer) -> None:
    serve_app = typer.Typer(name="serve", help="Serve user projects over HTTP or MCP.", no_args_is_help=True)
    app.add_typer(serve_app, name="serve")

    @serve_app.command("http")
    def http(
        root: Path = typer.Option(..., "--root", help=ROOT_HELP),
        host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: loopback only)."),
        port: int = typer.Option(8765, "--port", help="TCP port."),
        max_body_mb: float = typer.Option(16.0, "--max-body-mb", help="Refuse request bodies larger than this (413)."),
        job_workers: int = typer.Option(2, "--job-workers", help="Parallel background jobs (compile)."),
        log_level: str = typer.Option("info", "--log-level", help="uvicorn log level."),
    ) -> None:
        """Serve the HTTP API (OpenAPI docs at /docs) for every project under --root."""
        from ..server.extras import require_http
        from ..server.http import create_app

        require_http()
        import uvicorn

        application = create_app(root, max_body_bytes=int(max_body_mb * 1024 * 1024), job_workers=job_workers)
        _warn_if_public(host)
        echo(f"uac: serving {Path(root).resolve()} on http://{host}:{port} (API under /v1, docs at /docs)")
        uvicorn.run(application, host=host, port=port, log_level=log_level)

    @serve_app.command("mcp")
    def mcp(
        root: Path = typer.Option(..., "--root", help=ROOT_HELP),
        transport: str = typer.Option("stdio", "--transport", help="stdio | http (streamable HTTP at /mcp)."),
        project: str = typer.Option(None, "--project", help="Serve only this project (tools default to it)."),
        host: str = typer.Option("127.0.0.1", "--host", help="With --transport http: address to bind."),
        port: int = typer.Option(8766, "--port", help="With --transport http: TCP port."),
    ) -> None:
        """Serve the MCP tools (search_memory, ask, run_python, read_manifest, read_domain, add_session)."""
        from ..server.mcp_server import serve

        if transport not in ("stdio", "http"):
            raise typer.BadParameter("--transport must be stdio or http.")
        if transport == "http":
            _warn_if_public(host)
            print(f"uac: MCP over streamable HTTP on http://{host}:{port}/mcp (bearer token required)", file=sys.stderr)
        serve(root, transport=transport, project=project, host=host, port=port)
