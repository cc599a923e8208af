"""What a writer needs of the fact log, without folding every fact in it.

An ingest must know which sessions are committed (and with what content
hash), which fact ids are taken, where the committed prefix ends and its
sha256 (the position the indexes record), and whether a torn or uncommitted
tail must be cut off before the next append.  Folding the whole log for that
-- parsing and checksumming every line, building every :class:`Fact` --
costs seconds at 100,000 facts, so :class:`LogHead` keeps exactly those
things, saved as ``.uac/index/log-head.json`` with the length and sha256 of
the committed prefix it describes.

Reading it (:func:`read_head`):

* the saved head describes a prefix of the log (its recorded sha256 matches
  the log's first ``good_bytes`` bytes): only the bytes after it are parsed,
  with the log's own parser (:func:`uac.facts.log.parse_log`: the same commit
  rules, torn-tail handling and line checksums);
* anything else (no saved head, a log rewritten by ``forget``, a restored
  copy, a changed line): the whole log is folded, as before.

So the cost is one read and one sha256 of the log (C speed) plus the new
records.  A writer saves the head again only when more than
:data:`SAVE_AFTER_BYTES` were committed since the saved one: an ingest of one
session leaves the file as it is, and the next reader parses that session's
records after it.  The file is derived data: deleting it costs one full fold.  The
answers are those of :meth:`~uac.facts.log.FactLog.read`;
``tests/memorize/test_incremental_ingest.py`` checks that.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_bytes
from .log import LogState, parse_log
from .model import Fact

log = logging.getLogger(__name__)

FORMAT = 3  # 2: the facts recording a state (employer, home) are kept; 3: fact ids as one string
#: formats still read (a format-2 head holds the same things, its ids as a list)
READABLE = (2, 3)
#: log bytes appended since the head was saved that make it worth saving again:
#: parsing them costs about what writing the head costs at 100,000 facts (tens of
#: ms), so an ingest of one session does not rewrite a head that names every fact
SAVE_AFTER_BYTES = 256 * 1024


@dataclass
class LogHead:
    """The committed log's sessions, fact ids and position, as of one read."""

    #: commit records by session id, in log order
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: session id -> byte offset just after its commit line
    commit_ends: dict[str, int] = field(default_factory=dict)
    #: the id of every committed fact
    fact_ids: set[str] = field(default_factory=set)
    #: byte length, line count and sha256 of the committed prefix
    good_bytes: int = 0
    lines: int = 0
    digest: str = ""
    #: running sha256 of the committed prefix (to extend ``digest`` on append)
    hasher: Any = None
    #: description and size of a dropped tail (torn line or uncommitted records), if any
    dropped: str | None = None
    dropped_bytes: int = 0
    #: fact id -> the fact (JSON) of every fact in force that records a state of a
    #: person (``meta["state"]``: employer, home): what the rules extractor needs to
    #: let "I now work at Initech" supersede "I work at Acme" said years before
    states: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: ``good_bytes`` of the head saved on disk that this one extends (0: none)
    saved_bytes: int = 0

    @classmethod
    def of_state(cls, state: LogState) -> "LogHead":
        return cls(
            sessions=dict(state.sessions),
            commit_ends=dict(state.commit_ends),
            fact_ids=set(state.facts),
            good_bytes=state.good_bytes,
            lines=state.lines,
            digest=state.digest,
            hasher=state.hasher.copy() if state.hasher is not None else None,
            dropped=state.dropped,
            dropped_bytes=state.dropped_bytes,
            states=state_facts(state.facts.values()),
        )

    def with_session(self, facts: "list[Fact]", supersessions: Any) -> dict[str, dict[str, Any]]:
        """:attr:`states` after a session adds ``facts`` and ``supersessions``."""
        states = {**self.states, **state_facts(facts)}
        for sup in supersessions:
            if sup.invalid_at is not None:
                states.pop(sup.fact_id, None)
        return states

    def state_fact_list(self) -> "list[Fact]":
        """The facts of :attr:`states`, in log order of their ids' appearance."""
        return [Fact.from_json(data) for data in self.states.values()]

    def extended(self, tail: LogState, tail_bytes: bytes) -> "LogHead":
        """This head followed by ``tail``, the fold of the bytes after ``good_bytes``
        (``tail_bytes``: those bytes, to extend the sha256)."""
        hasher = self.hasher.copy() if self.hasher is not None else hashlib.sha256()
        hasher.update(tail_bytes[: tail.good_bytes])
        head = LogHead(
            sessions={**self.sessions, **tail.sessions},
            commit_ends=dict(self.commit_ends),
            fact_ids=self.fact_ids | set(tail.facts),
            good_bytes=self.good_bytes + tail.good_bytes,
            lines=self.lines + tail.lines,
            digest=hasher.hexdigest(),
            hasher=hasher,
            dropped=tail.dropped,
            dropped_bytes=tail.dropped_bytes,
            states=self.with_session(list(tail.facts.values()), tail.supersessions),
            saved_bytes=self.saved_bytes,
        )
        for session_id, end in tail.commit_ends.items():
            head.commit_ends[session_id] = self.good_bytes + end
        return head

    # -- on disk ------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "good_bytes": self.good_bytes,
            "lines": self.lines,
            "digest": self.digest,
            "sessions": [[sid, record, self.commit_ends.get(sid, 0)] for sid, record in self.sessions.items()],
            # one string: a tenth of the time of a list of 100,000 strings to write and read
            "fact_ids": "\n".join(self.fact_ids),
            "states": self.states,
        }

    @classmethod
    def from_json(cls, data: Any) -> "LogHead | None":
        try:
            if data.get("format") not in READABLE:
                return None
            ids = data["fact_ids"]
            if isinstance(ids, str):
                ids = ids.split("\n") if ids else []
            head = cls(
                fact_ids=set(ids),
                good_bytes=int(data["good_bytes"]),
                lines=int(data["lines"]),
                digest=str(data["digest"]),
                states={str(k): dict(v) for k, v in (data.get("states") or {}).items()},
            )
            if not all(isinstance(i, str) for i in head.fact_ids):
                return None
            for session_id, record, end in data["sessions"]:
                head.sessions[str(session_id)] = dict(record)
                head.commit_ends[str(session_id)] = int(end)
            head.saved_bytes = head.good_bytes
        except (AttributeError, KeyError, TypeError, ValueError):
            return None
        return head


def state_facts(facts: Any) -> dict[str, dict[str, Any]]:
    """id -> JSON of the facts in force among ``facts`` that record a person's state."""
    return {f.id: f.to_json() for f in facts if f.invalid_at is None and f.meta.get("state")}


def worth_saving(head: LogHead) -> bool:
    """Save ``head`` now?  When no saved head describes part of the log, or more
    than :data:`SAVE_AFTER_BYTES` were committed since the saved one (until then
    the next reader extends the saved head by parsing those bytes)."""
    return head.saved_bytes <= 0 or head.good_bytes - head.saved_bytes > SAVE_AFTER_BYTES


def save_head(head: LogHead, path: Path) -> None:
    """Save ``head`` (best effort: a read-only project folds again next time)."""
    try:
        atomic_write_bytes(path, json.dumps(head.to_json(), separators=(",", ":")).encode("utf-8"))
    except OSError as exc:
        log.debug("log head not saved to %s: %s", path, exc)
    else:
        head.saved_bytes = head.good_bytes


def load_head(path: Path | None) -> LogHead | None:
    if path is None:
        return None
    try:
        return LogHead.from_json(json.loads(Path(path).read_bytes()))
    except (OSError, ValueError):
        return None


def fold_head(data: bytes, log_path: Path, saved: LogHead | None) -> tuple[LogHead, bool]:
    """The head of the log whose bytes are ``data``: ``saved`` extended by the bytes
    after it when it describes a prefix of them, else a full fold.  Returns the
    head and whether it differs from ``saved`` (then it is worth saving)."""
    if saved is not None and saved.good_bytes <= len(data):
        prefix = hashlib.sha256(data[: saved.good_bytes])
        if prefix.hexdigest() == saved.digest:
            saved.hasher = prefix
            rest = data[saved.good_bytes :]
            if not rest:
                return saved, False
            tail = parse_log(rest, log_path, first_line=saved.lines)
            head = saved.extended(tail, rest)
            return head, head.good_bytes != saved.good_bytes
    return LogHead.of_state(parse_log(data, log_path)), True


def recent_valid_facts(data: bytes, head: LogHead, count: int) -> list[Fact]:
    """The last ``count`` facts of the committed log that are valid now (not
    superseded with a date), in log order: what the LLM extractor is shown.

    Reads the committed prefix backwards and parses only the lines it needs; a
    fact is valid unless the last supersede record naming it (after it in the
    log) gives an ``invalid_at`` -- the fold's rule.
    """
    if count <= 0:
        return []
    found: list[Fact] = []
    latest: dict[str, dict[str, Any]] = {}  # id -> the last supersede record naming it
    end = head.good_bytes
    while end > 0 and len(found) < count:
        start = data.rfind(b"\n", 0, end - 1) + 1
        record = json.loads(data[start:end])
        kind = record.get("kind")
        if kind == "supersede":
            latest.setdefault(str(record["id"]), record)
        elif kind == "fact":
            sup = latest.get(str(record["id"]))
            if sup is None:
                found.append(Fact.from_json(record))
            elif not sup.get("invalid_at"):  # replaced, with no end date: still in force
                found.append(Fact.from_json(record).replace(superseded_by=str(sup["superseded_by"])))
        end = start
    found.reverse()
    return found


__all__ = ["LogHead", "fold_head", "load_head", "recent_valid_facts", "save_head"]
