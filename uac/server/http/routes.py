"""The ``/v1`` routes: one library call each.

Endpoints that call the library are plain ``def`` functions, so FastAPI runs
them in its thread pool: requests for different projects proceed in parallel,
and writes to one project are serialised by the project lock.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials

from ...errors import InputError
from ...names import DOMAIN_NAME, ITEM_ID
from . import models as m
from .auth import ApiError, admin_access, bearer, bearer_token, project_access, served
from .bodies import ingest_body, records_file
from .export import export_archive

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": m.ErrorResponse} for status in (400, 401, 403, 404, 409, 413, 422, 423, 500, 502, 503)
}

router = APIRouter(prefix="/v1", responses=ERRORS)
Access = Depends(project_access)


def _to_json(value: Any) -> dict[str, Any]:
    return value.to_json() if hasattr(value, "to_json") else dict(value)


def _domain_name(domain: str) -> str:
    return DOMAIN_NAME.check(domain)


def _item_id(value: str, what: str) -> str:
    return replace(ITEM_ID, what=f"{what} id").check(value)


# --- workspace ------------------------------------------------------------------


@router.get("/health", tags=["server"], summary="Liveness check (no token needed).")
def health() -> dict[str, str]:
    from ..._version import __version__

    return {"status": "ok", "version": __version__}


@router.get("/projects", tags=["projects"], response_model=m.ProjectList, dependencies=[Depends(admin_access)])
def list_projects(request: Request) -> dict[str, Any]:
    return {"projects": served(request).names()}


@router.post(
    "/projects",
    tags=["projects"],
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
    return {"project": body.name, "token": token, "token_id": record.id}


@router.get("/projects/{project}", tags=["projects"], response_model=m.ProjectInfo)
def project_info(request: Request, project: str = Access) -> dict[str, Any]:
    memory = served(request).reader(project)
    config = memory.project.config
    return {
        "project": project,
        "user_name": config.user.name,
        "timezone": config.user.timezone,
        "format_version": config.format_version,
        "facts": len(memory.facts()),
        "domains": _domains(memory),
    }


@router.post("/projects/{project}/tokens", tags=["projects"], status_code=201, response_model=m.CreatedToken)
def create_token(body: m.CreateTokenRequest, request: Request, project: str = Access) -> dict[str, Any]:
    workspace = served(request)
    with workspace.writer(project).project.lock("create token"):
        token, record = workspace.tokens(project).create(body.name)
    return {"token": token, "id": record.id, "name": record.name}


@router.get("/projects/{project}/tokens", tags=["projects"], response_model=m.TokenList)
def list_tokens(request: Request, project: str = Access) -> dict[str, Any]:
    return {"tokens": [r.public() for r in served(request).tokens(project).records()]}


@router.delete("/projects/{project}/tokens/{token_id}", tags=["projects"], response_model=m.TokenInfo)
def revoke_token(token_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    workspace = served(request)
    with workspace.writer(project).project.lock("revoke token"):
        return workspace.tokens(project).revoke(token_id).public()


# --- memorize -----------------------------------------------------------------------


@router.post(
    "/projects/{project}/sessions",
    tags=["memorize"],
    response_model=m.IngestResult,
    summary="Add sessions given as JSON (chat messages, LoCoMo) or as a transcript text.",
)
def add_session(body: m.AddSessionRequest, request: Request, project: str = Access) -> dict[str, Any]:
    if (body.session is None) == (body.text is None):
        raise InputError("give exactly one of 'session' (JSON) and 'text' (a transcript).")
    memory = served(request).writer(project)
    return ingest_body(memory, body.session if body.text is None else body.text, body)


@router.post(
    "/projects/{project}/sessions/upload",
    tags=["memorize"],
    response_model=m.IngestResult,
    summary="Add sessions from an uploaded file (the raw request body).",
    openapi_extra={"requestBody": {"content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}, "required": True}},
)
async def upload_session(
    request: Request,
    project: str = Access,
    format: m.SessionFormat = Query("auto"),
    date: str | None = Query(None, max_length=64),
    sample_id: str | None = Query(None, max_length=200),
    extractor: m.Extractor | None = Query(None),
) -> dict[str, Any]:
    data = await request.body()
    options = m.AddSessionRequest(format=format, date=date, sample_id=sample_id, extractor=extractor)
    workspace = served(request)

    def work() -> dict[str, Any]:
        return ingest_body(workspace.writer(project), data, options)

    return await run_in_threadpool(work)


@router.post("/projects/{project}/records", tags=["memorize"], summary="Import structured records into a domain.")
def import_records(body: m.ImportRecordsRequest, request: Request, project: str = Access) -> dict[str, Any]:
    memory = served(request).writer(project)
    _domain_name(body.domain)
    with records_file(body) as path:
        result = memory.import_records(path, domain=body.domain, collection=body.collection, record_type=body.record_type)
    return _to_json(result)


@router.post(
    "/projects/{project}/compile",
    tags=["memorize"],
    status_code=202,
    response_model=m.Job,
    summary="Start compiling the facts into typed domain code (a background job).",
)
def start_compile(request: Request, response: Response, body: m.CompileRequest | None = None, project: str = Access) -> dict[str, Any]:
    workspace = served(request)
    mode = body.mode if body is not None else None
    memory = workspace.writer(project)

    def work() -> dict[str, Any]:
        return _to_json(memory.compile(mode=mode))

    job = request.app.state.jobs.submit(project, "compile", work)
    response.headers["Location"] = f"/v1/projects/{project}/compile/{job.id}"
    return job.to_json()


def _job(request: Request, job_id: str, project: str) -> dict[str, Any]:
    job = request.app.state.jobs.get(job_id)
    if job is None or job.project != project:
        raise ApiError(404, "job_not_found", f"no job {job_id!r} for project {project!r} (jobs are kept in memory until the server restarts).")
    return job.to_json()


@router.get("/projects/{project}/compile/{job_id}", tags=["memorize"], response_model=m.Job)
def compile_status(job_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    return _job(request, job_id, project)


@router.get("/jobs/{job_id}", tags=["memorize"], response_model=m.Job, summary="A job's status (with its project's token).")
def job_status(
    job_id: str,
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer),
) -> dict[str, Any]:
    token = bearer_token(credentials)
    job = request.app.state.jobs.get(job_id)
    # a job of a project the token does not open is reported as missing: ids reveal nothing
    if job is None or not served(request).token_grants(job.project, token):
        raise ApiError(404, "job_not_found", f"no job {job_id!r} for this token (jobs are kept in memory until the server restarts).")
    return job.to_json()


@router.delete("/projects/{project}/facts/{fact_id}", tags=["memorize"], response_model=m.ForgetResult)
def forget_fact(fact_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    return _to_json(served(request).writer(project).forget(fact=_item_id(fact_id, "fact")))


@router.delete("/projects/{project}/sessions/{session_id}", tags=["memorize"], response_model=m.ForgetResult)
def forget_session(session_id: str, request: Request, project: str = Access) -> dict[str, Any]:
    return _to_json(served(request).writer(project).forget(session=_item_id(session_id, "session")))


@router.delete("/projects/{project}/domains/{domain}", tags=["memorize"], response_model=m.ForgetResult)
def forget_domain(
    domain: str, request: Request, project: str = Access, collection: str | None = Query(None, max_length=64)
) -> dict[str, Any]:
    return _to_json(served(request).writer(project).forget(domain=_domain_name(domain), collection=collection))


# --- recall -----------------------------------------------------------------------------


@router.post("/projects/{project}/search", tags=["recall"], response_model=m.SearchResponse)
def search(body: m.SearchRequest, request: Request, project: str = Access) -> dict[str, Any]:
    with served(request).searching(project) as memory:
        hits = memory.search(body.query, k=body.k, channel=body.channel, as_of=body.as_of)
    return {"results": [h.to_json() for h in hits]}


@router.post("/projects/{project}/ask", tags=["recall"], response_model=m.AskResponse)
def ask(body: m.AskRequest, request: Request, project: str = Access) -> dict[str, Any]:
    with served(request).searching(project) as memory:
        answer = memory.ask(body.question, **body.model_dump(exclude={"question"}))
    return answer.to_json()


@router.post("/projects/{project}/repl", tags=["recall"], response_model=m.ReplResponse, summary="Run Python in the sandbox over the typed state.")
def repl(body: m.ReplRequest, request: Request, project: str = Access) -> dict[str, Any]:
    return served(request).reader(project).run(body.code, as_of=body.as_of, include_facts=body.include_facts).to_json()


@router.get("/projects/{project}/facts", tags=["recall"], response_model=m.FactList)
def list_facts(
    request: Request,
    project: str = Access,
    as_of: str | None = Query(None, max_length=40),
    include_superseded: bool = Query(False),
) -> dict[str, Any]:
    facts = served(request).reader(project).facts(as_of=as_of, include_superseded=include_superseded)
    return {"facts": [f.to_json() for f in facts]}


# --- reading the project ------------------------------------------------------------------


def _domains(memory: Any) -> list[str]:
    root = memory.project.paths.domains
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and DOMAIN_NAME.ok(p.name) and (p / "schema.py").is_file())


@router.get("/projects/{project}/manifest", tags=["read"], response_model=m.ManifestResponse)
def manifest(request: Request, project: str = Access) -> dict[str, Any]:
    memory = served(request).reader(project)
    return {"project": project, "manifest": memory.project.read_text("MANIFEST.md") or ""}


@router.get("/projects/{project}/domains", tags=["read"], response_model=m.DomainList)
def domains(request: Request, project: str = Access) -> dict[str, Any]:
    return {"domains": _domains(served(request).reader(project))}


@router.get("/projects/{project}/domains/{domain}", tags=["read"], response_model=m.DomainCode)
def domain_code(domain: str, request: Request, project: str = Access) -> dict[str, Any]:
    memory = served(request).reader(project)
    folder = f"domains/{_domain_name(domain)}"
    read = memory.project.read_text
    files = {name: text for name in ("__init__.py", "schema.py", "state.py") if (text := read(f"{folder}/{name}")) is not None}
    if not files:
        raise ApiError(404, "domain_not_found", f"project {project!r} has no domain {domain!r} (see GET /v1/projects/{project}/domains).")
    return {"domain": domain, "files": files}


@router.get(
    "/projects/{project}/export",
    tags=["read"],
    response_class=StreamingResponse,
    responses={200: {"content": {"application/gzip": {}}, "description": "The project as a .tar.gz (without .uac/ and auth/)."}},
)
def export(request: Request, project: str = Access) -> StreamingResponse:
    memory = served(request).writer(project)
    spool = export_archive(memory)
    return StreamingResponse(
        iter(lambda: spool.read(1 << 16), b""),
        media_type="application/gzip",
        headers={"Content-Disposition": f'attachment; filename="{project}.tar.gz"'},
        background=None,
    )


@router.post("/projects/{project}/doctor", tags=["read"], summary="Check the project's health; repair=true rebuilds the indexes.")
def doctor(request: Request, body: m.DoctorRequest | None = None, project: str = Access) -> dict[str, Any]:
    repair = body.repair if body is not None else False
    # a fresh instance: doctor inspects (and may rebuild) the search index
    return served(request).writer(project).doctor(repair=repair).to_json()
