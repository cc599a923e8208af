""":class:`UserMemory`: the Python API over one user project.

A thin facade just under the CLI, HTTP and MCP adapters: it owns a
:class:`~uac.context.MemoryContext` (the project, the model, the indexes, the
typed view) and hands it to the module that implements each capability.
Every method returns a real type; the ones adapters print have ``to_json()``.

The class is assembled from parts, one module a topic, each a class over the
same context (:class:`~.part.MemoryPart`): :mod:`.memorizing` (ingest, add a
session, correct, forget), :mod:`.recalling` (search, facts, sessions),
:mod:`.structure` (compile, import records, the typed view), :mod:`.answering`
(ask, the sandbox), :mod:`.inspecting` (the overview and the evidence chain) and
:mod:`.changes` (the view's change log).  Opening, closing, the model, health
and export stay here.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

# Only what every command needs is imported here; each capability module is
# imported by the method that uses it, so a command line that searches does not
# pay for ingest, the model client or the inspector (see docs/performance.md).
from ..context import MemoryContext
from ..project import Project
from .answering import AnswerPart
from .changes import ChangesPart
from .inspecting import InspectPart
from .memorizing import MemorizePart
from .recalling import RecallPart
from .structure import StructurePart

if TYPE_CHECKING:
    from .. import llm as _llm
    from ..doctor import DoctorReport
    from ..export import ExportReport
    from ..index.store import MemoryIndex


class UserMemory(MemorizePart, RecallPart, StructurePart, AnswerPart, InspectPart, ChangesPart):
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
        cls, spec: str | Path, *, user_name: str | None = None, timezone: str = "UTC", llm: _llm.LLMClient | None = None
    ) -> "UserMemory":
        return cls(Project.create(spec, user_name=user_name, timezone=timezone), llm=llm)

    @classmethod
    def open_or_create(
        cls, spec: str | Path, *, user_name: str | None = None, timezone: str = "UTC", llm: _llm.LLMClient | None = None
    ) -> "UserMemory":
        """Open the project at ``spec``, or create it there (with ``user_name`` and
        ``timezone``) when nothing is there yet.  A directory that exists but is not
        a project is an error, as for :meth:`open`."""
        from ..errors import ProjectExists
        from ..project import is_project
        from ..workspace import resolve_project

        if not is_project(resolve_project(spec)):
            try:
                return cls.create(spec, user_name=user_name, timezone=timezone, llm=llm)
            except ProjectExists:
                pass  # made meanwhile by another process, or a directory that is not empty: open says which
        return cls.open(spec, llm=llm)

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

    # -- health and export ---------------------------------------------------------

    def doctor(self, *, repair: bool = False, model: bool = False, deep: bool = False) -> DoctorReport:
        """Check the project; ``model`` also probes the model endpoint with a few tiny real calls;
        ``deep`` (implied by ``repair``) compares every log line and index entry instead of the
        fast checks of positions, ids and recorded checksums."""
        from ..doctor import run_doctor

        return run_doctor(self.context, repair=repair, model=model, deep=deep)

    def export(self, out: str | Path) -> ExportReport:
        """Copy the project without ``.uac/`` to a new directory or a ``.tar.gz`` file."""
        from ..export import export_project

        return export_project(self.project, out)


__all__ = ["UserMemory"]
