"""The typed view (``domains/``) of :class:`~uac.memory.UserMemory`: compiling the
facts into it, importing records files, reading it, and how far it lags the log."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .part import MemoryPart

if TYPE_CHECKING:
    from ..compile import follow as _follow
    from ..compile.report import CompileReport
    from ..facts.model import Fact
    from ..llm.progress import ProgressCallback
    from ..records.importer import ImportReport
    from ..view.state import StateView


class StructurePart(MemoryPart):
    """Compile, import records, read the typed view."""

    def compile(
        self, mode: str | None = None, *, facts: list[Fact] | None = None, progress: "ProgressCallback | None" = None
    ) -> CompileReport:
        """Compile the facts into ``domains/``.

        ``mode``: ``incremental`` or ``bounded`` (need a model), ``offline``
        (keyword-routed event timeline), or ``None``: ``[compile] mode`` when a
        model is configured, else ``offline``.  ``facts`` defaults to
        :meth:`~uac.memory.UserMemory.facts` (the facts valid now).  ``progress`` is called with a
        :class:`uac.llm.progress.Progress` as domains finish (and while calls run).
        """
        from ..compile.dispatch import compile_project
        from ..recall import list_facts

        facts = list_facts(self.context) if facts is None else list(facts)
        return compile_project(
            self.project, facts, None if mode == "offline" else self.context.llm, mode=mode, progress=progress
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
        from ..records.importer import import_records

        return import_records(
            self.project, path, domain=domain, collection=collection, record_type=record_type, replace=replace
        )

    @property
    def state(self) -> StateView:
        """The typed view, read-only: ``memory.state["travel"].trips`` is a tuple of
        frozen dataclass instances."""
        from ..view.state import StateView

        return StateView(self.context.load_view())

    def load_state(self, *, cache: bool = True) -> StateView:
        """The typed view, as :attr:`state`.  ``cache=False`` validates and interprets
        every domain's ``schema.py`` and ``state.py`` afresh, without reading or
        writing the load cache under ``.uac/`` (e.g. to check files edited by hand)."""
        from ..view.state import StateView

        return StateView(self.context.load_view(cache=cache))

    def sandbox_state(self) -> dict[str, dict[str, object]]:
        """domain -> top-level name -> loaded value (what the sandbox encodes)."""
        return self.context.sandbox_state()

    def view_lag(self) -> "_follow.ViewLag":
        """How many facts valid now the typed view does not include yet (``ask``, ``repl``
        and the servers' tools report it), and whether a catch-up runs in this process."""
        from ..compile.follow import view_lag

        return view_lag(self.context)


__all__ = ["StructurePart"]
