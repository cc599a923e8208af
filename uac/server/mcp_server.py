"""The MCP server: uac's memory as tools and resources for agents.

Tools: ``search_memory``, ``ask``, ``run_python`` (the sandbox),
``read_manifest``, ``read_domain``, ``add_session``, ``compile``; resource
``uac://{project}/manifest``.  Every tool takes an optional ``project``
argument; with ``--project`` the server is pinned to that one project.

Over stdio the server trusts its parent process (it runs with the caller's
file permissions).  Over HTTP (streamable HTTP at ``/mcp?project=NAME``, or
``/mcp`` with ``--project``) every request must carry ``Authorization: Bearer
<token>`` with a token of that project, checked before a session exists
(:mod:`uac.server.mcp_sessions`: sessions bound to their token, bounded,
expiring); tool calls default to that project, and each one checks the token
against the project it touches, exactly as the HTTP API does.

A uac error inside a tool comes back as an MCP tool error (``isError``) whose
text is ``<code>: <message> <hint>`` -- the codes of the HTTP API, the hint in
the tools' words; it never ends the session.  ``run_python`` answers its
``{ok, result, stdout, error}`` either way, with ``isError`` set when the run
failed.  Tools wait for their project's turn (the project lock, a sandbox
worker, a model slot) as the HTTP API does, within the same bounds.
"""

# no ``from __future__ import annotations``: the mcp package reads the tools'
# annotations at registration, and ``Context`` is imported inside the registering functions.

import datetime as _dt
import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Callable, Literal, Optional

from ..answer.options import ask_option_specs
from ..errors import AccessDenied, DomainNotFound, InputError, InvalidName, UacError
from ..names import DOMAIN_NAME
from .admission import SHUTDOWN_SECONDS, ServerLimits
from .errors import tool_error_text
from .extras import require_mcp
from .mcp_sessions import PROJECT_HEADER, SessionGate, SessionLimits
from .workspace import ServedWorkspace

if TYPE_CHECKING:
    from ..memory import UserMemory

INSTRUCTIONS = """\
Long-term memory of a user, compiled by uac (User as Code). Read the manifest
first (read_manifest or the uac://{project}/manifest resource): one line per
life domain of the user's typed state. Use search_memory for facts and
conversation excerpts, run_python for exact counts, sums and joins over the
typed state (each collection is a global, e.g. `trips`; set `result`), and ask
for an answer composed from all channels. add_session stores a new conversation;
the typed state then catches up in the background (compile does it at once). Results
of ask and run_python say in `view` how many facts the typed state does not include yet.
memory_changes says what the memory learned or changed, and from which sentences.
"""

#: memory_changes: the most changes one call returns, and the longest value it shows
CHANGES_LIMIT = 100
VALUE_CHARS = 300


def _short(value: Any) -> Any:
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= VALUE_CHARS:
        return value
    return text[: VALUE_CHARS - 1] + "…"


def bounded_changes(data: dict[str, Any]) -> dict[str, Any]:
    """A history report with every value cut to :data:`VALUE_CHARS` (the record's full
    fields stay one ``uac show --at`` or GET away)."""
    for change in data["changes"]:
        change["old"], change["new"] = _short(change["old"]), _short(change["new"])
    return data


class _Access:
    """Which project a call may touch, and (over HTTP) whether its token opens it."""

    def __init__(self, workspace: ServedWorkspace, pinned: str | None, needs_token: bool) -> None:
        self.workspace = workspace
        self.pinned = pinned
        self.needs_token = needs_token

    def project(self, requested: str | None, headers: Any) -> str:
        # over HTTP the connection names its project (uac.server.mcp_sessions sets the header)
        connection = (headers or {}).get(PROJECT_HEADER.decode()) if self.needs_token and headers is not None else None
        name = requested or self.pinned or connection
        if not name:
            # over HTTP the caller proves access to one project at a time: never list the others
            names = [] if self.needs_token else self.workspace.names()
            raise InvalidName(
                "no project given.",
                hint="Give {opt:project}, the name of the project your token belongs to"
                + (f" (one of: {', '.join(names[:20])})." if names else "."),
            )
        if self.pinned and name != self.pinned:
            raise InvalidName(f"this server serves only project {self.pinned!r}, not {name!r}.")
        self.workspace.path_of(name)  # validates the name
        if self.needs_token:
            value = (headers or {}).get("authorization", "") if headers is not None else ""
            token = value[7:].strip() if value[:7].lower() == "bearer " else ""
            if not self.workspace.token_grants(name, token):
                raise AccessDenied(
                    f"the bearer token does not grant access to project {name!r}.",
                    hint="Send 'Authorization: Bearer <token>' with a token of that project (the server's operator creates them).",
                )
        return name


def ask_option_parameters() -> list[inspect.Parameter]:
    """The ``ask`` tool's optional arguments: every :class:`~uac.answer.options.AskOptions` field."""
    from pydantic import Field

    params = []
    for spec in ask_option_specs():
        kind: Any = str if spec.kind is _dt.date else spec.kind
        if spec.choices:
            kind = Literal[spec.choices]
        field = Field(description=spec.help, ge=spec.minimum, le=spec.maximum, max_length=spec.max_length)
        annotation: Any = Annotated[kind if spec.kind is bool else Optional[kind], field]
        default = spec.default if spec.kind is bool else None
        params.append(
            inspect.Parameter(
                spec.name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=annotation
            )
        )
    return params


class _Tools:
    """What every tool of one server shares: the workspace, the access check, the error type."""

    def __init__(self, server: Any, workspace: ServedWorkspace, access: _Access, transport: str) -> None:
        from mcp.server.mcpserver.exceptions import ToolError

        self.server, self.workspace, self.access, self.transport = server, workspace, access, transport
        self.tool_error = ToolError

    def headers(self, ctx: Any) -> Any:
        return ctx.headers if self.transport == "http" else None

    async def call(self, ctx: Any, requested: str | None, work: Callable[[str], Any]) -> Any:
        try:
            name = self.access.project(requested, self.headers(ctx))
            return await work(name)
        except UacError as exc:
            raise self.tool_error(tool_error_text(exc, root=self.workspace.root)) from exc


def _manifest_text(memory: Any) -> str:
    return memory.project.read_text("MANIFEST.md") or ""


def _register_answering_tools(tools: _Tools) -> None:
    """``search_memory``, ``ask`` and ``run_python``: the three ways to get an answer."""
    from mcp.server.mcpserver import Context
    from mcp.types import CallToolResult, TextContent

    server, workspace, call = tools.server, tools.workspace, tools.call

    @server.tool(
        description="Hybrid search (dense + BM25) over the user's facts, conversation excerpts and imported records; best first."
    )
    async def search_memory(
        query: str,
        ctx: Context,
        k: int = 10,
        channel: Literal["facts", "archive", "records", "all"] = "all",
        as_of: str | None = None,
        happened: str | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        def work(memory: "UserMemory") -> dict[str, Any]:
            hits = memory.search(query, k=max(1, min(k, 100)), channel=channel, as_of=as_of, happened=happened)
            return {"results": [h.to_json() for h in hits]}

        return await call(ctx, project, lambda name: workspace.search(name, work))

    async def ask(question: str, ctx: Context, project: str | None = None, **options: Any) -> dict[str, Any]:
        return await call(
            ctx, project, lambda name: workspace.ask(name, lambda m: m.ask(question, **options).to_json())
        )

    ask.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # inspect reads it; typeshed's functions lack it
        [
            inspect.Parameter("question", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
            inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context),
            inspect.Parameter(
                "project", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=Optional[str]
            ),
            *ask_option_parameters(),
        ]
    )
    server.tool(description="Answer a question about the user from the typed state, facts and archive.")(ask)

    @server.tool(
        description="Run Python in a sandbox over the user's typed state: every collection is a global "
        "(e.g. trips) and under its domain (travel.trips); assign the answer to `result`. "
        "Returns {ok, result, stdout, error}."
    )
    async def run_python(
        code: str, ctx: Context, as_of: str | None = None, include_facts: bool = False, project: str | None = None
    ) -> Annotated[CallToolResult, dict[str, Any]]:
        def work(memory: "UserMemory") -> dict[str, Any]:
            # the sandbox reads the view: say when it lags the log
            return {
                **memory.run(code, as_of=as_of, include_facts=include_facts).to_json(),
                "view": memory.view_lag().to_json(),
            }

        result = await call(ctx, project, lambda name: workspace.run_sandbox(name, work))
        if result["ok"]:
            return result
        # the run failed (the code raised, timed out, hit a limit): a tool error that keeps the details
        return CallToolResult(
            content=[TextContent(type="text", text=json.dumps(result, ensure_ascii=False))],
            structured_content=result,
            is_error=True,
        )


def _register_reading_tools(tools: _Tools) -> None:
    """``read_manifest`` and ``read_domain``: the project's files as they are."""
    from mcp.server.mcpserver import Context

    server, workspace, call = tools.server, tools.workspace, tools.call

    @server.tool(description="The project's MANIFEST.md: one line per domain of the typed state. Read it first.")
    async def read_manifest(ctx: Context, project: str | None = None) -> str:
        return await call(ctx, project, lambda name: workspace.read(name, _manifest_text))

    @server.tool(description="The generated code of one domain: schema.py (dataclasses) and state.py (the data).")
    async def read_domain(domain: str, ctx: Context, project: str | None = None) -> dict[str, Any]:
        if not DOMAIN_NAME.ok(domain):
            raise tools.tool_error(tool_error_text(InvalidName(f"invalid domain name {domain!r}.")))

        def work(memory: "UserMemory") -> dict[str, Any]:
            read = memory.project.read_text
            files = {f: text for f in ("schema.py", "state.py") if (text := read(f"domains/{domain}/{f}")) is not None}
            if not files:
                raise DomainNotFound(
                    f"the project has no domain {domain!r}.", hint="See read_manifest for the domains."
                )
            return {"domain": domain, "files": files}

        return await call(ctx, project, lambda name: workspace.read(name, work))


def _register_writing_tools(tools: _Tools) -> None:
    """``add_session``, ``compile`` and ``correct_memory``: the tools that change the memory."""
    from mcp.server.mcpserver import Context

    server, workspace, call = tools.server, tools.workspace, tools.call

    @server.tool(
        description="Store a conversation session: `session` as chat messages JSON "
        "({'date': 'YYYY-MM-DD', 'messages': [{'role', 'content'}]}) or `text` as a 'Speaker: text' transcript."
    )
    async def add_session(
        ctx: Context,
        session: dict[str, Any] | list[Any] | None = None,
        text: str | None = None,
        format: Literal["auto", "locomo", "messages", "transcript"] = "auto",
        date: str | None = None,
        compile: bool | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        from .http.bodies import body_file

        def work(name: str, memory: "UserMemory") -> dict[str, Any]:
            # ASCII escapes: a lone surrogate reaches the session reader, which names its spot
            data, suffix = (json.dumps(session), ".json") if text is None else (text, ".txt")
            with body_file(data, suffix, "the session argument") as path:
                report = memory.ingest(path, format=format, date=date, compile=False)
            # the view catches up in the background once the facts are durable
            workspace.follower.after_ingest(name, memory, report, compile)
            result = report.to_json()
            result["file"] = None
            return result

        async def admitted(name: str) -> dict[str, Any]:
            if (session is None) == (text is None):
                raise InputError("give exactly one of 'session' (JSON) and 'text' (a transcript).")
            return await workspace.write(name, "ingest", lambda memory: work(name, memory))

        return await call(ctx, project, admitted)

    @server.tool(
        description="Compile the facts into the typed state now (add_session already does it in the background "
        "unless turned off): `mode` incremental or bounded (need a model), offline; default: the project's setting. "
        "Returns what the compile did per domain and how many facts the view still does not include."
    )
    async def compile(
        ctx: Context,
        mode: Literal["incremental", "bounded", "offline"] | None = None,
        project: str | None = None,
    ) -> dict[str, Any]:
        def work(memory: "UserMemory") -> dict[str, Any]:
            data = memory.compile(mode=mode).to_json()
            return {**data, "view": memory.view_lag().to_json()}

        return await call(ctx, project, lambda name: workspace.write(name, "compile", work))

    @server.tool(
        description="Record a correction the user made: `text` is the corrected statement; `supersedes` "
        "lists the ids of facts it replaces (they stop being valid; the next compile revisits their records)."
    )
    async def correct_memory(
        text: str, ctx: Context, supersedes: list[str] | None = None, project: str | None = None
    ) -> dict[str, Any]:
        def work(memory: "UserMemory") -> dict[str, Any]:
            return memory.correct(text, supersedes=supersedes or []).to_json()

        return await call(ctx, project, lambda name: workspace.write(name, "correct", work))


def _register_history_tool(tools: _Tools) -> None:
    """``memory_changes``: what the typed state learned or changed, and from which sentences."""
    from mcp.server.mcpserver import Context

    server, workspace, call = tools.server, tools.workspace, tools.call

    @server.tool(
        description="What changed in the typed state and why: the newest changes (added, updated, corrected, "
        "retired records), each with its compile, time and the sentences of the facts that caused it. "
        "`since`: a compile id (c3) or a date (2026-05-01)."
    )
    async def memory_changes(
        ctx: Context,
        since: str | None = None,
        domain: str | None = None,
        record: str | None = None,
        limit: int = 20,
        project: str | None = None,
    ) -> dict[str, Any]:
        def work(memory: "UserMemory") -> dict[str, Any]:
            report = memory.history(domain=domain, record=record, since=since, limit=max(1, min(limit, CHANGES_LIMIT)))
            return bounded_changes(report.to_json())

        return await call(ctx, project, lambda name: workspace.read(name, work))


def _register_manifest_resource(tools: _Tools) -> None:
    """The resource ``uac://{project}/manifest``."""
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.exceptions import ResourceError

    workspace = tools.workspace

    @tools.server.resource(
        "uac://{project}/manifest",
        name="manifest",
        mime_type="text/markdown",
        description="The project's MANIFEST.md (read it first).",
    )
    async def manifest_resource(project: str, ctx: Context) -> str:
        try:
            name = tools.access.project(project, tools.headers(ctx))
            return await workspace.read(name, _manifest_text)
        except UacError as exc:
            raise ResourceError(tool_error_text(exc, root=workspace.root)) from exc


def build_server(
    root: str | Path,
    *,
    project: str | None = None,
    transport: Literal["stdio", "http"] = "stdio",
    llm_factory: Callable | None = None,
    limits: ServerLimits | None = None,
    workspace: ServedWorkspace | None = None,
) -> Any:
    """The :class:`mcp.server.mcpserver.MCPServer` for the projects under ``root``
    (served through ``workspace`` when given, else a new one)."""
    require_mcp()
    from mcp.server.mcpserver import MCPServer

    workspace = workspace or ServedWorkspace(root, llm_factory=llm_factory, limits=limits)
    if project is not None:
        workspace.instances.reader(project)  # fail at start, not at the first call, if it does not exist
    server = MCPServer("uac", instructions=INSTRUCTIONS)
    tools = _Tools(server, workspace, _Access(workspace, project, needs_token=transport == "http"), transport)
    _register_answering_tools(tools)
    _register_reading_tools(tools)
    _register_writing_tools(tools)
    _register_history_tool(tools)
    _register_manifest_resource(tools)
    return server


def serve(
    root: str | Path,
    *,
    transport: Literal["stdio", "http"] = "stdio",
    project: str | None = None,
    host: str = "127.0.0.1",
    port: int = 8766,
    limits: ServerLimits | None = None,
    sessions: SessionLimits | None = None,
) -> None:
    """Run the MCP server until it is stopped (stdio: until the client closes it)."""
    from .readiness import Readiness

    # before the first call: tool calls arriving at once must find everything imported
    # (a problem is logged, and reported by GET /health over HTTP)
    readiness = Readiness()
    readiness.warm_up()
    workspace = ServedWorkspace(root, limits=limits)
    server = build_server(root, project=project, transport=transport, workspace=workspace)
    if transport == "stdio":
        try:
            server.run("stdio")
        finally:
            workspace.close()  # a running catch-up of the view is waited for (or abandoned, within bounds)
        return
    import uvicorn

    sessions = sessions or SessionLimits()
    # the package's own bounds stay behind the gate's: they are never what a client meets
    app = server.streamable_http_app(
        host=host, session_idle_timeout=2 * sessions.idle_seconds, max_sessions=sessions.total + 64
    )
    gate = SessionGate(app, workspace, pinned=project, limits=sessions, readiness=readiness)
    try:
        uvicorn.run(gate, host=host, port=port, log_level="warning", timeout_graceful_shutdown=SHUTDOWN_SECONDS)
    finally:
        workspace.close()
