"""Forgetting: removing a fact, a whole session, or imported data for real.

The log is rewritten without the forgotten records (atomic replace under the
project lock): a forgotten fact's line and every supersession naming it; for
a session, all its records including its commit, and its archive file.  The
indexes drop the same entries.  Nothing of the forgotten text remains in the
project (derived data included).  A domain (or one collection of it) is taken
out of the typed view (:func:`uac.compile.records.remove_records`): that is how
imported records are undone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..context import MemoryContext
from ..errors import InputError
from ..index.catchup import coverage
from ..sessions.archive import Archive, check_session_id


@dataclass
class ForgetReport:
    facts_removed: list[str] = field(default_factory=list)
    sessions_removed: list[str] = field(default_factory=list)
    archive_deleted: bool = False
    #: the domain data was removed from, its collections removed, their records
    domain: str | None = None
    collections_removed: list[str] = field(default_factory=list)
    records_removed: int = 0
    domain_removed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "facts_removed": list(self.facts_removed),
            "sessions_removed": list(self.sessions_removed),
            "archive_deleted": self.archive_deleted,
            "domain": self.domain,
            "collections_removed": list(self.collections_removed),
            "records_removed": self.records_removed,
            "domain_removed": self.domain_removed,
        }


def forget(
    ctx: MemoryContext,
    *,
    fact: str | None = None,
    session: str | None = None,
    domain: str | None = None,
    collection: str | None = None,
) -> ForgetReport:
    if sum(x is not None for x in (fact, session, domain)) != 1:
        raise InputError(
            "forget needs exactly one of a fact id, a session id or a domain.",
            hint="Pass --fact ID, --session ID, or --domain D (with --collection C for one collection).",
        )
    if collection is not None and domain is None:
        raise InputError("a collection is forgotten with its domain.", hint="Pass --domain D --collection C.")
    if domain is not None:
        return _forget_view_data(ctx, domain, collection)
    project = ctx.project
    log = ctx.fact_log()
    archive = Archive(project.paths.sessions)
    report = ForgetReport()
    with project.lock("forget"):
        state = log.read()
        if fact is not None:
            if fact not in state.facts:
                raise InputError(f"no fact {fact!r} in {project.paths.facts}.", hint="Find ids with 'uac search --json'.")
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
                raise InputError(f"no session {session!r} in {project.root}.", hint="List sessions with UserMemory.sessions().")
            doomed = {f.id for f in state.facts.values() if f.session_id == session}

            def keep(record: dict[str, Any]) -> bool:
                if record.get("session_id") == session:
                    return False
                if record["kind"] == "supersede":
                    return record["id"] not in doomed and record["superseded_by"] not in doomed
                return True

        index = ctx.index
        in_step = coverage(index, state, log) == "current"
        new_state = log.rewrite(keep)
        report.facts_removed = sorted(doomed)
        facts_index = index.channel("facts")
        facts_index.remove(doomed)
        if session is not None:
            report.sessions_removed = [session]
            report.archive_deleted = archive.delete(session)
            chunks = index.channel("archive")
            chunks.remove([e.id for e in chunks.entries.values() if e.session_id == session])
        if in_step:  # the indexes now cover the rewritten log (else the next search catches up)
            index.write_manifest((new_state.good_bytes, new_state.digest))
    return report


def _forget_view_data(ctx: MemoryContext, domain: str, collection: str | None) -> ForgetReport:
    from ..compile.records import remove_records

    with ctx.project.lock("forget"):
        removed = remove_records(ctx.project, domain, collection)
    return ForgetReport(
        domain=removed.domain,
        collections_removed=removed.collections,
        records_removed=removed.records,
        domain_removed=removed.domain_removed,
    )
