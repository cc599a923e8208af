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
        """Compile the facts into ``domains/`` -> :class:`uac.structure.report.CompileReport`.

        ``mode``: ``incremental`` or ``bounded`` (need a model), ``offline``
        (keyword-routed event timeline), or ``None``: ``[compile] mode`` when a
        model is configured, else ``offline``.  ``facts`` defaults to
        :meth:`facts` (the facts valid now).
        """
        from .structure.compile_llm import compile_project

        facts = self.facts() if facts is None else list(facts)
        return compile_project(self.project, facts, None if mode == "offline" else self.llm, mode=mode)

    def import_records(
        self, path: str | Path, *, domain: str, collection: str, record_type: str | None = None
    ) -> Any:
        """Compile a JSON/JSONL/CSV records file into ``domains/<domain>/`` ->
        :class:`uac.structure.records.ImportReport`."""
        from .structure.records import import_records

        return import_records(self.project, path, domain=domain, collection=collection, record_type=record_type)

    @property
    def state(self) -> Any:
        """The typed view, read-only: ``memory.state["travel"].trips`` is a tuple of
        frozen dataclass instances (:class:`uac.structure.view.StateView`)."""
        from .structure.store import load_view
        from .structure.view import StateView

        return StateView(load_view(self.project))

    def sandbox_state(self) -> dict[str, dict[str, object]]:
        """domain -> top-level name -> loaded value (what the sandbox encodes)."""
        from .structure.store import load_view

        return {name: dict(loaded.values) for name, loaded in load_view(self.project).items()}
