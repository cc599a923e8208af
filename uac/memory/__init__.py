""":class:`UserMemory`: the Python API over one user project.

A thin facade just under the CLI, HTTP and MCP adapters: it owns a
:class:`~uac.context.MemoryContext` (the project, the model, the indexes, the
typed view) and hands it to the module that implements each capability.
Every method returns a real type; the ones adapters print have ``to_json()``.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Only what every command needs is imported here; each capability module is
# imported by the method that uses it, so a command line that searches does not
# pay for ingest, the model client or the inspector (see docs/performance.md).
from .context import MemoryContext
from .dates import parse_day
from .project import Project

if TYPE_CHECKING:
    import sandbox as _sandbox

    from . import browse as _browse
    from . import changelog as _changelog
    from . import llm as _llm
    from .answer.model import Answer
    from .answer.options import AskOptions
    from .compile import follow as _follow
    from .compile.report import CompileReport
    from .dates import Period
    from .doctor import DoctorReport
    from .export import ExportReport
    from .facts.model import Fact
    from .index.search import SearchHit
    from .index.store import MemoryIndex
    from .llm.progress import ProgressCallback
    from .memorize.correct import CorrectionReport
    from .memorize.forget import ForgetReport
    from .memorize.ingest import IngestReport
    from .records.importer import ImportReport
    from .sessions import Session
    from .view.state import StateView


class UserMemory:
    """Open a user project and work with it.

    ``llm`` overrides the configured model: pass an :class:`~uac.llm.LLMClient`
    (e.g. wrapping a :class:`~uac.llm.ScriptedProvider` in tests), or leave it
    ``None`` to resolve the model from ``uac.toml`` and the environment.
    """

    def __init__(self, project: Project, *, llm: _llm.LLMClient | None = None) -> None:
        self.context = MemoryContext(project, llm=llm)

    @classmethod
    def open(cls, spec: str | Path, *, llm: _llm.LLMClient | None = None) -> "UserMemory":
        return cls(Project.open(spec), llm=llm)

    @classmethod
    def create(
        cls,
        spec: str | Path,
        *,
        user_name: str | None = None,
        timezone: str = "UTC",
        llm: _llm.LLMClient | None = None,
    ) -> "UserMemory":
        return cls(Project.create(spec, user_name=user_name, timezone=timezone), llm=llm)

    @classmethod
    def open_or_create(
        cls,
        spec: str | Path,
        *,
        user_name: str | None = None,
        timezone: str = "UTC",
        llm: _llm.LLMClient | None = None,
    ) -> "UserMemory":
        """Open the project at ``spec``, or create it there (with ``user_name`` and
        ``timezone``) when nothing is there yet.  A directory that exists but is not
        a project is an error, as for :meth:`open`."""
        from .errors import ProjectExists
        from .project import is_project
        from .workspace import resolve_project

        if not is_project(resolve_project(spec)):
            try:
                return cls.create(spec, user_name=user_name, timezone=timezone, llm=llm)
            except ProjectExists:
                pass  # made meanwhile by another process, or a directory that is not empty: open says which
        return cls.open(spec, llm=llm)

    def __repr__(self) -> str:
        return f"UserMemory({str(self.root)!r})"

    @property
    def project(self) -> Project:
        return self.context.project

    @property
    def root(self) -> Path:
        return self.context.root

    def close(self) -> None:
        """Release index clients and files (reopened on the next use)."""
        self.context.close()

    def __enter__(self) -> "UserMemory":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the model --------------------------------------------------------------

    @property
    def llm_settings(self) -> _llm.LLMSettings:
        return self.context.llm_settings

    @property
    def llm(self) -> _llm.LLMClient | None:
        """The configured LLM client, or ``None`` (LLM-free paths only)."""
        return self.context.llm

    @property
    def index(self) -> "MemoryIndex":
        """The project's search indexes (derived data under ``.uac/``), opened lazily."""
        return self.context.index

    # -- health -------------------------------------------------------------------

    def doctor(self, *, repair: bool = False, model: bool = False, deep: bool = False) -> DoctorReport:
        """Check the project; ``model`` also probes the model endpoint with a few tiny real calls;
        ``deep`` (implied by ``repair``) compares every log line and index entry instead of the
        fast checks of positions, ids and recorded checksums."""
        from .doctor import run_doctor

        return run_doctor(self.context, repair=repair, model=model, deep=deep)

    # -- structure: the typed view (domains/) -------------------------------------

    def compile(
        self, mode: str | None = None, *, facts: list[Fact] | None = None, progress: "ProgressCallback | None" = None
    ) -> CompileReport:
        """Compile the facts into ``domains/``.

        ``mode``: ``incremental`` or ``bounded`` (need a model), ``offline``
        (keyword-routed event timeline), or ``None``: ``[compile] mode`` when a
        model is configured, else ``offline``.  ``facts`` defaults to
        :meth:`facts` (the facts valid now).  ``progress`` is called with a
        :class:`uac.llm.progress.Progress` as domains finish (and while calls run).
        """
        from .compile.dispatch import compile_project

        facts = self.facts() if facts is None else list(facts)
        return compile_project(
            self.project, facts, None if mode == "offline" else self.llm, mode=mode, progress=progress
        )

    def import_records(
        self,
        path: str | Path,
        *,
        domain: str,
        collection: str,
        record_type: str | None = None,
        replace: bool = False,
    ) -> ImportReport:
        """Compile a JSON/JSONL/CSV records file into ``domains/<domain>/``.

        Records already imported from a file of the same name are not added
        again (the same file twice is a no-op); ``replace`` replaces the
        collection with the file's records.  Undo with ``forget(domain=...,
        collection=...)``.
        """
        from .records.importer import import_records

        return import_records(
            self.project, path, domain=domain, collection=collection, record_type=record_type, replace=replace
        )

    @property
    def state(self) -> StateView:
        """The typed view, read-only: ``memory.state["travel"].trips`` is a tuple of
        frozen dataclass instances."""
        from .view.state import StateView

        return StateView(self.context.load_view())

    def load_state(self, *, cache: bool = True) -> StateView:
        """The typed view, as :attr:`state`.  ``cache=False`` validates and interprets
        every domain's ``schema.py`` and ``state.py`` afresh, without reading or
        writing the load cache under ``.uac/`` (e.g. to check files edited by hand)."""
        from .view.state import StateView

        return StateView(self.context.load_view(cache=cache))

    def sandbox_state(self) -> dict[str, dict[str, object]]:
        """domain -> top-level name -> loaded value (what the sandbox encodes)."""
        return self.context.sandbox_state()

    # -- memorize: sessions, facts, archive, search ---------------------------------

    def ingest(
        self,
        path: str | Path,
        *,
        format: str = "auto",
        sample_id: str | None = None,
        date: str | None = None,
        extractor: str | None = None,
        progress: "ProgressCallback | None" = None,
        compile: bool | None = None,
    ) -> IngestReport:
        """Read a session file, archive its sessions, append their facts, index them,
        then bring the view up to date (the report's ``view`` says what that did).

        ``extractor``: ``rules``, ``llm`` or ``None`` (the LLM when a model is
        configured, else rules).  ``progress`` is called with a
        :class:`uac.llm.progress.Progress` as sessions are committed (and while
        model calls run).  ``compile``: ``False`` leaves the view as it is (bulk
        loads: compile once at the end), ``None`` follows ``[compile] auto``.
        """
        from .memorize.ingest import ingest_sessions
        from .sessions import load_sessions

        user = self.project.config.user
        sessions = load_sessions(
            path, format=format, sample_id=sample_id, date=date, user_name=user.name, timezone=user.timezone
        )
        report = ingest_sessions(
            self.context, sessions, extractor=extractor, file=path, format=sessions[0].source, progress=progress
        )
        return self._catch_up(report, compile)

    def _catch_up(self, report: IngestReport, compile: bool | None) -> IngestReport:
        """The view's catch-up after an ingest (never turns the ingest into a failure)."""
        from .compile.follow import catch_up_view

        report.view = catch_up_view(self.context, compile=compile, added=bool(report.sessions_added))
        return report

    def view_lag(self) -> "_follow.ViewLag":
        """How many facts valid now the typed view does not include yet (``ask``, ``repl``
        and the servers' tools report it), and whether a catch-up runs in this process."""
        from .compile.follow import view_lag

        return view_lag(self.context)

    def add_session(
        self,
        session: "Session | dict[str, Any] | list[Any] | str | Path",
        *,
        extractor: str | None = None,
        compile: bool | None = None,
        **read_options: Any,
    ) -> IngestReport:
        """Add one conversation: a :class:`~uac.Session`, a JSON value as a session file
        holds (``{"date": "2024-05-02", "messages": [{"role": "user", "content": "..."}]}``,
        a list of such messages, or a LoCoMo conversation), or a file path (as :meth:`ingest`).

        ``read_options`` are :meth:`ingest`'s (``format``, ``sample_id``, ``date``); ``compile``
        as for :meth:`ingest`."""
        from .errors import InputError
        from .memorize.ingest import ingest_sessions
        from .sessions import Session
        from .sessions.detect import sessions_from_value

        if isinstance(session, Session):
            if read_options:
                raise InputError(
                    f"add_session: {', '.join(sorted(read_options))} apply to files and JSON values, not to a Session."
                )
            return self._catch_up(
                ingest_sessions(self.context, [session], extractor=extractor, format=session.source), compile
            )
        if isinstance(session, (dict, list)):
            unknown = set(read_options) - {"format", "sample_id", "date"}
            if unknown:
                raise InputError(
                    f"add_session got unknown options: {', '.join(sorted(unknown))}.",
                    hint="It takes format, sample_id and date.",
                )
            user = self.project.config.user
            sessions = sessions_from_value(
                session,
                label="the session given to add_session",
                user_name=user.name,
                timezone=user.timezone,
                **read_options,
            )
            return self._catch_up(
                ingest_sessions(self.context, sessions, extractor=extractor, format=sessions[0].source), compile
            )
        if isinstance(session, (str, Path)):
            return self.ingest(session, extractor=extractor, compile=compile, **read_options)
        raise InputError(
            f"add_session takes a Session, a dict or list of chat messages, or a file path; got {type(session).__name__}.",
            hint="Pass {'date': 'YYYY-MM-DD', 'messages': [{'role': 'user', 'content': '...'}]}.",
        )

    def search(
        self,
        query: str,
        *,
        k: int = 20,
        channel: str = "all",
        as_of: "_dt.date | str | None" = None,
        happened: "Period | _dt.date | str | None" = None,
    ) -> list[SearchHit]:
        """Hybrid (dense + BM25, RRF) search over facts and/or archive chunks, best first.

        ``as_of``: what was known on that day (facts said by then, not yet superseded);
        without it superseded facts are found too (``invalid_at`` set).  ``happened``:
        facts whose event date overlaps the period (``2023-05``, ``2022``, ``START/END``)."""
        from .recall import search

        return search(self.context, query, k=k, channel=channel, as_of=as_of, happened=happened)

    def search_many(
        self,
        queries: list[str],
        *,
        k: int = 20,
        channel: str = "all",
        as_of: "_dt.date | str | None" = None,
        happened: "Period | _dt.date | str | None" = None,
    ) -> list[list[SearchHit]]:
        """:meth:`search` for many queries at once: one hit list per query.

        The queries are embedded in one batch and the log is read once, so this
        is much faster than a loop over :meth:`search` (e.g. for evaluations).
        """
        from .recall import search_many

        return search_many(self.context, queries, k=k, channel=channel, as_of=as_of, happened=happened)

    def facts(self, *, as_of: "_dt.date | str | None" = None, include_superseded: bool = False) -> list[Fact]:
        """The facts of the log (folded), in log order: valid now (or at ``as_of``) unless
        ``include_superseded``."""
        from .recall import list_facts

        return list_facts(self.context, as_of=as_of, include_superseded=include_superseded)

    def sessions(self) -> list[Session]:
        """Every archived session, oldest first."""
        from .sessions.archive import Archive

        archive = Archive(self.project.paths.sessions)
        return sorted((archive.read(i) for i in archive.ids()), key=lambda s: (s.date, s.session_id))

    def session(self, session_id: str) -> Session:
        """One archived session by id; :class:`~uac.SessionNotFound` if there is none."""
        from .errors import SessionNotFound
        from .sessions.archive import Archive

        archive = Archive(self.project.paths.sessions)
        path = archive.path(session_id)
        if not path.is_file():
            raise SessionNotFound(
                f"no session {session_id!r} in {self.root}.",
                hint="{do:find_sessions}.",
            )
        return archive.read(session_id)

    def forget(
        self,
        *,
        fact: str | None = None,
        session: str | None = None,
        domain: str | None = None,
        collection: str | None = None,
    ) -> ForgetReport:
        """Remove for real: a fact; a session with its facts and archive file; or a
        domain of the typed view (``collection``: only that collection), e.g. records
        imported with :meth:`import_records`."""
        from .memorize.forget import forget

        return forget(self.context, fact=fact, session=session, domain=domain, collection=collection)

    def correct(self, text: str, *, supersedes: "list[str] | tuple[str, ...]" = ()) -> CorrectionReport:
        """Add a fact the user wrote (a correction) that supersedes the facts ``supersedes``.

        The correction is a fact like the others (its evidence is a one-turn
        session of source ``correction``, its ``meta`` says when it was made);
        the superseded facts stop being valid today, and the next compile
        revisits the records that cite them.
        """
        from .memorize.correct import correct

        return correct(self.context, text, supersedes=supersedes)

    # -- inspecting: overview and the evidence chain ---------------------------------

    def overview(self) -> _browse.Overview:
        """Counts, facts per month, records per domain, the last compile and its coverage."""
        from . import browse as _browse

        return _browse.overview(self.context)

    def domain_tables(self, domain: str) -> _browse.DomainTables:
        """Each collection of ``domain`` as a table of records (sort and filter with ``.view()``)."""
        from . import browse as _browse

        return _browse.domain_tables(self.context, domain)

    def record(self, domain: str, collection: str, position: int) -> _browse.RecordDetail:
        """Record number ``position`` of ``domain.collection`` and the facts it cites."""
        from . import browse as _browse

        return _browse.record_detail(self.context, domain, collection, position)

    def fact(self, fact_id: str) -> _browse.FactDetail:
        """A fact (valid or not) with its source turns, its supersessions and the records citing it."""
        from . import browse as _browse

        return _browse.fact_detail(self.context, fact_id)

    def records_citing(self, fact_ids: "list[str] | set[str]") -> list[_browse.RecordRow]:
        """The records of the typed view that cite any of ``fact_ids``."""
        from . import browse as _browse

        return _browse.records_citing(self.context, fact_ids)

    def turn(self, session_id: str, turn_id: str) -> _browse.TurnDetail:
        """One turn of the archive, its session and the facts read from it."""
        from . import browse as _browse

        return _browse.turn_detail(self.context, session_id, turn_id)

    # -- what changed: the view's change log ------------------------------------------

    def history(
        self,
        *,
        domain: str | None = None,
        record: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> _changelog.HistoryReport:
        """The changes of the typed view, oldest first, each with the sentences of the facts
        that caused it.  ``since`` / ``until``: a compile id (``c3``) or a date; ``limit``:
        at most that many (the newest); see :mod:`uac.changelog`."""
        from . import changelog as _changelog

        return _changelog.history(self.context, domain=domain, record=record, since=since, until=until, limit=limit)

    def changed_domains(self) -> list[str]:
        """The domains the change log has changes of (what :meth:`history` can be filtered by)."""
        from . import changelog as _changelog

        return _changelog.changed_domains(self.context)

    def diff(self, since: str, until: str | None = None, *, domain: str | None = None) -> _changelog.DiffReport:
        """What changed after ``since`` (and up to ``until``), grouped by domain and record."""
        from . import changelog as _changelog

        return _changelog.diff(self.context, since=since, until=until, domain=domain)

    def view_at(self, domain: str, at: str) -> _changelog.DomainAt:
        """Domain ``domain`` as it stood after compile ``at`` (``c3``) or at a date, replayed
        from the change log."""
        from . import changelog as _changelog

        return _changelog.view_at(self.context, domain, at)

    # -- export -------------------------------------------------------------------

    def export(self, out: str | Path) -> ExportReport:
        """Copy the project without ``.uac/`` to a new directory or a ``.tar.gz`` file."""
        from .export import export_project

        return export_project(self.project, out)

    # -- answering and the sandbox ----------------------------------------------

    def ask(self, question: str, options: AskOptions | None = None, **overrides: Any) -> Answer:
        """Answer ``question`` from the STATE, FACTS and ARCHIVE channels.

        ``options`` is an :class:`~uac.answer.options.AskOptions`; keyword
        ``overrides`` set its fields (``as_of=``, ``loading=``, ``use_state=``,
        ``iterative=``, ``instructions=`` ...; ``None`` means "not given").
        Unset options come from ``[answer]`` in uac.toml.  Without a model,
        returns the ranked evidence (``answer.mode == "evidence"``).
        """
        from .answer.options import AskOptions
        from .answer.reader import answer_question

        return answer_question(self.context, question, (options or AskOptions()).updated(**overrides))

    def run(
        self, code: str, *, as_of: "_dt.date | str | None" = None, include_facts: bool = False
    ) -> "_sandbox.RunResult":
        """Run agent code in the sandbox over the typed state.

        ``.to_json()`` of the result is ``{"ok", "result", "stdout", "error"}``
        (``result`` is the JSON value of the variable ``result``).  For many
        calls keep a warm session with :meth:`sandbox_session`.
        """
        from .sandbox_bridge import run_code

        return run_code(self.context, code, as_of=parse_day(as_of, what="as_of"), include_facts=include_facts)

    def sandbox_session(
        self, *, as_of: "_dt.date | str | None" = None, include_facts: bool = False
    ) -> "_sandbox.Session":
        """A warm sandbox session over the state; variables persist between ``run`` calls."""
        from .sandbox_bridge import open_session

        return open_session(self.context, as_of=parse_day(as_of, what="as_of"), include_facts=include_facts)
