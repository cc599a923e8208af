"""Forgetting: removing a fact or a whole session for real.

The log is rewritten without the forgotten records (atomic replace under the
project lock): a forgotten fact's line and every supersession naming it; for
a session, all its records including its commit, and its archive file.  The
indexes drop the same entries.  Nothing of the forgotten text remains in the
project (derived data included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..context import MemoryContext
from ..errors import FactNotFound, InputError, SessionNotFound
from ..sessions.archive import Archive, check_session_id


@dataclass
class ForgetReport:
    facts_removed: list[str] = field(default_factory=list)
    sessions_removed: list[str] = field(default_factory=list)
    archive_deleted: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "facts_removed": list(self.facts_removed),
            "sessions_removed": list(self.sessions_removed),
            "archive_deleted": self.archive_deleted,
        }


def forget(ctx: MemoryContext, *, fact: str | None = None, session: str | None = None) -> ForgetReport:
    if (fact is None) == (session is None):
        raise InputError("forget needs exactly one of a fact id or a session id.", hint="Give {opt:fact} or {opt:session}.")
    project = ctx.project
    log = ctx.fact_log()
    archive = Archive(project.paths.sessions)
    report = ForgetReport()
    with project.lock("forget"):
        state = log.read()
        if fact is not None:
            if fact not in state.facts:
                raise FactNotFound(f"no fact {fact!r} in this project's log.", hint="{do:find_facts}.")
            doomed = {fact}

            def keep(record: dict[str, Any]) -> bool:
                if record["kind"] == "fact":
                    return record["id"] not in doomed
                if record["kind"] == "supersede":
                    return record["id"] not in doomed and record["superseded_by"] not in doomed
                return True

        else:
            assert session is not None
            check_session_id(session)
            if session not in state.sessions and not archive.has(session):
                raise SessionNotFound(f"no session {session!r} in this project.", hint="{do:find_sessions}.")
            doomed = {f.id for f in state.facts.values() if f.session_id == session}

            def keep(record: dict[str, Any]) -> bool:
                if record.get("session_id") == session:
                    return False
                if record["kind"] == "supersede":
                    return record["id"] not in doomed and record["superseded_by"] not in doomed
                return True

        log.rewrite(keep)
        report.facts_removed = sorted(doomed)
        index = ctx.index
        facts_index = index.channel("facts")
        facts_index.remove(doomed)
        if session is not None:
            report.sessions_removed = [session]
            report.archive_deleted = archive.delete(session)
            chunks = index.channel("archive")
            chunks.remove([e.id for e in chunks.entries.values() if e.session_id == session])
    return report
