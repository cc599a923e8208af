"""uac -- User as Code: a long-term memory compiler for AI agents.

The names below are uac's public Python API; everything else (``uac.index``,
``uac.view``, ...) is internal and may change between releases.

``import uac`` is light: heavy parts (torch, chromadb, the sandbox) load only
when a feature needs them.  Every name but the version and the exception tree
is resolved on first access from :data:`_LAZY`.

>>> from uac import UserMemory
>>> memory = UserMemory.create("user_projects/alice", user_name="Alice")  # doctest: +SKIP
"""

from __future__ import annotations

from ._version import __version__, python_problem

if python_problem() is not None:
    raise ImportError(python_problem())

import importlib  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from .errors import (  # noqa: E402
    AccessDenied,
    CapabilityUnsupported,
    CompileError,
    ConfigError,
    ContextOverflow,
    DomainNotFound,
    FactNotFound,
    FormatVersionError,
    InputError,
    InvalidName,
    InvalidReply,
    JobNotFound,
    MigrationError,
    ModelError,
    ModelNotConfigured,
    NetworkBlocked,
    NotAProject,
    NotFound,
    ProjectExists,
    ProjectLocked,
    ProjectNotFound,
    RateLimited,
    ReplyCutOff,
    RuntimeFailure,
    SandboxError,
    ScriptExhausted,
    ServerBusy,
    SessionConflict,
    SessionNotFound,
    StoreError,
    TransientModelError,
    UacError,
    UnsafePath,
    UserError,
)

if TYPE_CHECKING:
    from sandbox.result import RunResult
    from sandbox.session import Session as SandboxSession

    from .aio import AsyncUserMemory
    from .answer.model import Answer
    from .answer.options import AskOptions
    from .answer.style import REASONING_MODES, AnswerStyle, final_answer_line
    from .browse import DomainTables, FactDetail, Overview, RecordDetail, RecordRow, TurnDetail
    from .changelog import ChangeEntry, DiffReport, DomainAt, HistoryReport, RecordDiff
    from .compile.follow import CatchUp, ViewLag
    from .compile.kinds import registry as offline_kinds
    from .compile.report import CompileReport
    from .dates import Period
    from .doctor import DoctorReport
    from .export import ExportReport
    from .extract.places import fold as fold_place_name
    from .extract.places import lookup as lookup_place
    from .facts.model import Fact
    from .index.embeddings import Embedder, get_embedder
    from .index.search import SearchHit, rrf
    from .index.store import MemoryIndex
    from .index.tokens import tokenize
    from .llm import (
        ChatRequest,
        ChatResponse,
        LLMClient,
        LLMSettings,
        Message,
        ScriptedProvider,
        Usage,
        build_client,
        parse_structured,
        resolve_settings,
    )
    from .llm import require as require_llm
    from .llm.progress import Progress
    from .llm.rule_model import ProtocolModel, RuleModel
    from .memorize.correct import CorrectionReport
    from .memorize.forget import ForgetReport
    from .memorize.ingest import IngestReport
    from .memory import UserMemory
    from .project import Project
    from .records.importer import ImportReport
    from .sessions.locomo import (
        LOCOMO_ANSWERABLE,
        LOCOMO_CATEGORIES,
        LocomoConversation,
        LocomoQuestion,
        load_locomo,
        normalize_turn_ids,
        turn_session_number,
    )
    from .sessions.model import Session, Turn
    from .view.state import StateView

#: public name -> (module, attribute), imported on first access
_LAZY: dict[str, tuple[str, str]] = {
    # a user project
    "UserMemory": ("uac.memory", "UserMemory"),
    "AsyncUserMemory": ("uac.aio", "AsyncUserMemory"),
    "Session": ("uac.sessions.model", "Session"),
    "Turn": ("uac.sessions.model", "Turn"),
    "Fact": ("uac.facts.model", "Fact"),
    "Period": ("uac.dates", "Period"),
    "SearchHit": ("uac.index.search", "SearchHit"),
    "AskOptions": ("uac.answer.options", "AskOptions"),
    "Answer": ("uac.answer.model", "Answer"),
    # the answer style and the reasoning mode (shared with the benchmark harnesses)
    # what UserMemory's methods return (reports, views, the inspector's pages, sandbox runs)
    "Project": ("uac.project", "Project"),
    "MemoryIndex": ("uac.index.store", "MemoryIndex"),
    "IngestReport": ("uac.memorize.ingest", "IngestReport"),
    "ForgetReport": ("uac.memorize.forget", "ForgetReport"),
    "CorrectionReport": ("uac.memorize.correct", "CorrectionReport"),
    "CompileReport": ("uac.compile.report", "CompileReport"),
    "CatchUp": ("uac.compile.follow", "CatchUp"),
    "ViewLag": ("uac.compile.follow", "ViewLag"),
    "ImportReport": ("uac.records.importer", "ImportReport"),
    "DoctorReport": ("uac.doctor", "DoctorReport"),
    "ExportReport": ("uac.export", "ExportReport"),
    "StateView": ("uac.view.state", "StateView"),
    "Overview": ("uac.browse", "Overview"),
    "DomainTables": ("uac.browse", "DomainTables"),
    "RecordDetail": ("uac.browse", "RecordDetail"),
    "HistoryReport": ("uac.changelog", "HistoryReport"),
    "ChangeEntry": ("uac.changelog", "ChangeEntry"),
    "DiffReport": ("uac.changelog", "DiffReport"),
    "RecordDiff": ("uac.changelog", "RecordDiff"),
    "DomainAt": ("uac.changelog", "DomainAt"),
    "RecordRow": ("uac.browse", "RecordRow"),
    "FactDetail": ("uac.browse", "FactDetail"),
    "TurnDetail": ("uac.browse", "TurnDetail"),
    "RunResult": ("sandbox.result", "RunResult"),
    "SandboxSession": ("sandbox.session", "Session"),
    "Progress": ("uac.llm.progress", "Progress"),
    "AnswerStyle": ("uac.answer.style", "AnswerStyle"),
    "REASONING_MODES": ("uac.answer.style", "REASONING_MODES"),
    "final_answer_line": ("uac.answer.style", "final_answer_line"),
    # the model layer (and its scripted test double)
    "LLMClient": ("uac.llm", "LLMClient"),
    "LLMSettings": ("uac.llm", "LLMSettings"),
    "Message": ("uac.llm", "Message"),
    "Usage": ("uac.llm", "Usage"),
    "ChatRequest": ("uac.llm", "ChatRequest"),
    "ChatResponse": ("uac.llm", "ChatResponse"),
    "ScriptedProvider": ("uac.llm", "ScriptedProvider"),
    "RuleModel": ("uac.llm.rule_model", "RuleModel"),
    # the old name of RuleModel, kept for code that imports it
    "ProtocolModel": ("uac.llm.rule_model", "ProtocolModel"),
    "build_client": ("uac.llm", "build_client"),
    "resolve_settings": ("uac.llm", "resolve_settings"),
    "require_llm": ("uac.llm", "require"),
    "parse_structured": ("uac.llm", "parse_structured"),
    # retrieval building blocks: the bundled embedding model, BM25 tokens, rank fusion
    "Embedder": ("uac.index.embeddings", "Embedder"),
    "get_embedder": ("uac.index.embeddings", "get_embedder"),
    "tokenize": ("uac.index.tokens", "tokenize"),
    "rrf": ("uac.index.search", "rrf"),
    # the kinds of records the offline compiler writes (name, domain, collection, class)
    "offline_kinds": ("uac.compile.kinds", "registry"),
    # the gazetteer the offline kinds read places with (a place by name; a name folded for comparing)
    "lookup_place": ("uac.extract.places", "lookup"),
    "fold_place_name": ("uac.extract.places", "fold"),
    # the LoCoMo dataset
    "LocomoConversation": ("uac.sessions.locomo", "LocomoConversation"),
    "LocomoQuestion": ("uac.sessions.locomo", "LocomoQuestion"),
    "load_locomo": ("uac.sessions.locomo", "load_locomo"),
    "normalize_turn_ids": ("uac.sessions.locomo", "normalize_turn_ids"),
    "turn_session_number": ("uac.sessions.locomo", "turn_session_number"),
    "LOCOMO_CATEGORIES": ("uac.sessions.locomo", "LOCOMO_CATEGORIES"),
    "LOCOMO_ANSWERABLE": ("uac.sessions.locomo", "LOCOMO_ANSWERABLE"),
}

__all__ = [
    "__version__",
    # the exception tree (uac.errors)
    "UacError",
    "UserError",
    "ProjectNotFound",
    "NotAProject",
    "ConfigError",
    "FormatVersionError",
    "ProjectExists",
    "InputError",
    "InvalidName",
    "AccessDenied",
    "RuntimeFailure",
    "ProjectLocked",
    "MigrationError",
    "ModelError",
    "ModelNotConfigured",
    "TransientModelError",
    "RateLimited",
    "ScriptExhausted",
    "NetworkBlocked",
    "StoreError",
    "CompileError",
    "SandboxError",
    "SessionConflict",
    "UnsafePath",
    "NotFound",
    "FactNotFound",
    "SessionNotFound",
    "DomainNotFound",
    "JobNotFound",
    "ServerBusy",
    "InvalidReply",
    "ReplyCutOff",
    "CapabilityUnsupported",
    "ContextOverflow",
    # resolved lazily (_LAZY)
    "UserMemory",
    "AsyncUserMemory",
    "Session",
    "Turn",
    "Fact",
    "Period",
    "offline_kinds",
    "lookup_place",
    "fold_place_name",
    "SearchHit",
    "AskOptions",
    "Answer",
    "Project",
    "MemoryIndex",
    "IngestReport",
    "ForgetReport",
    "CorrectionReport",
    "CompileReport",
    "CatchUp",
    "ViewLag",
    "ImportReport",
    "DoctorReport",
    "ExportReport",
    "StateView",
    "Overview",
    "DomainTables",
    "RecordDetail",
    "HistoryReport",
    "ChangeEntry",
    "DiffReport",
    "RecordDiff",
    "DomainAt",
    "RecordRow",
    "FactDetail",
    "TurnDetail",
    "RunResult",
    "SandboxSession",
    "Progress",
    "AnswerStyle",
    "REASONING_MODES",
    "final_answer_line",
    "LLMClient",
    "LLMSettings",
    "Message",
    "Usage",
    "ChatRequest",
    "ChatResponse",
    "ScriptedProvider",
    "RuleModel",
    "ProtocolModel",
    "build_client",
    "resolve_settings",
    "require_llm",
    "parse_structured",
    "Embedder",
    "get_embedder",
    "tokenize",
    "rrf",
    "LocomoConversation",
    "LocomoQuestion",
    "load_locomo",
    "normalize_turn_ids",
    "turn_session_number",
    "LOCOMO_CATEGORIES",
    "LOCOMO_ANSWERABLE",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'uac' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
