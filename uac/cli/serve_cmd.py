"""``uac serve``: the HTTP API and the MCP server over a directory of user projects."""

from __future__ import annotations

import dataclasses
import inspect
import ipaddress
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

import typer

from ..errors import ProjectNotFound
from ..server.bounds import ServerLimits, SessionLimits
from .common import echo

#: ``--root``, the directory both servers serve
RootOption = Annotated[
    Path, typer.Option("--root", help="Directory holding the user projects (one sub-directory each).")
]


def options_of(bounds: type) -> dict[str, tuple[type, Any, str]]:
    """One typer option per field of ``bounds`` (a dataclass of :mod:`uac.server.bounds`) that
    names its flag: parameter -> (type, option, field).  A field whose default depends on the
    machine has the flag's default 0, which keeps it."""
    table: dict[str, tuple[type, Any, str]] = {}
    for f in dataclasses.fields(bounds):
        if "flag" not in f.metadata:
            continue
        kind = {"int": int, "float": float}[str(f.type)]
        default = 0 if f.default is dataclasses.MISSING else f.default
        option = typer.Option(default, f.metadata["flag"], help=f.metadata["help"])
        table[f.metadata["flag"].lstrip("-").replace("-", "_")] = (kind, option, f.name)
    return table


#: the server limits ``serve http`` and ``serve mcp`` both take
SERVER_LIMIT_OPTIONS = options_of(ServerLimits)
#: limits whose 0 means "the default of ServerLimits" (it depends on the machine)
_ZERO_IS_DEFAULT = tuple(
    name
    for name, (_, _, field) in SERVER_LIMIT_OPTIONS.items()
    if ServerLimits.__dataclass_fields__[field].default is dataclasses.MISSING
)


def _takes_options(table: dict[str, tuple[type, Any, str]], into: str) -> Callable[..., Any]:
    """A decorator: the command with every option of ``table`` (parameter -> (type, option, field))
    after its own; it receives their values as one dict, its parameter ``into``."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != into]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
            for name, (kind, option, _) in table.items()
        ]

        def with_options(**kwargs: Any) -> Any:
            values = {name: kwargs.pop(name) for name in table}
            return command(**kwargs, **{into: values})

        with_options.__name__ = command.__name__
        with_options.__doc__ = command.__doc__
        with_options.__signature__ = inspect.Signature(own + added)  # type: ignore[attr-defined]
        return with_options

    return decorate


#: ``command`` with every option of :data:`SERVER_LIMIT_OPTIONS` after its own; it receives
#: their values as one dict, ``limit_values``
takes_server_limits = _takes_options(SERVER_LIMIT_OPTIONS, "limit_values")


def _limits(values: dict[str, Any], **more: Any):
    from ..errors import ConfigError

    fields = {
        SERVER_LIMIT_OPTIONS[name][2]: value for name, value in values.items() if value or name not in _ZERO_IS_DEFAULT
    }
    try:
        return ServerLimits(**fields, **more)
    except ValueError as exc:
        raise ConfigError(f"invalid server limit: {exc}.", hint="Give positive numbers.") from None


def _check_open_files(limits, job_workers: int) -> None:
    """Say what the open-file limit holds (raised first if the settings need more)."""
    from ..server.capacity import check_open_files

    budget = check_open_files(limits, job_workers)
    print(f"uac: {budget.describe()}", file=sys.stderr)
    if not budget.enough:
        print(
            f"uac: warning: the open-file limit {budget.limit} leaves too little room for client connections; "
            f"raise it ('ulimit -n {budget.needed + 1024}' before starting, or LimitNOFILE= in a systemd unit) "
            "or lower --threads, --writes or --sandbox-workers.",
            file=sys.stderr,
        )


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


def mcp_client_config(root: Path, *, project: str | None, transport: str, host: str, port: int) -> dict:
    """The ``mcpServers`` entry that starts this server: absolute paths, so it works from any directory."""
    resolved = Path(root).expanduser().resolve()
    if not resolved.is_dir():
        raise ProjectNotFound(f"{resolved} is not a directory.", hint="Pass the directory of user projects to serve.")
    name = f"uac-{project}" if project else "uac"
    if transport == "http":
        return {
            "mcpServers": {
                name: {
                    "type": "http",
                    "url": f"http://{host}:{port}/mcp?project={project or 'NAME'}",
                    "headers": {"Authorization": "Bearer <token from 'uac token create'>"},
                }
            }
        }
    args = ["-m", "uac", "serve", "mcp", "--root", str(resolved)]
    if project:
        args += ["--project", project]
    # the interpreter of this installation, by absolute path: "uac" alone resolves only inside the venv
    return {"mcpServers": {name: {"command": sys.executable, "args": args}}}


def _session_limits(values: dict[str, Any], options: dict[str, tuple[type, Any, str]]):
    from ..errors import ConfigError

    fields = {options[name][2]: value for name, value in values.items()}
    try:
        return SessionLimits(**fields)
    except ValueError as exc:
        raise ConfigError(f"invalid session limit: {exc}.", hint="Give positive numbers.") from None


def _register_http(serve_app: typer.Typer) -> None:
    @serve_app.command("http")
    @takes_server_limits
    def http(
        root: RootOption,
        host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (default: loopback only)."),
        port: int = typer.Option(8765, "--port", help="TCP port."),
        max_body_mb: float = typer.Option(16.0, "--max-body-mb", help="Refuse request bodies larger than this (413)."),
        body_buffer_mb: float = typer.Option(
            64.0,
            "--body-buffer-mb",
            help="Request bodies held in memory at once, all requests "
            "(a quarter, at least one largest body, per project); beyond, 503 server_busy.",
        ),
        job_workers: int = typer.Option(2, "--job-workers", help="Parallel background jobs (compile)."),
        log_level: str = typer.Option("info", "--log-level", help="uvicorn log level."),
        limit_values: dict[str, Any] | None = None,
    ) -> None:
        """Serve the HTTP API (OpenAPI docs at /docs) for every project under --root."""
        from ..server.extras import require_http
        from ..server.http import create_app

        require_http()
        import uvicorn

        limits = _limits(limit_values or {}, body_buffer_bytes=max(1, int(body_buffer_mb * 1024 * 1024)))
        _check_open_files(limits, job_workers)
        application = create_app(
            root, max_body_bytes=int(max_body_mb * 1024 * 1024), job_workers=job_workers, limits=limits
        )
        _warn_if_public(host)
        echo(f"uac: serving {Path(root).resolve()} on http://{host}:{port} (API under /v1, docs at /docs)")
        from ..server.admission import SHUTDOWN_SECONDS

        uvicorn.run(application, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=SHUTDOWN_SECONDS)


def _register_mcp(serve_app: typer.Typer) -> None:
    from ..server.mcp_names import TOOLS as MCP_TOOLS

    session_options = options_of(SessionLimits)

    @serve_app.command(
        "mcp",
        help=f"Serve the MCP tools ({', '.join(MCP_TOOLS)}) and the manifest resource for the projects "
        "under --root; over HTTP at /mcp?project=NAME (or /mcp with --project), with a token of that project. "
        "--print-config prints a client configuration that starts this server.",
    )
    @takes_server_limits
    @_takes_options(session_options, "session_values")
    def mcp(
        root: RootOption,
        transport: str = typer.Option("stdio", "--transport", help="stdio | http (streamable HTTP at /mcp)."),
        project: str = typer.Option(None, "--project", help="Serve only this project (tools default to it)."),
        host: str = typer.Option("127.0.0.1", "--host", help="With --transport http: address to bind."),
        port: int = typer.Option(8766, "--port", help="With --transport http: TCP port."),
        print_config: bool = typer.Option(
            False,
            "--print-config",
            help="Print the JSON an MCP client (Claude Desktop, Cursor, ...) needs to start this server, and exit.",
        ),
        session_values: dict[str, Any] | None = None,
        limit_values: dict[str, Any] | None = None,
    ) -> None:
        if transport not in ("stdio", "http"):
            raise typer.BadParameter("--transport must be stdio or http.")
        if print_config:
            echo(
                json.dumps(
                    mcp_client_config(root, project=project, transport=transport, host=host, port=port), indent=2
                )
            )
            return
        from ..server.extras import require_mcp
        from ..server.mcp_server import serve

        require_mcp()
        if transport == "http":
            _warn_if_public(host)
            where = f"/mcp?project={project}" if project else "/mcp?project=NAME"
            print(
                f"uac: MCP over streamable HTTP on http://{host}:{port}{where} (a bearer token of that project required)",
                file=sys.stderr,
            )
        limits = _limits(limit_values or {})
        _check_open_files(limits, 0)
        session_limits = _session_limits(session_values or {}, session_options)
        mode: Literal["stdio", "http"] = "http" if transport == "http" else "stdio"  # checked above
        serve(root, transport=mode, project=project, host=host, port=port, limits=limits, sessions=session_limits)


def register(app: typer.Typer) -> None:
    serve_app = typer.Typer(name="serve", help="Serve user projects over HTTP or MCP.", no_args_is_help=True)
    app.add_typer(serve_app, name="serve")
    _register_http(serve_app)
    _register_mcp(serve_app)
