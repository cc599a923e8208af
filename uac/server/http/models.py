"""Request and response bodies of the HTTP API (pydantic models; they make the OpenAPI schema)."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, create_model

from ...answer.options import ask_option_specs

Day = Field(None, description="A day, YYYY-MM-DD: only facts valid on that day are used.", max_length=40)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- errors -------------------------------------------------------------------


class ErrorBody(BaseModel):
    code: str = Field(description="Stable machine-readable code, e.g. project_not_found.")
    message: str = Field(description="What went wrong and how to fix it.")
    hint: str | None = None


class ErrorResponse(BaseModel):
    error: ErrorBody


# --- projects and tokens ----------------------------------------------------------


class CreateProjectRequest(_Request):
    name: str = Field(min_length=1, max_length=64, description="Project name: letters, digits, '.', '_', '-'.")
    user_name: str | None = Field(None, max_length=200)
    timezone: str = Field("UTC", max_length=64)
    token_name: str = Field("", max_length=100, description="Label of the first project token.")


class CreatedProject(BaseModel):
    project: str
    token: str = Field(description="A bearer token for this project. It is shown only once.")
    token_id: str


class ProjectList(BaseModel):
    projects: list[str]


class HealthChecks(BaseModel):
    imports: str = Field(description="'ok', or why the search stack (numpy, onnxruntime, chromadb) does not import.")
    search: str = Field(description="'ok', or why embedding and scoring one text failed.")


class Health(BaseModel):
    status: Literal["ok", "broken"] = Field(
        description="'ok'; a broken process answers 503 with the server_broken error "
        "(these fields in its details): restart it."
    )
    version: str
    checks: HealthChecks


class ServerStatus(BaseModel):
    warm: int = Field(description="Projects warm now (opened, search tables loaded).")
    warm_limit: int = Field(description="Most projects kept warm at once.")
    idle_seconds: float = Field(description="A warm project unused this long is closed (0: never for idleness).")
    threads: int = Field(description="Threads running library calls at once, at most.")
    writes: int = Field(description="Writes running at once, at most.")
    open_files_limit: int = Field(description="The process's open-file limit (-1: unlimited).")
    opened: int = Field(description="Projects opened since the server started.")
    evicted: int = Field(description="Warm projects closed to make room for others.")
    expired: int = Field(description="Warm projects closed after idle_seconds unused.")
    dropped: int = Field(description="Warm projects closed because their files changed, vanished or failed.")


class ProjectInfo(BaseModel):
    project: str
    user_name: str
    timezone: str
    format_version: int
    facts: int
    domains: list[str]


class TokenInfo(BaseModel):
    id: str
    name: str
    created: str


class CreateTokenRequest(_Request):
    name: str = Field("", max_length=100)


class CreatedToken(BaseModel):
    token: str = Field(description="The new bearer token. It is shown only once.")
    id: str
    name: str


class TokenList(BaseModel):
    tokens: list[TokenInfo]


# --- memorize ----------------------------------------------------------------------

SessionFormat = Literal["auto", "locomo", "messages", "transcript"]
Extractor = Literal["auto", "rules", "llm"]


class AddSessionRequest(_Request):
    session: Any = Field(
        None,
        description="The session as JSON: chat messages ({'date', 'messages': [...]}, or a list of them) "
        "or a LoCoMo conversation.",
    )
    text: str | None = Field(None, description="A plain 'Speaker: text' transcript (instead of 'session').")
    format: SessionFormat = "auto"
    date: str | None = Field(None, max_length=64, description="Session date when the input has none.")
    sample_id: str | None = Field(None, max_length=200)
    extractor: Extractor | None = None
    compile: bool | None = Field(
        None,
        description="Bring the view up to date afterwards (in the background): false leaves it as it is "
        "(bulk loads: compile once at the end); default: the project's [compile] auto.",
    )


class IngestResult(BaseModel):
    model_config = ConfigDict(extra="allow")
    sessions_added: list[str]
    sessions_skipped: list[str]
    facts_appended: int


class ImportRecordsRequest(_Request):
    domain: str = Field(min_length=1, max_length=64)
    collection: str = Field(min_length=1, max_length=64)
    record_type: str | None = Field(None, max_length=64)
    records: list[dict[str, Any]] | None = Field(None, description="The records as JSON objects.")
    csv: str | None = Field(None, description="The records as CSV text with a header row (instead of 'records').")


class CompileRequest(_Request):
    mode: Literal["incremental", "bounded", "offline"] | None = Field(
        None, description="incremental or bounded (need a model), offline (no model); default: the project's setting."
    )


class Job(BaseModel):
    id: str
    project: str
    kind: str
    status: Literal["queued", "running", "succeeded", "failed"]
    created: str
    started: str | None = None
    finished: str | None = None
    result: dict[str, Any] | None = None
    error: ErrorBody | None = None
    progress: dict[str, Any] | None = Field(
        None, description='While it runs: {"done", "total", "unit"} (e.g. 3 of 7 "domains").'
    )


class ForgetResult(BaseModel):
    model_config = ConfigDict(extra="allow")


class CorrectRequest(_Request):
    text: str = Field(min_length=1, max_length=4000, description="The corrected statement.")
    supersedes: list[str] = Field(default_factory=list, max_length=100, description="Ids of the facts it replaces.")


class CorrectResult(BaseModel):
    fact: dict[str, Any]
    session_id: str
    superseded: list[str]


# --- search, ask, run --------------------------------------------------------------


class SearchRequest(_Request):
    query: str = Field(min_length=1, max_length=10_000)
    k: int = Field(20, ge=1, le=500)
    channel: Literal["facts", "archive", "records", "all"] = "all"
    as_of: str | None = Day
    happened: str | None = Field(
        None,
        max_length=40,
        description="A period (2023-05-07, 2023-05, 2022, 2023-summer, START/END): only facts whose event date overlaps it.",
    )


class RecordPointer(BaseModel):
    """Where an imported record found by a search lives in the view."""

    domain: str
    collection: str
    position: int
    record_type: str
    source: str


class SearchHit(BaseModel):
    id: str
    channel: Literal["facts", "archive", "records"]
    text: str
    score: float
    session_id: str
    session_date: str | None
    evidence: list[str]
    #: only on a hit of the records channel
    record: RecordPointer | None = None


class SearchResponse(BaseModel):
    results: list[SearchHit]


def _ask_fields() -> dict[str, Any]:
    """The body of ``/ask``: the question plus every :class:`~uac.answer.options.AskOptions` field."""
    fields: dict[str, Any] = {"question": (str, Field(min_length=1, max_length=10_000))}
    for spec in ask_option_specs():
        if spec.kind is bool:
            fields[spec.name] = (bool, Field(spec.default, description=spec.help))
            continue
        kind: Any = str if spec.kind is _dt.date else spec.kind
        if spec.choices:
            kind = Literal[spec.choices]
        description = spec.help + (" Default from the project's uac.toml [answer]." if spec.from_config else "")
        fields[spec.name] = (
            Optional[kind],
            Field(None, description=description, ge=spec.minimum, le=spec.maximum, max_length=spec.max_length),
        )
    return fields


if TYPE_CHECKING:

    class AskRequest(_Request):
        """Built at run time with one field per ask option (see below); a type checker sees the question."""

        question: str

else:
    AskRequest = create_model("AskRequest", __base__=_Request, **_ask_fields())


class AskResponse(BaseModel):
    model_config = ConfigDict(extra="allow")
    answer: Any
    channels: dict[str, Any]
    usage: dict[str, Any]


class ReplRequest(_Request):
    code: str = Field(min_length=1, max_length=200_000)
    as_of: str | None = Day
    include_facts: bool = False


class ReplError(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    message: str


class ReplResponse(BaseModel):
    ok: bool
    result: Any = None
    stdout: str
    error: ReplError | None = None
    view: dict[str, Any] | None = Field(
        None, description="How far the view lags the log: {facts_not_included, catching_up}."
    )


# --- reading the project -------------------------------------------------------------


class ManifestResponse(BaseModel):
    project: str
    manifest: str


class DomainList(BaseModel):
    domains: list[str]


class DomainCode(BaseModel):
    domain: str
    files: dict[str, str] = Field(description="File name -> source (schema.py, state.py, __init__.py).")


class FactList(BaseModel):
    facts: list[dict[str, Any]]


class ChangeList(BaseModel):
    """``uac history --json``: see docs/formats.md."""

    changes: list[dict[str, Any]]
    total: int
    truncated: bool
    damaged_lines: int


class ChangeDiff(BaseModel):
    """``uac diff --json``: see docs/formats.md."""

    since: str
    until: str | None
    changes: int
    domains: list[dict[str, Any]]
    damaged_lines: int


class DomainAt(BaseModel):
    """``uac show PROJECT DOMAIN --at POINT --json``: see docs/formats.md."""

    domain: str
    at: str
    compile: str | None
    records: int
    collections: dict[str, list[dict[str, Any]]]


class DoctorRequest(_Request):
    repair: bool = False
