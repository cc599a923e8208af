"""The base of :class:`~uac.memory.UserMemory`'s parts: the one
:class:`~uac.context.MemoryContext` they share, and the project it opened."""

from __future__ import annotations

from pathlib import Path

from ..context import MemoryContext, OnProject
from ..project import Project


class MemoryPart(OnProject):
    """What every part of :class:`~uac.memory.UserMemory` works on: its context."""

    context: MemoryContext

    @property
    def project(self) -> Project:
        return self.context.project

    @property
    def root(self) -> Path:
        return self.context.root


__all__ = ["MemoryPart"]
