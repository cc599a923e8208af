"""What changed in the typed view, through :class:`~uac.memory.UserMemory`: the change
log read as history, as a diff, and as a domain replayed to a compile or a date."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .part import MemoryPart

if TYPE_CHECKING:
    from .. import changelog as _changelog


class ChangesPart(MemoryPart):
    """History, diff and the view at a compile or a date (:mod:`uac.changelog`)."""

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
        from .. import changelog as _changelog

        return _changelog.history(self.context, domain=domain, record=record, since=since, until=until, limit=limit)

    def changed_domains(self) -> list[str]:
        """The domains the change log has changes of (what :meth:`history` can be filtered by)."""
        from .. import changelog as _changelog

        return _changelog.changed_domains(self.context)

    def diff(self, since: str, until: str | None = None, *, domain: str | None = None) -> _changelog.DiffReport:
        """What changed after ``since`` (and up to ``until``), grouped by domain and record."""
        from .. import changelog as _changelog

        return _changelog.diff(self.context, since=since, until=until, domain=domain)

    def view_at(self, domain: str, at: str) -> _changelog.DomainAt:
        """Domain ``domain`` as it stood after compile ``at`` (``c3``) or at a date, replayed
        from the change log."""
        from .. import changelog as _changelog

        return _changelog.view_at(self.context, domain, at)


__all__ = ["ChangesPart"]
