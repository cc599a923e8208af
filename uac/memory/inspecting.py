"""Reading a project the way a person inspects it, through :class:`~uac.memory.UserMemory`:
the overview, collections as tables, and the evidence chain record -> facts -> turns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .part import MemoryPart

if TYPE_CHECKING:
    from .. import browse as _browse


class InspectPart(MemoryPart):
    """The overview and the evidence chain (:mod:`uac.browse`)."""

    def overview(self) -> _browse.Overview:
        """Counts, facts per month, records per domain, the last compile and its coverage."""
        from .. import browse as _browse

        return _browse.overview(self.context)

    def domain_tables(self, domain: str) -> _browse.DomainTables:
        """Each collection of ``domain`` as a table of records (sort and filter with ``.view()``)."""
        from .. import browse as _browse

        return _browse.domain_tables(self.context, domain)

    def record(self, domain: str, collection: str, position: int) -> _browse.RecordDetail:
        """Record number ``position`` of ``domain.collection`` and the facts it cites."""
        from .. import browse as _browse

        return _browse.record_detail(self.context, domain, collection, position)

    def fact(self, fact_id: str) -> _browse.FactDetail:
        """A fact (valid or not) with its source turns, its supersessions and the records citing it."""
        from .. import browse as _browse

        return _browse.fact_detail(self.context, fact_id)

    def records_citing(self, fact_ids: "list[str] | set[str]") -> list[_browse.RecordRow]:
        """The records of the typed view that cite any of ``fact_ids``."""
        from .. import browse as _browse

        return _browse.records_citing(self.context, fact_ids)

    def turn(self, session_id: str, turn_id: str) -> _browse.TurnDetail:
        """One turn of the archive, its session and the facts read from it."""
        from .. import browse as _browse

        return _browse.turn_detail(self.context, session_id, turn_id)


__all__ = ["InspectPart"]
