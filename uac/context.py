""":class:`MemoryContext`: what the capabilities of uac need from an open project.

The capability modules (ingest, forget, search, answering, the sandbox bridge,
doctor and its checks) take a context, never :class:`uac.memory.UserMemory`:
the project on disk, the model (resolved lazily from ``uac.toml`` and the
environment, or given), the search indexes (opened lazily) and the loaded
typed view.  It sits low in the layers: it imports the project, the LLM layer,
the fact log and, inside functions, the LLM layer, the index and view packages
(so opening a project for a search loads no model client); nothing here
imports a capability or an adapter.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from .facts.log import FactLog, LogState
from .project import Project

if TYPE_CHECKING:
    from . import llm as _llm
    from .dialect.loader import LoadedDomain
    from .facts.table import FactTable
    from .index.store import MemoryIndex


class WorkSlots(Protocol):
    """Bounds a server puts on one project's sandbox workers and model calls."""

    def sandbox(self) -> AbstractContextManager[None]:
        """Held while one sandbox worker of the project runs."""
        ...

    def wrap_llm(self, client: _llm.LLMClient) -> _llm.LLMClient:
        """The client, with each model call holding a model slot."""
        ...


class OnProject:
    """What works over one open project: ``root`` is the project's directory, and the
    ``repr`` names the class and that directory (``UserMemory('/home/maya/.uac/maya')``)."""

    @property
    def root(self) -> Path:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.root)!r})"


class MemoryContext(OnProject):
    """One open user project with its model, indexes and typed view.

    ``llm`` overrides the configured model (e.g. a client around a
    :class:`~uac.llm.ScriptedProvider` in tests); ``None`` resolves the model
    from ``uac.toml`` and the environment on first use.
    """

    def __init__(self, project: Project, *, llm: _llm.LLMClient | None = None) -> None:
        self.project = project
        self._llm = llm
        self._llm_resolved = llm is not None
        self._index: MemoryIndex | None = None
        self._fact_table: FactTable | None = None
        self._work_slots: WorkSlots | None = None

    @property
    def root(self) -> Path:
        return self.project.root

    # -- the model ------------------------------------------------------------------

    @property
    def llm_settings(self) -> _llm.LLMSettings:
        """The model settings in force: ``[llm]`` of ``uac.toml`` under the environment."""
        from . import llm as _llm

        return _llm.resolve_settings(self.project.config.llm, project_root=self.project.root)

    @property
    def llm(self) -> _llm.LLMClient | None:
        """The configured model, or ``None`` (only the LLM-free paths run)."""
        if not self._llm_resolved:
            from . import llm as _llm

            client = _llm.build_client(self.llm_settings)
            if client is not None and self._work_slots is not None:
                client = self._work_slots.wrap_llm(client)
            self._llm = client
            self._llm_resolved = True
        return self._llm

    # -- bounds a server sets ------------------------------------------------------------

    def bind_work_slots(self, slots: WorkSlots) -> None:
        """Bound this project's sandbox workers and model calls (servers do; the CLI does not)."""
        self._work_slots = slots
        if self._llm is not None:
            self._llm = slots.wrap_llm(self._llm)

    def sandbox_slot(self) -> AbstractContextManager[None]:
        """Hold this around a sandbox worker's life: a server bounds how many run at once."""
        return nullcontext() if self._work_slots is None else self._work_slots.sandbox()

    def require_llm(self, what: str) -> _llm.LLMClient:
        """The model, or the error that says how to configure one for ``what``."""
        from . import llm as _llm

        return _llm.require(self.llm, what)

    # -- the fact log and the indexes ---------------------------------------------------

    def fact_log(self) -> FactLog:
        """The project's fact log; its head (:mod:`uac.facts.head`) is saved beside the indexes."""
        return project_log(self.project)

    def read_log(self) -> LogState:
        """The folded fact log (cached by file identity inside :class:`FactLog`)."""
        return self.fact_log().read()

    def fact_table(self) -> "FactTable":
        """Validity and event dates of every fact of the log, without folding it
        line by line (see :mod:`uac.facts.table`): what a search needs."""
        from .facts.table import read_fact_table

        tables = self.project.paths.internal / "index"
        self._fact_table = read_fact_table(
            self.project.paths.facts, tables / "log-table.pack", self._fact_table, legacy_path=tables / "log-table.npz"
        )
        return self._fact_table

    @property
    def index(self) -> "MemoryIndex":
        """The project's search indexes, opened on first use."""
        if self._index is None:
            from .index import open_index

            self._index = open_index(self.project)
        return self._index

    @property
    def index_open(self) -> bool:
        """Has :attr:`index` been opened (and not closed since)?"""
        return self._index is not None

    def close(self) -> None:
        """Release the index clients and the loaded tables (the context stays usable:
        they reopen on demand)."""
        self._fact_table = None
        if self._index is not None:
            self._index.close()
            self._index = None

    # -- the typed view ---------------------------------------------------------------

    def load_view(self, *, cache: bool = True) -> "dict[str, LoadedDomain]":
        """Every generated domain, validated and loaded (through the JSON cache unless
        ``cache=False``: then the cache is neither read nor written)."""
        from .view.store import load_view

        return load_view(self.project, cache=cache)

    def sandbox_state(self) -> dict[str, dict[str, object]]:
        """domain -> top-level name -> loaded value: what the sandbox and the STATE channel read."""
        return {name: dict(loaded.values) for name, loaded in self.load_view().items()}


def project_log(project: Project) -> FactLog:
    """The fact log of ``project``; its head (:mod:`uac.facts.head`) is saved beside the indexes."""
    return FactLog(project.paths.facts, head_path=project.paths.internal / "index" / "log-head.json")
