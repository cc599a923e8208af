""":class:`UserMemory`: the Python API over one user project.

A thin facade: it owns the opened :class:`~uac.project.Project` and the LLM
client, and delegates every capability to the module that implements it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import llm as _llm
from .project import Project

if TYPE_CHECKING:
    import datetime as _dt

    from .answer.model import Answer
    from .doctor import DoctorReport


class UserMemory:
    """Open a user project and work with it.

    ``llm`` overrides the configured model: pass an :class:`~uac.llm.LLMClient`
    (e.g. wrapping a :class:`~uac.llm.ScriptedProvider` in tests), or leave it
    ``None`` to resolve the model from ``uac.toml`` and the environment.
    """

    def __init__(self, project: Project, *, llm: _llm.LLMClient | None = None) -> None:
        self.project = project
        self._llm = llm
        self._llm_resolved = llm is not None

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

    def __repr__(self) -> str:
        return f"UserMemory({str(self.project.root)!r})"

    @property
    def root(self) -> Path:
        return self.project.root

    # -- the model --------------------------------------------------------------

    @property
    def llm_settings(self) -> _llm.LLMSettings:
        return _llm.resolve_settings(self.project.config.llm, project_root=self.project.root)

    @property
    def llm(self) -> _llm.LLMClient | None:
        """The configured LLM client, or ``None`` (LLM-free paths only)."""
        if not self._llm_resolved:
            self._llm = _llm.build_client(self.llm_settings)
            self._llm_resolved = True
        return self._llm

    def require_llm(self, what: str) -> _llm.LLMClient:
        return _llm.require(self.llm, what)

    # -- health -------------------------------------------------------------------

    def doctor(self, *, repair: bool = False) -> "DoctorReport":
        from .doctor import run_doctor

        return run_doctor(self, repair=repair)

    # -- structure: the typed view (domains/) -------------------------------------

    def compile(self, mode: str | None = None, *, facts: list[Any] | None = None) -> Any:
        """Compile the facts into ``domains/`` -> :class:`uac.compile.report.CompileReport`.

        ``mode``: ``incremental`` or ``bounded`` (need a model), ``offline``
        (keyword-routed event timeline), or ``None``: ``[compile] mode`` when a
        model is configured, else ``offline``.  ``facts`` defaults to
        :meth:`facts` (the facts valid now).
        """
        from .compile.dispatch import compile_project

        facts = self.facts() if facts is None else list(facts)
        return compile_project(self.project, facts, None if mode == "offline" else self.llm, mode=mode)

    def import_records(
        self, path: str | Path, *, domain: str, collection: str, record_type: str | None = None
    ) -> Any:
        """Compile a JSON/JSONL/CSV records file into ``domains/<domain>/`` ->
        :class:`uac.compile.records.ImportReport`."""
        from .compile.records import import_records

        return import_records(self.project, path, domain=domain, collection=collection, record_type=record_type)

    @property
    def state(self) -> Any:
        """The typed view, read-only: ``memory.state["travel"].trips`` is a tuple of
        frozen dataclass instances (:class:`uac.view.state.StateView`)."""
        from .view.store import load_view
        from .view.state import StateView

        return StateView(load_view(self.project))

    def sandbox_state(self) -> dict[str, dict[str, object]]:
        """domain -> top-level name -> loaded value (what the sandbox encodes)."""
        from .view.store import load_view

        return {name: dict(loaded.values) for name, loaded in load_view(self.project).items()}

    # -- memorize: sessions, facts, archive, search ---------------------------------

    @property
    def memory_index(self) -> Any:
        """The project's search indexes (:class:`uac.index.store.MemoryIndex`), opened lazily."""
        if getattr(self, "_memory_index", None) is None:
            from .index import open_index

            self._memory_index = open_index(self.project)
        return self._memory_index

    def ingest(
        self,
        path: str | Path,
        *,
        format: str = "auto",
        sample_id: str | None = None,
        date: str | None = None,
        extractor: str | None = None,
    ) -> Any:
        """Read a session file, archive its sessions, append their facts, index them.

        Returns an :class:`uac.facts.ingest.IngestReport` (sessions added and
        skipped, facts appended, timings).  ``extractor``: ``rules``, ``llm``
        or ``None`` (the LLM when a model is configured, else rules).
        """
        from .facts.ingest import ingest_sessions
        from .sessions import load_sessions

        sessions = load_sessions(
            path, format=format, sample_id=sample_id, date=date, user_name=self.project.config.user.name
        )
        return ingest_sessions(self, sessions, extractor=extractor, file=path, format=sessions[0].source)

    def add_session(self, session_or_path: Any, *, extractor: str | None = None, **read_options: Any) -> Any:
        """Add one :class:`uac.sessions.Session` (or a file, as :meth:`ingest`)."""
        from .facts.ingest import ingest_sessions
        from .sessions import Session

        if isinstance(session_or_path, Session):
            return ingest_sessions(self, [session_or_path], extractor=extractor, format=session_or_path.source)
        return self.ingest(session_or_path, extractor=extractor, **read_options)

    def search(self, query: str, *, k: int = 20, channel: str = "all", as_of: Any = None) -> list[Any]:
        """Hybrid (dense + BM25, RRF) search over facts and/or archive chunks -> ``SearchHit`` list."""
        from .facts.log import FactLog
        from .index.search import hybrid_search, parse_as_of

        state = FactLog(self.project.paths.facts).read()
        return hybrid_search(self.memory_index, state, query, k=k, channel=channel, as_of=parse_as_of(as_of))

    def facts(self, *, as_of: Any = None, include_superseded: bool = False) -> list[Any]:
        """The facts of the log (folded), in log order: valid now (or at ``as_of``) unless
        ``include_superseded``."""
        from .facts.log import FactLog
        from .index.search import parse_as_of

        day = parse_as_of(as_of)
        facts = list(FactLog(self.project.paths.facts).read().facts.values())
        if include_superseded and day is None:
            return facts
        if include_superseded:
            return [f for f in facts if (f.valid_from or f.session_date) is None or (f.valid_from or f.session_date) <= day]
        return [f for f in facts if f.is_valid_at(day)]

    def sessions(self) -> list[Any]:
        """Every archived session (:class:`uac.sessions.Session`), oldest first."""
        from .sessions.archive import Archive

        archive = Archive(self.project.paths.sessions)
        return sorted((archive.read(i) for i in archive.ids()), key=lambda s: (s.date, s.session_id))

    def session(self, session_id: str) -> Any:
        """One archived session by id."""
        from .sessions.archive import Archive

        return Archive(self.project.paths.sessions).read(session_id)

    def forget(self, *, fact: str | None = None, session: str | None = None) -> Any:
        """Remove a fact, or a session with its facts and archive file, for real."""
        from .facts.forget import forget

        return forget(self, fact=fact, session=session)

    # -- export -------------------------------------------------------------------

    def export(self, out: "str | Path") -> dict:
        """Copy the project without ``.uac/`` to a new directory or a ``.tar.gz`` file."""
        from .export import export_project

        return export_project(self.project, out)

    # -- answering and the sandbox ----------------------------------------------

    def ask(
        self,
        question: str,
        *,
        as_of: "_dt.date | str | None" = None,
        loading: str | None = None,
        use_state: bool = True,
        use_facts: bool = True,
        use_archive: bool = True,
        iterative: bool = False,
        tool_mode: str | None = None,
        max_tool_steps: int | None = None,
        state_chars: int | None = None,
        top_facts: int | None = None,
        top_archive: int | None = None,
        instructions: str | None = None,
    ) -> "Answer":
        """Answer ``question`` from the STATE, FACTS and ARCHIVE channels.

        Without a model, returns the ranked evidence (``answer.mode == "evidence"``).
        ``instructions`` is appended to the reader's system prompt (e.g. an answer style).
        """
        from .answer.model import AskOptions
        from .answer.reader import answer_question
        from .dates import parse_day

        options = AskOptions.from_config(
            self.project.config.answer,
            as_of=parse_day(as_of, what="as_of"),
            loading=loading,
            use_state=use_state,
            use_facts=use_facts,
            use_archive=use_archive,
            iterative=iterative,
            tool_mode=tool_mode,
            max_tool_steps=max_tool_steps,
            state_chars=state_chars,
            top_facts=top_facts,
            top_archive=top_archive,
            instructions=instructions,
        )
        return answer_question(self, question, options)

    def run(self, code: str, *, as_of: "_dt.date | str | None" = None, include_facts: bool = False) -> dict:
        """Run agent code in the sandbox over the typed state.

        Returns ``{"ok", "result", "stdout", "error"}`` (``result`` is the JSON
        value of the variable ``result``).  For many calls keep a warm session
        with :meth:`sandbox_session`.
        """
        from .dates import parse_day
        from .repl import run_code

        return run_code(self, code, as_of=parse_day(as_of, what="as_of"), include_facts=include_facts)

    def sandbox_session(self, *, as_of: "_dt.date | str | None" = None, include_facts: bool = False):
        """A warm sandbox session over the state; variables persist between ``run`` calls."""
        from .dates import parse_day
        from .repl import open_session

        return open_session(self, as_of=parse_day(as_of, what="as_of"), include_facts=include_facts)
