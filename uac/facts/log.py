"""``memory/facts.jsonl``: the append-only fact log.

One JSON object per line, each with a ``kind`` and a ``checksum`` (the first 16
hex digits of sha256 over the line's other fields, canonical JSON):

* ``fact``      -- one extracted fact (:class:`~uac.facts.model.Fact` fields);
* ``supersede`` -- fact ``id`` was replaced by ``superseded_by`` from ``invalid_at`` on;
  the old line is never rewritten, readers fold this record into it;
* ``commit``    -- closes one session's records: everything a session wrote is
  in force only once its commit line is on disk.

A session is appended in one go (its facts, its supersessions, its commit),
then fsync'd, under the project lock.  On open, a torn last line (a crash
mid-write) and any records after the last commit that lack their own commit
are reported and ignored; the next write truncates them.  A corrupt line
*before* that is a :class:`~uac.errors.StoreError` naming the line.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..caches import BoundedCache
from ..errors import StoreError, UnsafePath
from ..failpoints import crash_point
from ..filestamp import FileStamp
from ..fsutil import (
    atomic_write_bytes,
    make_private_dirs,
    open_private,
    open_regular,
    read_regular,
    resolve_inside,
    split_lines_kept,
)
from .model import Fact

if TYPE_CHECKING:
    from .head import LogHead

log = logging.getLogger(__name__)

KINDS = ("fact", "supersede", "commit")


def line_checksum(record: dict[str, Any]) -> str:
    body = {k: v for k, v in record.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def encode_record(record: dict[str, Any]) -> bytes:
    record = dict(record)
    record["checksum"] = line_checksum(record)
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def fact_record(fact: Fact) -> dict[str, Any]:
    data = fact.to_json()
    return {"kind": "fact", **data}


@dataclass(frozen=True)
class Supersession:
    fact_id: str
    superseded_by: str
    invalid_at: _dt.date | None
    session_id: str
    #: how the new fact changes the old one, when ingest's reconcile step found it:
    #: ``supersedes``, ``corrects``, ``cancels`` (each ends the old fact) or ``fulfils``
    #: (a plan that came true: ``invalid_at`` is null, the plan stays in force);
    #: ``None`` for links written before relations were recorded (the key is then absent)
    relation: str | None = None

    def record(self) -> dict[str, Any]:
        record = {
            "kind": "supersede",
            "id": self.fact_id,
            "superseded_by": self.superseded_by,
            "invalid_at": None if self.invalid_at is None else self.invalid_at.isoformat(),
            "session_id": self.session_id,
        }
        if self.relation is not None:
            record["relation"] = self.relation
        return record


@dataclass
class LogState:
    """The folded content of the log as of one read."""

    #: facts by id, in log order, with supersessions folded in
    facts: dict[str, Fact] = field(default_factory=dict)
    #: commit records by session id, in log order
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: supersession records in log order
    supersessions: list[Supersession] = field(default_factory=list)
    #: byte length of the committed, well-formed prefix
    good_bytes: int = 0
    #: number of committed lines
    lines: int = 0
    #: sha256 of the committed prefix (what the indexes are compared against)
    digest: str = ""
    #: description of a dropped tail (torn line or uncommitted records), if any
    dropped: str | None = None
    dropped_bytes: int = 0
    #: running sha256 of the committed prefix (to extend ``digest`` on append)
    hasher: Any = None
    #: session id -> byte offset just after its commit line (where the session ends)
    commit_ends: dict[str, int] = field(default_factory=dict)

    @property
    def fact_ids(self) -> Any:
        """The ids of the committed facts (supports ``in``)."""
        return self.facts.keys()

    def session_facts(self, session_id: str) -> list[Fact]:
        return [f for f in self.facts.values() if f.session_id == session_id]


def _check(record: Any, number: int, path: Path) -> str | None:
    """Problem with a parsed line, or None."""
    if not isinstance(record, dict):
        return "not a JSON object"
    if record.get("kind") not in KINDS:
        return f"unknown kind {record.get('kind')!r}"
    if record.get("checksum") != line_checksum(record):
        return "checksum mismatch"
    return None


def parse_log(data: bytes, path: Path, *, first_line: int = 0) -> LogState:
    """Fold the bytes of a fact log; see the module docstring for the rules.

    ``first_line``: lines of the log before ``data`` (when ``data`` is its tail),
    so that a corrupt line is named by its number in the whole file.
    """
    state = LogState()
    pending: list[tuple[int, dict[str, Any]]] = []  # records of a session not yet committed
    pending_start = 0
    offset = 0
    number = first_line
    digest = hashlib.sha256()
    committed_end = 0
    committed_lines = 0
    torn: str | None = None
    while offset < len(data):
        end = data.find(b"\n", offset)
        number += 1
        if end == -1:
            torn = f"line {number} is incomplete (no newline; a write was interrupted)"
            break
        raw = data[offset:end]
        problem: str | None
        try:
            record = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            record, problem = None, f"not valid JSON ({exc})"
        else:
            problem = _check(record, number, path)
        if problem is not None:
            if data[end + 1 :].strip():
                raise StoreError(
                    f"{path}: line {number} is corrupt ({problem}).",
                    hint="Restore the fact log from a copy, or remove that line by hand; {do:doctor} (it lists every bad line).",
                )
            torn = f"line {number} is corrupt ({problem}) and is the last line"
            break
        if not pending:
            pending_start = offset
        pending.append((number, record))
        offset = end + 1
        if record["kind"] == "commit":
            for _, rec in pending:
                _apply(state, rec)
            state.commit_ends[str(record["session_id"])] = offset
            committed_end = offset
            committed_lines = number
            digest.update(data[pending_start:offset])
            pending = []
    if pending:
        sessions = sorted({str(r.get("session_id")) for _, r in pending})
        what = f"{len(pending)} uncommitted record(s) of session(s) {', '.join(sessions)}"
        torn = what if torn is None else f"{what}; {torn}"
    state.good_bytes = committed_end
    state.lines = committed_lines - first_line if committed_lines else 0
    state.digest = digest.hexdigest()
    state.hasher = digest
    if torn is not None:
        state.dropped = torn
        state.dropped_bytes = len(data) - committed_end
    return state


def _apply(state: LogState, record: dict[str, Any]) -> None:
    kind = record["kind"]
    if kind == "fact":
        fact = Fact.from_json(record)
        state.facts[fact.id] = fact
    elif kind == "supersede":
        sup = Supersession(
            str(record["id"]),
            str(record["superseded_by"]),
            _dt.date.fromisoformat(record["invalid_at"]) if record.get("invalid_at") else None,
            str(record.get("session_id") or ""),
            str(record["relation"]) if record.get("relation") else None,
        )
        state.supersessions.append(sup)
        old = state.facts.get(sup.fact_id)
        if old is not None:
            state.facts[sup.fact_id] = old.replace(invalid_at=sup.invalid_at, superseded_by=sup.superseded_by)
    else:
        state.sessions[str(record["session_id"])] = record


#: parsed logs of this process by path, reused while the file is unchanged (a folded log of
#: 10,000 facts holds megabytes: a server keeps the logs of the projects it shows most)
_CACHE: "BoundedCache[str, tuple[FileStamp, LogState]]" = BoundedCache("fact logs", 16)
#: log heads (:mod:`uac.facts.head`) of this process by path, likewise (small: sessions and ids)
_HEADS: "BoundedCache[str, tuple[FileStamp, LogHead]]" = BoundedCache("fact log heads", 256)


class FactLog:
    """Reader and writer of one project's fact log (writers hold the project lock)."""

    def __init__(self, path: Path, root: Path | None = None, *, head_path: Path | None = None) -> None:
        self.path = Path(path)
        #: the project root the log must stay inside (``memory/facts.jsonl`` -> its root)
        self.root = Path(root) if root is not None else self.path.parent.parent
        #: where the log's head is saved between processes (None: not saved)
        self.head_path = Path(head_path) if head_path is not None else None
        self._warned: str | None = None

    @property
    def _cache(self) -> tuple[FileStamp, LogState] | None:
        return _CACHE.get(str(self.path))

    @_cache.setter
    def _cache(self, value: tuple[FileStamp, LogState] | None) -> None:
        if value is None:
            _CACHE.pop(str(self.path), None)
        else:
            _CACHE[str(self.path)] = value

    def _stamp(self) -> FileStamp:
        return FileStamp.of(self.path, follow_symlinks=False)

    def _bytes(self) -> bytes:
        """The log's bytes: a regular file inside the project, never read through a link
        (not even one to another file of the project: the log is written in place)."""
        if self.path.is_symlink():
            raise UnsafePath(
                f"memory/{self.path.name} is a symbolic link; the fact log must be a regular file.",
                hint="Replace the link with the log file itself (or restore the log from a copy).",
            )
        try:
            return read_regular(self.root, self.path)
        except FileNotFoundError:
            return b""

    def _warn_dropped(self, dropped: str | None) -> None:
        """Say once per unfinished end that the log's unfinished end is ignored."""
        if dropped and self._warned != dropped:
            log.warning(
                "%s: ignoring the unfinished end of the log (%s); it is dropped on the next write.", self.path, dropped
            )
            self._warned = dropped

    def read(self) -> LogState:
        """The folded log (cached until the file changes)."""
        stamp = self._stamp()
        if self._cache is not None and self._cache[0] == stamp:
            return self._cache[1]
        data = self._bytes() if stamp.exists else b""
        state = parse_log(data, self.path)
        self._warn_dropped(state.dropped)
        self._cache = (stamp, state)
        return state

    def head(self) -> "LogHead":
        """The committed sessions, fact ids and position of the log, without folding
        its facts: the saved head extended by what was appended since (see
        :mod:`uac.facts.head`).  Cached until the file changes."""
        from .head import LogHead, fold_head, load_head, save_head, worth_saving

        stamp = self._stamp()
        cached = _HEADS.get(str(self.path))
        if cached is not None and cached[0] == stamp:
            return cached[1]
        if self._cache is not None and self._cache[0] == stamp:
            head = LogHead.of_state(self._cache[1])
            changed = True
        else:
            data = self._bytes() if stamp.exists else b""
            head, changed = fold_head(data, self.path, load_head(self.head_path))
        self._warn_dropped(head.dropped)
        if changed and worth_saving(head) and self.head_path is not None and self._stamp() == stamp:
            save_head(head, self.head_path)
        _HEADS[str(self.path)] = (stamp, head)
        return head

    def recent_valid(self, count: int, head: "LogHead | None" = None) -> list[Fact]:
        """The last ``count`` facts valid now, in log order (reads the log backwards)."""
        from .head import recent_valid_facts

        if count <= 0:
            return []
        head = head if head is not None else self.head()
        return recent_valid_facts(self._bytes()[: head.good_bytes], head, count)

    def read_range(self, start: int, end: int) -> bytes:
        """The log's bytes from ``start`` to ``end`` (only those are read)."""
        if self.path.is_symlink():
            return self._bytes()[start:end]  # raises UnsafePath
        fd = open_regular(self.root, self.path)
        try:
            return os.pread(fd, max(end - start, 0), start)
        finally:
            os.close(fd)

    def prefix_digest(self, size: int) -> str | None:
        """sha256 of the log's first ``size`` bytes (``None`` if the log is shorter):
        tells whether a position recorded earlier is still a prefix of the log."""
        data = self._bytes()
        if size < 0 or size > len(data):
            return None
        return hashlib.sha256(data[:size]).hexdigest()

    def has_session(self, session_id: str) -> bool:
        return session_id in self.read().sessions

    def append_session(
        self,
        session_id: str,
        facts: Iterable[Fact],
        supersessions: Iterable[Supersession] = (),
        *,
        session_hash: str = "",
        extractor: str = "",
        base: "LogHead | None" = None,
    ) -> Any:
        """Append one session's records and its commit line, then fsync (caller holds the lock).

        Returns the log after the append: a folded :class:`LogState`, or with
        ``base`` (the log's current :meth:`head`, read under the same lock) the
        new :class:`~uac.facts.head.LogHead`, without folding the log.
        """
        state: Any = base if base is not None else self.read()
        if session_id in state.sessions:
            raise StoreError(f"session {session_id} is already in {self.path}.")
        facts = list(facts)
        supersessions = list(supersessions)
        for fact in facts:
            if fact.id in state.fact_ids:
                raise StoreError(f"fact id {fact.id} is already in {self.path}.")
        commit = {
            "kind": "commit",
            "session_id": session_id,
            "facts": len(facts),
            "supersessions": len(supersessions),
            "session_hash": session_hash,
            "extractor": extractor,
            "committed_at": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        }
        make_private_dirs(self.path.parent)
        resolve_inside(self.root, self.path.parent)
        # Records are streamed out as they are encoded; only the final commit line
        # makes them count, so a crash anywhere in between loses this session only.
        with os.fdopen(open_private(self.path, os.O_RDWR | os.O_CREAT), "r+b") as handle:
            if state.dropped_bytes:
                log.warning("%s: dropping the unfinished end of the log (%s).", self.path, state.dropped)
                handle.truncate(state.good_bytes)
            handle.seek(state.good_bytes)
            records = [fact_record(f) for f in facts] + [s.record() for s in supersessions] + [commit]
            hasher = state.hasher.copy() if state.hasher is not None else hashlib.sha256()
            written = 0
            for record in records:
                if record is commit:
                    handle.flush()
                    crash_point("log:records")
                line = encode_record(record)
                handle.write(line)
                hasher.update(line)
                written += len(line)
            handle.flush()
            os.fsync(handle.fileno())
        crash_point("log:committed")
        if base is not None:
            return self._appended_head(
                base, {**commit, "checksum": line_checksum(commit)}, facts, supersessions, hasher, written, len(records)
            )
        # fold the new records into a copy of the state instead of re-reading the file
        new = LogState(
            facts=dict(state.facts),
            sessions=dict(state.sessions),
            supersessions=list(state.supersessions),
            good_bytes=state.good_bytes + written,
            lines=state.lines + len(records),
            digest=hasher.hexdigest(),
            hasher=hasher,
            commit_ends=dict(state.commit_ends),
        )
        new.commit_ends[session_id] = new.good_bytes
        for record in records:
            _apply(new, record)
        self._cache = (self._stamp(), new)
        return new

    def _appended_head(
        self,
        base: "LogHead",
        record: dict[str, Any],
        facts: list[Fact],
        supersessions: list[Supersession],
        hasher: Any,
        written: int,
        lines: int,
    ) -> "LogHead":
        session_id = str(record["session_id"])
        from .head import LogHead

        head = LogHead(
            sessions={**base.sessions, session_id: record},
            commit_ends={**base.commit_ends, session_id: base.good_bytes + written},
            fact_ids=base.fact_ids | {f.id for f in facts},
            good_bytes=base.good_bytes + written,
            lines=base.lines + lines,
            digest=hasher.hexdigest(),
            hasher=hasher,
            states=base.with_session(facts, supersessions),
            saved_bytes=base.saved_bytes,
        )
        _HEADS[str(self.path)] = (self._stamp(), head)
        if self.head_path is not None:
            from .head import save_head, worth_saving

            if worth_saving(head):
                save_head(head, self.head_path)
        return head

    def rewrite(self, keep: Callable[[dict[str, Any]], bool]) -> LogState:
        """Replace the log with the committed records for which ``keep(record)`` is true
        (atomic replace; caller holds the lock).  Used by ``forget``.

        The saved head (:mod:`uac.facts.head`) described the old log and keeps the
        facts that record a state, so it is replaced by the new log's head: no copy
        of a dropped record stays behind."""
        state = self.read()
        data = self._bytes()[: state.good_bytes]
        out = bytearray()
        for raw in split_lines_kept(data):
            record = json.loads(raw)
            if keep(record):
                out += raw
        atomic_write_bytes(self.path, bytes(out))
        self._cache = None
        state = self.read()
        if self.head_path is not None:
            from .head import LogHead, save_head

            self.head_path.unlink(missing_ok=True)
            save_head(LogHead.of_state(state), self.head_path)
        return state

    def line_problems(self) -> list[str]:
        """Every bad line (for ``doctor``), without raising."""
        if not self.path.exists():
            return []
        problems = []
        lines = self._bytes().split(b"\n")
        for number, raw in enumerate(lines, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                problems.append(f"line {number}: not valid JSON")
                continue
            problem = _check(record, number, self.path)
            if problem:
                problems.append(f"line {number}: {problem}")
        return problems
