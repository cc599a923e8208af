"""What :class:`~uac.memory.UserMemory` recalls as it was said: hybrid search over the
facts and the archive, the facts of the log, the archived sessions."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING

from .part import MemoryPart

if TYPE_CHECKING:
    from ..dates import Period
    from ..facts.model import Fact
    from ..index.search import SearchHit
    from ..sessions import Session


class RecallPart(MemoryPart):
    """Search, the facts, the sessions."""

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
        from ..recall import search

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
        from ..recall import search_many

        return search_many(self.context, queries, k=k, channel=channel, as_of=as_of, happened=happened)

    def facts(self, *, as_of: "_dt.date | str | None" = None, include_superseded: bool = False) -> list[Fact]:
        """The facts of the log (folded), in log order: valid now (or at ``as_of``) unless
        ``include_superseded``."""
        from ..recall import list_facts

        return list_facts(self.context, as_of=as_of, include_superseded=include_superseded)

    def sessions(self) -> list[Session]:
        """Every archived session, oldest first."""
        from ..sessions.archive import Archive

        archive = Archive(self.project.paths.sessions)
        return sorted((archive.read(i) for i in archive.ids()), key=lambda s: (s.date, s.session_id))

    def session(self, session_id: str) -> Session:
        """One archived session by id; :class:`~uac.SessionNotFound` if there is none."""
        from ..errors import SessionNotFound
        from ..sessions.archive import Archive

        archive = Archive(self.project.paths.sessions)
        path = archive.path(session_id)
        if not path.is_file():
            raise SessionNotFound(
                f"no session {session_id!r} in {self.root}.",
                hint="{do:find_sessions}.",
            )
        return archive.read(session_id)


__all__ = ["RecallPart"]
