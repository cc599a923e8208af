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
