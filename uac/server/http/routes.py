"""The ``/v1`` routes: one library call each.

Every project route is ``async`` and goes through
:class:`~uac.server.workspace.ServedWorkspace`, which waits for the project's
turn in the event loop before it takes a thread -- writes (the project lock),
search and ask (the project's search index, a model slot), the sandbox (a free
worker), health checks (one per project) and plain reads (a few per project):
requests piling up for one project never hold the threads the other projects
need.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any, Callable, TypeVar

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel

from ...errors import DomainNotFound, InputError, JobNotFound
from ...names import DOMAIN_NAME, ITEM_ID
from . import models as m
from .auth import admin_access, bearer, bearer_token, project_access, served
from .bodies import ingest_body, public_json, records_file
from .export import export_archive
from .jsonbody import JsonBodyRoute

if TYPE_CHECKING:
    from ...memory import UserMemory

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": m.ErrorResponse} for status in (400, 401, 403, 404, 409, 413, 422, 423, 500, 502, 503)
}

router = APIRouter(prefix="/v1", responses=ERRORS, route_class=JsonBodyRoute)
# the routes of each part of the API, under the tag its docs group them by (``router`` holds
# them all, in this order: the end of this module includes them)
server_routes = APIRouter(tags=["server"], route_class=JsonBodyRoute)
project_routes = APIRouter(tags=["projects"], route_class=JsonBodyRoute)
memorize_routes = APIRouter(tags=["memorize"], route_class=JsonBodyRoute)
recall_routes = APIRouter(tags=["recall"], route_class=JsonBodyRoute)
read_routes = APIRouter(tags=["read"], route_class=JsonBodyRoute)
Access = Depends(project_access)
Route = TypeVar("Route", bound=Callable[..., Any])


def _to_json(value: Any) -> dict[str, Any]:
    return value.to_json() if hasattr(value, "to_json") else dict(value)


def _domain_name(domain: str) -> str:
    return DOMAIN_NAME.check(domain)


def _item_id(value: str, what: str) -> str:
    return replace(ITEM_ID, what=f"{what} id").check(value)


# --- workspace ------------------------------------------------------------------


@server_routes.get(
    "/health",
    response_model=m.Health,
    responses={503: {"model": m.ErrorResponse, "description": "The process is broken (server_broken): restart it."}},
    summary="Liveness and a self-check of the search stack (no token needed).",
)
async def health(request: Request) -> Any:
    from fastapi.responses import JSONResponse

    from ..._version import __version__
    from ..errors import envelope

    problems = await request.app.state.readiness.check_async()
    checks = {name: problems.get(name, "ok") for name in ("imports", "search")}
    if not problems:
        return {"status": "ok", "version": __version__, "checks": checks}
    body = envelope(
        "server_broken",
        "this server process cannot serve: " + "; ".join(problems.values()),
        hint="Restart the server; if it stays broken, see its log.",
    )
    body["error"]["details"] = {"status": "broken", "version": __version__, "checks": checks}
    return JSONResponse(public_json(body, served(request).root), status_code=503)


@server_routes.get(
    "/server",
    response_model=m.ServerStatus,
    dependencies=[Depends(admin_access)],
    summary="The working set of warm projects and the bounds in force (admin token).",
)
def server_status(request: Request) -> dict[str, Any]:
    return served(request).status()


@project_routes.get("/projects", response_model=m.ProjectList, dependencies=[Depends(admin_access)])
def list_projects(request: Request) -> dict[str, Any]:
    return {"projects": served(request).names()}


@project_routes.post(
    "/projects",
    status_code=201,
    response_model=m.CreatedProject,
    dependencies=[Depends(admin_access)],
    summary="Create a user project and its first token (admin token).",
)
def create_project(body: m.CreateProjectRequest, request: Request) -> dict[str, Any]:
    workspace = served(request)
    memory = workspace.create(body.name, user_name=body.user_name, timezone=body.timezone)
    with memory.project.lock("create token"):
        token, record = workspace.tokens(body.name).create(body.token_name or "initial")
    memory.close()
    return {"project": body.name, "token": token, "token_id": record.id}


@project_routes.get("/projects/{project}", response_model=m.ProjectInfo)
async def project_info(request: Request, project: str = Access) -> dict[str, Any]:
    def work(memory: UserMemory) -> dict[str, Any]:
        config = memory.project.config
        return {
            "project": project,
            "user_name": config.user.name,
            "timezone": config.user.timezone,
            "format_version": config.format_version,
            "facts": len(memory.facts()),
            "domains": _domains(memory),
        }

    return await served(request).read(project, work)


@project_routes.post("/projects/{project}/tokens", status_code=201, response_model=m.CreatedToken)
async def create_token(body: m.CreateTokenRequest, request: Request, project: str = Access) -> dict[str, Any]:
    workspace = served(request)
    token, record = await workspace.write(
        project, "create token", lambda _m: workspace.tokens(project).create(body.name)
    )
    return {"token": token, "id": record.id, "name": record.name}


@project_routes.get("/projects/{project}/tokens", response_model=m.TokenList)
async def list_tokens(request: Request, project: str = Access) -> dict[str, Any]:
    workspace = served(request)
    return await workspace.peek(project, lambda: {"tokens": [r.public() for r in workspace.tokens(project).records()]})


@project_routes.delete("/projects/{project}/tokens/{token_id}", response_model=m.TokenInfo)
async def revoke_token(token_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    workspace = served(request)
    return await workspace.write(
        project, "revoke token", lambda _m: workspace.tokens(project).revoke(token_id).public()
    )


# --- memorize -----------------------------------------------------------------------


@memorize_routes.post(
    "/projects/{project}/sessions",
    response_model=m.IngestResult,
    summary="Add sessions given as JSON (chat messages, LoCoMo) or as a transcript text.",
)
async def add_session(body: m.AddSessionRequest, request: Request, project: str = Access) -> dict[str, Any]:
    if (body.session is None) == (body.text is None):
        raise InputError("give exactly one of 'session' (JSON) and 'text' (a transcript).")
    value = body.session if body.text is None else body.text
    workspace = served(request)
    after = workspace.follower.ingested(project, body.compile)
    return await workspace.write(project, "ingest", lambda memory: ingest_body(memory, value, body, after))


@memorize_routes.post(
    "/projects/{project}/sessions/upload",
    response_model=m.IngestResult,
    summary="Add sessions from an uploaded file (the raw request body).",
    openapi_extra={
        "requestBody": {
            "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
            "required": True,
        }
    },
)
async def upload_session(
    request: Request,
    project: str = Access,
    format: m.SessionFormat = Query("auto"),
    date: str | None = Query(None, max_length=64),
    sample_id: str | None = Query(None, max_length=200),
    extractor: m.Extractor | None = Query(None),
    compile: bool | None = Query(
        None, description="false: leave the view as it is; default: the project's [compile] auto."
    ),
) -> dict[str, Any]:
    data = await request.body()
    options = m.AddSessionRequest(format=format, date=date, sample_id=sample_id, extractor=extractor, compile=compile)
    workspace = served(request)
    after = workspace.follower.ingested(project, compile)
    return await workspace.write(project, "ingest", lambda memory: ingest_body(memory, data, options, after))


@memorize_routes.post("/projects/{project}/records", summary="Import structured records into a domain.")
async def import_records(body: m.ImportRecordsRequest, request: Request, project: str = Access) -> dict[str, Any]:
    _domain_name(body.domain)

    def work(memory: UserMemory) -> dict[str, Any]:
        with records_file(body) as path:
            result = memory.import_records(
                path, domain=body.domain, collection=body.collection, record_type=body.record_type
            )
        data = _to_json(result)
        data["file"] = None  # a temporary file of the server's, not the caller's
        return data

    return await served(request).write(project, "import-records", work)


@memorize_routes.post(
    "/projects/{project}/compile",
    status_code=202,
    response_model=m.Job,
    summary="Start compiling the facts into typed domain code (a background job).",
)
async def start_compile(
    request: Request, response: Response, body: m.CompileRequest | None = None, project: str = Access
) -> dict[str, Any]:
    workspace = served(request)
    mode = body.mode if body is not None else None

    def work() -> dict[str, Any]:
        memory = workspace.instances.writer(project)  # opened when the job starts, not while it waits
        try:
            return public_json(_to_json(memory.compile(mode=mode)), workspace.root)
        finally:
            memory.close()

    # the project's queue of jobs is bounded; projects take turns (uac.server.fairqueue)
    job = await workspace.peek(project, lambda: request.app.state.jobs.submit(project, "compile", work))
    response.headers["Location"] = f"/v1/projects/{project}/compile/{job.id}"
    return job.to_json()


def _job(request: Request, job_id: str, project: str) -> dict[str, Any]:
    job = request.app.state.jobs.get(job_id, project)
    if job is None:
        raise JobNotFound(f"no job {job_id!r} for project {project!r}.")
    return job.to_json()


@memorize_routes.get("/projects/{project}/compile/{job_id}", response_model=m.Job)
async def compile_status(job_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    return await served(request).peek(project, lambda: _job(request, job_id, project))


@memorize_routes.get("/jobs/{job_id}", response_model=m.Job, summary="A job's status (with its project's token).")
async def job_status(
    job_id: str,
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
) -> dict[str, Any]:
    from .jobs import project_of

    token = bearer_token(credentials)
    workspace = served(request)
    # the id names its project: the token is checked against that one project before any
    # job is read, and a job the token does not open is reported as missing
    project = project_of(job_id)
    if project is None or not workspace.token_grants(project, token):
        raise JobNotFound(f"no job {job_id!r} for this token.")
    return await workspace.peek(project, lambda: _job(request, job_id, project))


@memorize_routes.delete("/projects/{project}/facts/{fact_id}", response_model=m.ForgetResult)
async def forget_fact(fact_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    fact = _item_id(fact_id, "fact")
    return await served(request).write(project, "forget", lambda memory: _to_json(memory.forget(fact=fact)))


@memorize_routes.post(
    "/projects/{project}/corrections",
    status_code=201,
    response_model=m.CorrectResult,
    summary="Add a fact the user wrote that supersedes the named facts.",
)
async def add_correction(body: m.CorrectRequest, request: Request, project: str = Access) -> dict[str, Any]:
    wanted = [_item_id(i, "fact") for i in body.supersedes]
    return await served(request).write(
        project, "correct", lambda memory: memory.correct(body.text, supersedes=wanted).to_json()
    )


@memorize_routes.delete("/projects/{project}/sessions/{session_id}", response_model=m.ForgetResult)
async def forget_session(session_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    session = _item_id(session_id, "session")
    return await served(request).write(project, "forget", lambda memory: _to_json(memory.forget(session=session)))


@memorize_routes.delete("/projects/{project}/domains/{domain}", response_model=m.ForgetResult)
async def forget_domain(
    domain: str, request: Request, project: str = Access, collection: str | None = Query(None, max_length=64)
) -> dict[str, Any]:
    name = _domain_name(domain)
    return await served(request).write(
        project, "forget", lambda memory: _to_json(memory.forget(domain=name, collection=collection))
    )


# --- recall -----------------------------------------------------------------------------


# exclude_unset: a fact or archive hit has no ``record`` key (the contract's shape); a records hit has one
@recall_routes.post("/projects/{project}/search", response_model=m.SearchResponse, response_model_exclude_unset=True)
async def search(body: m.SearchRequest, request: Request, project: str = Access) -> dict[str, Any]:
    def work(memory: UserMemory) -> dict[str, Any]:
        hits = memory.search(body.query, k=body.k, channel=body.channel, as_of=body.as_of, happened=body.happened)
        return {"results": [h.to_json() for h in hits]}

    return await served(request).search(project, work)


@recall_routes.post("/projects/{project}/ask", response_model=m.AskResponse)
async def ask(body: m.AskRequest, request: Request, project: str = Access) -> dict[str, Any]:
    options = body.model_dump(exclude={"question"})
    return await served(request).ask(project, lambda memory: memory.ask(body.question, **options).to_json())


@recall_routes.post(
    "/projects/{project}/repl",
    response_model=m.ReplResponse,
    summary="Run Python in the sandbox over the typed state.",
)
async def repl(body: m.ReplRequest, request: Request, project: str = Access) -> dict[str, Any]:
    def work(memory: UserMemory) -> dict[str, Any]:
        # the sandbox reads the view: say when it lags the log
        return {
            **memory.run(body.code, as_of=body.as_of, include_facts=body.include_facts).to_json(),
            "view": memory.view_lag().to_json(),
        }

    return await served(request).run_sandbox(project, work)


@recall_routes.get("/projects/{project}/facts", response_model=m.FactList)
async def list_facts(
    request: Request,
    project: str = Access,
    as_of: str | None = Query(None, max_length=40),
    include_superseded: bool = Query(False),
) -> dict[str, Any]:
    def work(memory: UserMemory) -> dict[str, Any]:
        facts = memory.facts(as_of=as_of, include_superseded=include_superseded)
        return {"facts": [f.to_json() for f in facts]}

    return await served(request).read(project, work)


# --- what changed: the view's change log ----------------------------------------------------

#: the most changes one history request returns (the newest; ``total`` says how many matched)
HISTORY_LIMIT = 1000
#: where a stretch of the change log starts or ends: a compile id (``c3``) or a date
ChangeBound = Annotated[str | None, Query(max_length=40)]
#: only the changes of this domain
DomainFilter = Annotated[str | None, Query(max_length=64)]


def _change_route(path: str, model: type[BaseModel], summary: str) -> Callable[[Route], Route]:
    """A route that reads the view's change log."""
    return read_routes.get(path, response_model=model, summary=summary)


@_change_route(
    "/projects/{project}/history",
    m.ChangeList,
    "The changes of the typed view, oldest first, with the sentences of the facts behind them.",
)
async def history(
    request: Request,
    project: str = Access,
    domain: DomainFilter = None,
    record: str | None = Query(None, max_length=200),
    since: ChangeBound = None,
    until: ChangeBound = None,
    limit: int = Query(200, ge=1, le=HISTORY_LIMIT),
) -> dict[str, Any]:
    def work(memory: UserMemory) -> dict[str, Any]:
        return memory.history(domain=domain, record=record, since=since, until=until, limit=limit).to_json()

    return await served(request).read(project, work)


@_change_route(
    "/projects/{project}/diff",
    m.ChangeDiff,
    "What changed after `since` (up to `until`), grouped by domain and record.",
)
async def changes_diff(
    request: Request,
    project: str = Access,
    since: str = Query(..., max_length=40),
    until: ChangeBound = None,
    domain: DomainFilter = None,
) -> dict[str, Any]:
    return await served(request).read(project, lambda memory: memory.diff(since, until, domain=domain).to_json())


@_change_route(
    "/projects/{project}/history/domains/{domain}",
    m.DomainAt,
    "A domain's records as they stood after compile `at` (c3) or at a date.",
)
async def domain_at(
    domain: str, request: Request, project: str = Access, at: str = Query(..., max_length=40)
) -> dict[str, Any]:
    name = _domain_name(domain)
    return await served(request).read(project, lambda memory: memory.view_at(name, at).to_json())


# --- reading the project ------------------------------------------------------------------


def _domains(memory: UserMemory) -> list[str]:
    root = memory.project.paths.domains
    if not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir() if p.is_dir() and DOMAIN_NAME.ok(p.name) and (p / "schema.py").is_file()
    )


@read_routes.get("/projects/{project}/manifest", response_model=m.ManifestResponse)
async def manifest(request: Request, project: str = Access) -> dict[str, Any]:
    def work(memory: UserMemory) -> dict[str, Any]:
        return {"project": project, "manifest": memory.project.read_text("MANIFEST.md") or ""}

    return await served(request).read(project, work)


@read_routes.get("/projects/{project}/domains", response_model=m.DomainList)
async def domains(request: Request, project: str = Access) -> dict[str, Any]:
    return await served(request).read(project, lambda memory: {"domains": _domains(memory)})


@read_routes.get("/projects/{project}/domains/{domain}", response_model=m.DomainCode)
async def domain_code(domain: str, request: Request, project: str = Access) -> dict[str, Any]:
    folder = f"domains/{_domain_name(domain)}"

    def work(memory: UserMemory) -> dict[str, Any]:
        read = memory.project.read_text
        files = {
            name: text
            for name in ("__init__.py", "schema.py", "state.py")
            if (text := read(f"{folder}/{name}")) is not None
        }
        if not files:
            raise DomainNotFound(
                f"project {project!r} has no domain {domain!r}.", hint=f"See GET /v1/projects/{project}/domains."
            )
        return {"domain": domain, "files": files}

    return await served(request).read(project, work)


@read_routes.get(
    "/projects/{project}/export",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"application/gzip": {}}, "description": "The project as a .tar.gz (without .uac/ and auth/)."}
    },
)
async def export(request: Request, project: str = Access) -> StreamingResponse:
    spool = await served(request).write(project, "export", export_archive)
    return StreamingResponse(
        iter(lambda: spool.read(1 << 16), b""),
        media_type="application/gzip",
        headers={"Content-Disposition": f'attachment; filename="{project}.tar.gz"'},
        background=None,
    )


@read_routes.post("/projects/{project}/doctor", summary="Check the project's health; repair=true rebuilds the indexes.")
async def doctor(request: Request, body: m.DoctorRequest | None = None, project: str = Access) -> dict[str, Any]:
    repair = body.repair if body is not None else False
    workspace = served(request)

    def work(memory: UserMemory) -> dict[str, Any]:
        # a fresh instance: doctor inspects (and may rebuild) the search index
        report = memory.doctor(repair=repair).to_json()
        report["project"] = project
        return public_json(report, workspace.root)

    if repair:
        return await workspace.write(project, "doctor --repair", work)
    return await workspace.fresh(project, work)


for part in (server_routes, project_routes, memorize_routes, recall_routes, read_routes):
    router.include_router(part)
