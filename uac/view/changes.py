"""The change log of the view: what each write did to each record (``.uac/history/``).

Every write of a domain goes through :func:`uac.view.store.write_domain`,
:func:`~uac.view.store.swap_domain` or :func:`~uac.view.store.remove_domain`;
there, the records as they were and as they are after the swap are compared
and the differences are appended here, so every compile mode (incremental,
bounded, offline, record imports, corrections) is logged the same way.

One change is one JSON line::

    {"seq": 3, "compile": "c3", "at": "2026-05-01T10:00:00+00:00", "mode": "incremental",
     "domain": "travel", "collection": "trips", "record": "trip-1", "kind": "updated",
     "field": "destination", "old": "Lisbon", "new": "Porto", "facts": ["s-ab-f4"]}

``kind`` is ``added`` (``new``: the record's fields), ``updated`` or ``corrected``
(one line per field that changed; ``corrected`` when a causing fact is a
correction), or ``retired`` (``old``: the fields it had).  ``facts`` are the fact
ids that caused it: a new record's sources, the sources an update brought, the
sources a retired record had.  A record is named by its ``id`` field; records
without one by ``<collection>:<first source>`` (``#2``, ``#3`` for the next ones
sharing it).

Lines are appended to segments of at most :data:`SEGMENT_CHANGES` changes
(``changes-000001.jsonl``, ...); ``state.json`` lists the segments with their
first and last compile and time (so a query since a compile or a day skips the
segments before it), the next compile number, and per domain the source hash
of the files the log has reached (its *head*).  The swap comes first, the
append after: a crash between them leaves a log that is behind the view, never
ahead of it.  A head that is not the view's hash is caught up before the next
write of that domain (its changes are logged under a ``resync`` compile), by
``uac doctor --repair``, and for projects from before the log.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import logging
import os
import re
import tempfile
import threading
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from ..dialect.loader import source_hash
from ..fsutil import PRIVATE_FILE, make_private_dirs, open_private, read_json_object, split_lines_kept
from . import change_index as _index
from .change_index import ChangeRange

if TYPE_CHECKING:
    from ..project import Project

log = logging.getLogger(__name__)

VERSION = 1
#: False: writes of the view are not logged.  Only for measuring what the log costs a
#: compile (``benchmarks/bench_history.py``); never a setting: a view written with it
#: off leaves the log behind, which the next write catches up (a ``resync``)
ENABLED = True
#: changes per segment file
SEGMENT_CHANGES = 20_000
KINDS = ("added", "updated", "corrected", "retired")
#: every change, oldest first
WHOLE_LOG = ChangeRange()
_SEGMENT = re.compile(r"changes-(\d{6})\.jsonl")
#: one writer of a project's log at a time within the process (the project lock covers processes)
_LOCK = threading.RLock()


def history_dir(project: "Project") -> Path:
    return project.paths.internal / "history"


# -- changes -------------------------------------------------------------------------


@dataclass
class Change:
    seq: int
    at: str
    mode: str
    domain: str
    collection: str
    record: str
    kind: str
    field: str | None = None
    old: Any = None
    new: Any = None
    facts: list[str] = dataclasses.field(default_factory=list)

    @property
    def compile(self) -> str:
        return f"c{self.seq}"

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "compile": self.compile,
            "at": self.at,
            "mode": self.mode,
            "domain": self.domain,
            "collection": self.collection,
            "record": self.record,
            "kind": self.kind,
            "field": self.field,
            "old": self.old,
            "new": self.new,
            "facts": list(self.facts),
        }

    @classmethod
    def from_json(cls, data: Any) -> "Change":
        if not isinstance(data, dict) or data.get("kind") not in KINDS:
            raise ValueError("not a change")
        seq = data["seq"]
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ValueError("bad seq")
        facts = data.get("facts") or []
        if not isinstance(facts, list):
            raise ValueError("bad facts")
        return cls(
            seq=seq,
            at=str(data["at"]),
            mode=str(data.get("mode") or ""),
            domain=str(data["domain"]),
            collection=str(data.get("collection") or ""),
            record=str(data["record"]),
            kind=data["kind"],
            field=None if data.get("field") is None else str(data["field"]),
            old=data.get("old"),
            new=data.get("new"),
            facts=[str(f) for f in facts],
        )


def plain(value: Any) -> Any:
    """A value as JSON: records as dicts of their fields, enum members by name, dates in ISO form."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    return str(value)


@dataclass
class Rec:
    collection: str
    fields: dict[str, Any]
    sources: list[str]


def records_of(
    values: dict[str, Any], seen: dict[int, tuple[Any, dict[str, Any], list[str]]] | None = None
) -> dict[str, Rec]:
    """The records of a domain's values, by name (see the module docstring).  ``seen``:
    id(record) -> (record, fields, sources) of records converted before (a record object
    that is still the same is not converted again); filled with this call's records."""
    out: dict[str, Rec] = {}
    known = dict(seen) if seen is not None else {}
    if seen is not None:
        seen.clear()
    for collection, value in values.items():
        items = value if isinstance(value, list) else [value]
        is_list = isinstance(value, list)
        for position, item in enumerate(items):
            hit = known.get(id(item))
            if hit is not None and hit[0] is item:
                fields, sources = hit[1], hit[2]
            else:
                if dataclasses.is_dataclass(item) and not isinstance(item, type):
                    fields = {f.name: plain(getattr(item, f.name)) for f in dataclasses.fields(item)}
                else:
                    fields = {"value": plain(item)}
                raw = fields.pop("sources", None)
                sources = [s for s in raw if isinstance(s, str)] if isinstance(raw, list) else []
            if seen is not None and dataclasses.is_dataclass(item):
                seen[id(item)] = (item, fields, sources)
            rid = fields.get("id")
            if isinstance(rid, str) and rid:
                key = rid
            elif not is_list:
                key = collection
            elif sources:
                key = f"{collection}:{sources[0]}"
            else:
                key = f"{collection}[{position}]"
            name, n = key, 1
            while name in out:
                n += 1
                name = f"{key}#{n}"
            out[name] = Rec(collection, fields, sources)
    return out


def diff(
    before: dict[str, Rec], after: dict[str, Rec], corrections: frozenset[str] = frozenset()
) -> list[tuple[str, str, str, str | None, Any, Any, list[str]]]:
    """(collection, record, kind, field, old, new, facts) for each difference, in record order."""
    out: list[tuple[str, str, str, str | None, Any, Any, list[str]]] = []
    for key, rec in after.items():
        old = before.get(key)
        if old is None:
            out.append((rec.collection, key, "added", None, None, rec.fields, list(rec.sources)))
            continue
        if old.fields == rec.fields and old.sources == rec.sources:
            continue
        brought = [s for s in rec.sources if s not in old.sources]
        facts = brought or list(rec.sources)
        kind = "corrected" if corrections.intersection(facts) else "updated"
        for name in list(rec.fields) + [n for n in old.fields if n not in rec.fields]:
            a, b = old.fields.get(name), rec.fields.get(name)
            if a != b:
                out.append((rec.collection, key, kind, name, a, b, facts))
        if old.sources != rec.sources:
            out.append((rec.collection, key, kind, "sources", list(old.sources), list(rec.sources), facts))
    for key, rec in before.items():
        if key not in after:
            out.append((rec.collection, key, "retired", None, rec.fields, None, list(rec.sources)))
    return out


# -- the state file ------------------------------------------------------------------


def _empty_state() -> dict[str, Any]:
    return {"version": VERSION, "next_seq": 1, "heads": {}, "segments": []}


def read_state(project: "Project") -> dict[str, Any]:
    """``state.json`` (an empty one when missing or unreadable: :func:`check` reports
    that); ``next_seq`` is past the last compile of the segments whatever it says."""
    state = _read_state_file(project)
    state["next_seq"] = max(state["next_seq"], _last_seq(project) + 1)
    return state


def _read_state_file(project: "Project") -> dict[str, Any]:
    data = read_json_object(history_dir(project) / "state.json")
    if data is None or data.get("version") != VERSION:
        return _empty_state()
    state = _empty_state()
    if isinstance(data.get("next_seq"), int):
        state["next_seq"] = data["next_seq"]
    if isinstance(data.get("heads"), dict):
        state["heads"] = {str(k): v for k, v in data["heads"].items() if isinstance(v, dict)}
    if isinstance(data.get("segments"), list):
        state["segments"] = [s for s in data["segments"] if isinstance(s, dict) and isinstance(s.get("name"), str)]
    return state


def _last_seq(project: "Project") -> int:
    """The compile of the last whole line of the last segment (0: none)."""
    paths = segment_paths(project)
    if not paths:
        return 0
    try:
        with open(paths[-1], "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - 65536))
            tail = handle.read()
    except OSError:
        return 0
    for line in reversed(tail.split(b"\n")[1 if size > len(tail) else 0 : -1]):
        change = _parse(line + b"\n")
        if change is not None:
            return change.seq
    return 0


def _write_state(project: "Project", state: dict[str, Any]) -> None:
    """Replace ``state.json`` (readers see the old or the new one).  Not fsync'd: it is
    derived from the segments, and a lost or old one costs nothing but a re-read --
    :func:`read_state` takes ``next_seq`` past the segments' last compile, heads behind
    the view are caught up by a resync that finds the changes already logged, and a
    segment it does not describe is read whole."""
    path = history_dir(project) / "state.json"
    make_private_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=".state.json.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), PRIVATE_FILE)
            handle.write((json.dumps(state, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def segment_paths(project: "Project") -> list[Path]:
    directory = history_dir(project)
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if _SEGMENT.fullmatch(p.name) and p.is_file() and not p.is_symlink())


# -- scopes: which compile a write belongs to -------------------------------------------


@dataclass
class Scope:
    mode: str
    corrections: frozenset[str] = frozenset()
    #: False: writes change the view without logging changes (a forget: what it removes
    #: must not be written anywhere); the heads follow the view
    record: bool = True
    seq: int | None = None
    at: str = ""
    #: ``state.json`` as this compile's writes left it, written once when the compile ends
    state: dict[str, Any] | None = None


_SCOPES: dict[str, Scope] = {}
#: (project root, domain) -> (source hash, records) of the files last written
_MEMO: dict[tuple[str, str], tuple[str, dict[str, Rec]]] = {}
#: (project root, domain) -> the record objects last converted (see :func:`records_of`)
_SEEN: dict[tuple[str, str], dict[int, tuple[Any, dict[str, Any], list[str]]]] = {}


def _key(project: "Project") -> str:
    return str(project.root)


@contextmanager
def compile_scope(
    project: "Project", mode: str, *, corrections: Iterable[str] = (), record: bool = True
) -> Iterator[Scope]:
    """Every write of the view inside the block is one compile of the log (caller holds
    the project lock); a scope inside another one joins it."""
    key = _key(project)
    with _LOCK:
        outer = _SCOPES.get(key)
        if outer is not None:
            scope = outer
        else:
            scope = _SCOPES[key] = Scope(mode, frozenset(corrections), record)
    try:
        yield scope
    finally:
        if outer is None:
            with _LOCK:
                _SCOPES.pop(key, None)
                if scope.state is not None:
                    try:
                        _write_state(project, scope.state)
                    except OSError as exc:
                        log.warning("the change log's state was not written (uac doctor --repair rebuilds it): %s", exc)


def _open_state(project: "Project") -> dict[str, Any]:
    """``state.json`` to change: the compile's own copy inside a compile (see :func:`_keep_state`)."""
    scope = _SCOPES.get(_key(project))
    if scope is not None and scope.state is not None:
        return scope.state
    return read_state(project)


def _keep_state(project: "Project", state: dict[str, Any]) -> None:
    """Inside a compile, keep ``state`` for the compile's end (one write, whatever the
    number of domains it writes); outside one, write it now.  A crash before the end
    leaves heads behind the segments (caught up as a resync that finds nothing new) and
    a ``next_seq`` :func:`read_state` corrects from the last segment."""
    scope = _SCOPES.get(_key(project))
    if scope is not None:
        scope.state = state
    else:
        _write_state(project, state)


_OFFERED: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}


def offer(project: "Project", name: str, digest: str, values: dict[str, Any]) -> None:
    """The records the files with source hash ``digest`` hold, given by the writer that
    rendered them, so the swap need not read them back."""
    _OFFERED[(_key(project), name)] = (digest, values)


def offered(project: "Project", name: str, digest: str) -> dict[str, Any] | None:
    found = _OFFERED.pop((_key(project), name), None)
    return found[1] if found is not None and found[0] == digest else None


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _current_hash(project: "Project", name: str) -> str | None:
    directory = project.paths.domains / name
    try:
        return source_hash((directory / "schema.py").read_bytes(), (directory / "state.py").read_bytes())
    except OSError:
        return None


def before_write(project: "Project", name: str) -> tuple[str | None, dict[str, Rec]] | None:
    """The records of domain ``name`` as they are now (before a swap); ``None`` when they
    cannot be read (the write goes on, the log catches up later)."""
    try:
        digest = _current_hash(project, name)
        if digest is None:
            return None, {}
        memo = _MEMO.get((_key(project), name))
        if memo is not None and memo[0] == digest:
            return digest, memo[1]
        from .store import load_domain

        return digest, records_of(load_domain(project, name).values)
    except Exception as exc:  # the view's own checks report an unreadable domain
        log.warning("the change log cannot read domain %s before its write: %s", name, exc)
        return None


def after_write(
    project: "Project",
    name: str,
    before: tuple[str | None, dict[str, Rec]] | None,
    values: dict[str, Any] | None,
    digest: str | None,
) -> None:
    """Log the changes of a swap that just happened (``values=None``: the domain was
    removed).  Never raises: a log that fails to follow is caught up later."""
    try:
        from ..failpoints import crash_point

        crash_point("history:swapped")
        after = records_of(values, _SEEN.setdefault((_key(project), name), {})) if values is not None else {}
        with _LOCK:
            state = _open_state(project)
            scope = _SCOPES.get(_key(project)) or Scope("write")
            if before is not None:
                head = state["heads"].get(name, {}).get("hash")
                if before[0] is not None and head != before[0]:
                    # the log is behind the files this write replaced: catch that up first
                    _resync(project, state, name, before[1])
                _append(project, state, scope, name, diff(before[1], after, scope.corrections))
            if digest is None:
                state["heads"].pop(name, None)
            else:
                state["heads"][name] = {"hash": digest, "seq": scope.seq}
            _keep_state(project, state)
            if digest is not None:
                _MEMO[(_key(project), name)] = (digest, after)
            else:
                _MEMO.pop((_key(project), name), None)
    except Exception as exc:
        log.warning(
            "the change log did not follow the write of domain %s (uac doctor --repair catches it up): %s", name, exc
        )


@dataclass
class Mark:
    """Where the log stood before a block whose writes may be undone (:func:`mark`)."""

    state: dict[str, Any]
    sizes: dict[str, int]
    seq: int | None


def mark(project: "Project") -> Mark:
    """The log's position now: its state and the size of each segment."""
    with _LOCK:
        scope = _SCOPES.get(_key(project))
        return Mark(
            json.loads(json.dumps(_open_state(project))),
            {p.name: p.stat().st_size for p in segment_paths(project)},
            scope.seq if scope is not None else None,
        )


def rollback(project: "Project", at: Mark) -> None:
    """Take the log back to ``at``: a write that was undone (its files swapped back by
    :func:`uac.view.store.undone_on_failure`) leaves no change behind, nor does its
    undoing.  Never raises: a log it cannot take back is caught up later."""
    try:
        with _LOCK:
            for path in segment_paths(project):
                size = at.sizes.get(path.name)
                if size is None:
                    path.unlink()
                    _index.index_path(path).unlink(missing_ok=True)
                elif path.stat().st_size != size:
                    with open(path, "rb+") as handle:
                        handle.truncate(size)
                    _index.reindex(path)
            scope = _SCOPES.get(_key(project))
            if scope is not None and scope.state is None:
                scope.state = at.state
            elif scope is not None and scope.state is not None:
                scope.state.clear()
                scope.state.update(at.state)
            else:
                _write_state(project, at.state)
            if scope is not None:
                scope.seq = at.seq
            _MEMO.clear()
    except Exception as exc:
        log.warning(
            "the change log was not taken back after an undone write (uac doctor --repair rebuilds it): %s", exc
        )


def _append(project: "Project", state: dict[str, Any], scope: Scope, name: str, found: list) -> None:
    if not found or not scope.record:
        return
    if scope.seq is None:
        scope.seq = state["next_seq"]
        scope.at = _now()
        state["next_seq"] = scope.seq + 1
    lines = [
        Change(scope.seq, scope.at, scope.mode, name, coll, rec, kind, fld, old, new, facts).to_json()
        for coll, rec, kind, fld, old, new, facts in found
    ]
    write_lines(project, state, lines)


def write_lines(project: "Project", state: dict[str, Any], lines: list[dict[str, Any]]) -> None:
    """Append change lines to the last segment (a new one when it is full); ``state`` is
    updated, not written."""
    directory = make_private_dirs(history_dir(project))
    segments = state["segments"]
    while lines:
        if not segments or segments[-1].get("count", 0) >= SEGMENT_CHANGES:
            segments.append({"name": f"changes-{len(segments) + 1:06d}.jsonl", "count": 0})
        meta = segments[-1]
        room = SEGMENT_CHANGES - meta.get("count", 0)
        chunk, lines = lines[:room], lines[room:]
        path = directory / meta["name"]
        before = _cut_torn_tail(path)
        encoded = [(json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8") for c in chunk]
        with os.fdopen(open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT), "wb") as handle:
            handle.write(b"".join(encoded))
        _index.appended(path, before, [(c["seq"], c["at"], len(e)) for c, e in zip(chunk, encoded)])
        meta["count"] = meta.get("count", 0) + len(chunk)
        meta["domains"] = sorted(set(meta.get("domains") or ()) | {c["domain"] for c in chunk})
        meta["bytes"] = before + sum(len(e) for e in encoded)
        meta.setdefault("first_seq", chunk[0]["seq"])
        meta.setdefault("first_at", chunk[0]["at"])
        meta["last_seq"], meta["last_at"] = chunk[-1]["seq"], chunk[-1]["at"]


def _cut_torn_tail(path: Path) -> int:
    """A line cut short by a crash is dropped before the next append; returns the size after."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return 0
    if size == 0:
        return 0
    with open(path, "rb+") as handle:
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return size
        handle.seek(max(0, size - 65536))
        tail = handle.read()
        if b"\n" not in tail and size > len(tail):  # a long torn line: look further back
            handle.seek(0)
            tail = handle.read()
        cut = tail.rfind(b"\n")
        kept = size - len(tail) + cut + 1 if cut >= 0 else 0
        handle.truncate(kept)
        return kept


def _resync(project: "Project", state: dict[str, Any], name: str, current: dict[str, Rec]) -> int:
    """Log what the files of ``name`` hold that the log does not (a ``resync`` compile)."""
    replayed = {key: Rec(r["collection"], r["fields"], r["sources"]) for key, r in replay(project, name).items()}
    found = diff(replayed, current)
    _append(project, state, Scope("resync"), name, found)
    return len(found)


# -- reading -------------------------------------------------------------------------


@dataclass
class Read:
    changes: list[Change]
    #: lines that are not changes (a damaged file); skipped
    damaged: int = 0
    #: the changes in the range (``changes`` holds the last ``tail`` of them when asked)
    total: int = 0


def read_changes(
    project: "Project",
    within: ChangeRange = WHOLE_LOG,
    *,
    domain: str | None = None,
    record: str | None = None,
    tail: int | None = None,
) -> Read:
    """The changes ``within`` the range, oldest first; with ``tail``, only the last ``tail``
    of them are parsed and returned (``total`` counts all).  Segments before the range are
    skipped by ``state.json`` and the bytes before it by each segment's index
    (:mod:`uac.view.change_index`)."""
    kept: Any = deque(maxlen=tail) if tail is not None else []
    damaged = total = 0
    if tail is not None and domain is None and record is None:
        return _tail(project, within, tail)
    for item in matching(project, within, domain=domain, record=record):
        if item is None:
            damaged += 1
        else:
            kept.append(item)
            total += 1
    return Read(list(kept), damaged, total)


def _tail(project: "Project", within: ChangeRange, tail: int) -> Read:
    """:func:`read_changes` with ``tail`` and no filter: the lines the index puts in the
    range are counted without being split or parsed, and only the last ``tail`` are parsed."""
    kept: Any = deque(maxlen=tail)
    damaged = total = 0
    for data, sure_bytes in _chunks(project, within):
        if data is None:
            damaged += 1
            continue
        sure, rest = data[:sure_bytes], data[sure_bytes:]
        count = _all_whole(sure)
        if count is None:
            rest = data  # a line not as written somewhere in it: line by line
        elif count:
            total += count
            kept.extend(sure[:-1].rsplit(b"\n", tail)[-tail:])
        for line in split_lines_kept(rest):
            if not line.endswith(b"\n"):
                continue
            change = _parse(line)
            if change is None:
                damaged += 1
            elif within.holds(change.seq, change.at):
                kept.append(change)
                total += 1
    out: list[Change] = []
    for item in kept:
        change = _parse(item + b"\n") if isinstance(item, bytes) else item
        if change is None:
            damaged += 1
            total -= 1
        else:
            out.append(change)
    return Read(out, damaged, total)


def _parse(line: bytes) -> Change | None:
    try:
        return Change.from_json(json.loads(line))
    except (ValueError, KeyError, TypeError):
        return None


def matching(
    project: "Project", within: ChangeRange, *, domain: str | None = None, record: str | None = None
) -> Iterator[Change | None]:
    """The changes in the range, oldest first, as they are read (``None`` for a damaged line)."""
    domain_key = f'"domain": {json.dumps(domain, ensure_ascii=False)}'.encode() if domain is not None else None
    record_key = json.dumps(record, ensure_ascii=False).encode() if record is not None else None
    for line, sure in _lines(project, within):
        if line is None:
            yield None
            continue
        if not line.endswith(b"\n"):
            continue  # a torn last line: not a change yet
        # cheap filters before parsing
        if domain_key is not None and domain_key not in line:
            continue
        if record_key is not None and record_key not in line:
            continue
        change = _parse(line)
        if change is None:
            yield None
            continue
        if not sure and not within.holds(change.seq, change.at):
            continue
        if domain is not None and change.domain != domain:
            continue
        if record is not None and change.record != record:
            continue
        yield change


def _chunks(project: "Project", within: ChangeRange) -> Iterator[tuple[bytes | None, int]]:
    """The bytes of each segment that may hold changes in the range, with how many of
    them the index says are in the range (``None``: a segment that cannot be read)."""
    state = read_state(project)
    meta = {s["name"]: s for s in state["segments"]}
    paths = segment_paths(project)
    since_seq, since_at, until_seq = within.since_seq, within.since_at, within.until_seq
    for number, path in enumerate(paths):
        m = meta.get(path.name)
        last = number == len(paths) - 1
        if m is not None and not last:  # the last segment may be ahead of state.json
            if since_seq is not None and isinstance(m.get("last_seq"), int) and m["last_seq"] <= since_seq:
                continue
            if since_at is not None and isinstance(m.get("last_at"), str) and m["last_at"] < since_at:
                continue
            if until_seq is not None and isinstance(m.get("first_seq"), int) and m["first_seq"] > until_seq:
                continue
        try:
            with open(path, "rb") as handle:
                size = os.fstat(handle.fileno()).st_size
                where = _index.span(path, size, within)
                if not where.fits(handle):
                    where = _index.Span()  # an index that does not describe the file: read it all
                handle.seek(where.start)
                data = handle.read() if where.stop is None else handle.read(where.stop - where.start)
        except OSError:
            yield None, 0  # an unreadable segment counts as damaged
            continue
        yield data, where.sure_end - where.start


def _lines(project: "Project", within: ChangeRange) -> Iterator[tuple[bytes | None, bool]]:
    """The lines of the segments that may hold changes in the range, each with whether
    the index says it is in the range (else the reader checks it)."""
    for data, sure_bytes in _chunks(project, within):
        if data is None:
            yield None, False
            continue
        offset = 0
        for line in split_lines_kept(data):
            yield line, offset < sure_bytes
            offset += len(line)


def _all_whole(data: bytes) -> int | None:
    """The number of lines of ``data`` (whole lines) when every one is as the writer
    writes it (keys sorted: ``{"at": "`` first, ``}`` last), counted at C speed: a raw
    newline is only ever the end of a line (JSON escapes the ones in values)."""
    count = data.count(b"\n")
    starts = (
        data.count(b'\n{"at": "')
        + (1 if data.startswith(b'{"at": "') else 0)
        - (1 if data.endswith(b'\n{"at": "') else 0)
    )
    return count if starts == count and data.count(b"}\n") == count else None


def logged_domains(project: "Project") -> list[str]:
    """The domains the log has changes of: from ``state.json`` for the segments it
    describes (their size is the one it recorded), else from the segment's lines."""
    meta = {s["name"]: s for s in read_state(project)["segments"]}
    found: set[str] = set()
    for path in segment_paths(project):
        known = meta.get(path.name, {})
        if isinstance(known.get("domains"), list) and known.get("bytes") == path.stat().st_size:
            found.update(str(d) for d in known["domains"])
            continue
        for line in split_lines_kept(path.read_bytes()):
            change = _parse(line) if line.endswith(b"\n") else None
            if change is not None:
                found.add(change.domain)
    return sorted(found)


def replay(
    project: "Project", domain: str, *, until_seq: int | None = None, until_at: str | None = None
) -> dict[str, dict[str, Any]]:
    """The records of ``domain`` as the log says they stood (record -> collection, fields, sources)."""
    records: dict[str, dict[str, Any]] = {}
    within = ChangeRange(until_seq=until_seq, until_at=until_at)
    for change in read_changes(project, within, domain=domain).changes:
        apply(records, change)
    return records


def apply(records: dict[str, dict[str, Any]], change: Change) -> None:
    if change.kind == "added":
        fields = dict(change.new) if isinstance(change.new, dict) else {}
        records[change.record] = {"collection": change.collection, "fields": fields, "sources": list(change.facts)}
    elif change.kind == "retired":
        records.pop(change.record, None)
    else:
        rec = records.get(change.record)
        if rec is None:
            return
        if change.field == "sources":
            rec["sources"] = [s for s in change.new if isinstance(s, str)] if isinstance(change.new, list) else []
        elif change.field is not None:
            rec["fields"][change.field] = change.new


# -- keeping it whole ------------------------------------------------------------------


@dataclass
class Problems:
    damaged_lines: int = 0
    state_broken: bool = False
    behind: list[str] = field(default_factory=list)
    #: segments whose index (:mod:`uac.view.change_index`) is missing or does not end
    #: with them: read whole by every query until ``doctor --repair`` writes it
    unindexed: list[str] = field(default_factory=list)


def check(project: "Project", domains: dict[str, str]) -> Problems:
    """What is wrong with the log; ``domains``: name -> source hash of the view now."""
    problems = Problems()
    path = history_dir(project) / "state.json"
    if segment_paths(project) or path.exists():
        try:
            data = json.loads(path.read_text("utf-8"))
            problems.state_broken = not isinstance(data, dict) or data.get("version") != VERSION
        except (OSError, ValueError):
            problems.state_broken = True
    for seg in segment_paths(project):
        data = seg.read_bytes()
        for line in split_lines_kept(data):
            try:
                Change.from_json(json.loads(line))
            except (ValueError, KeyError, TypeError):
                problems.damaged_lines += 1
        runs = _index.read_runs(seg, len(data))
        if runs is None or (runs[-1][3] if runs else 0) != len(data):
            problems.unindexed.append(seg.name)
    heads = read_state(project)["heads"]
    problems.behind = sorted(n for n, h in domains.items() if heads.get(n, {}).get("hash") != h)
    problems.behind += sorted(n for n in heads if n not in domains)
    return problems


def rebuild(project: "Project", domains: dict[str, dict[str, Rec] | None]) -> int:
    """Rewrite the segments without damaged lines, ``state.json`` from them, and log what
    the view holds that the log does not (caller holds the lock); ``domains``: name ->
    its records now (``None``: unreadable, left alone).  Returns the changes logged."""
    with _LOCK:
        kept: list[dict[str, Any]] = []
        for seg in segment_paths(project):
            for line in split_lines_kept(seg.read_bytes()):
                try:
                    kept.append(Change.from_json(json.loads(line)).to_json())
                except (ValueError, KeyError, TypeError):
                    continue
        old_heads = _open_state(project)["heads"]
        for seg in segment_paths(project):
            seg.unlink()
            _index.index_path(seg).unlink(missing_ok=True)
        state = _empty_state()
        kept.sort(key=lambda c: c["seq"])
        write_lines(project, state, kept)
        state["next_seq"] = max([c["seq"] for c in kept] + [h.get("seq") or 0 for h in old_heads.values()] + [0]) + 1
        logged = 0
        for name, current in sorted(domains.items()):
            if current is None:
                if name in old_heads:
                    state["heads"][name] = old_heads[name]
                continue
            logged += _resync(project, state, name, current)
            state["heads"][name] = {"hash": _current_hash(project, name), "seq": None}
        for name in set(replayed_domains(kept)) - set(domains):
            current_gone: dict[str, Rec] = {}
            logged += _resync(project, state, name, current_gone)
        make_private_dirs(history_dir(project))
        _keep_state(project, state)
        _MEMO.clear()
        return logged


def replayed_domains(changes: list[dict[str, Any]]) -> set[str]:
    return {c["domain"] for c in changes}


def purge(project: "Project", doomed: set[str], mentions: "re.Pattern[str]", words: set[str]) -> int:
    """Forget: a change caused only by forgotten facts goes; the others lose those fact ids
    (in ``facts`` and in ``sources`` values), and a value that uses a forgotten word
    becomes ``null``.  Returns the changes dropped or rewritten (caller holds the lock)."""
    touched = 0
    with _LOCK:
        for seg in segment_paths(project):
            data = seg.read_bytes()
            text = data.decode("utf-8", "replace")
            lowered = text.lower()
            if not mentions.search(text) and not any(w in lowered for w in words):
                continue
            out = []
            for line in split_lines_kept(data):
                try:
                    change = Change.from_json(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    continue  # a damaged line may hold anything: it goes
                raw = line.decode("utf-8", "replace")
                if not mentions.search(raw) and not any(w in raw.lower() for w in words):
                    out.append(line)
                    continue
                touched += 1
                if change.facts and set(change.facts) <= doomed:
                    continue
                change.facts = [f for f in change.facts if f not in doomed]
                change.old = _scrub(change.old, doomed, words)
                change.new = _scrub(change.new, doomed, words)
                out.append((json.dumps(change.to_json(), ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8"))
            from ..fsutil import atomic_write_bytes

            atomic_write_bytes(seg, b"".join(out))
            _index.reindex(seg, b"".join(out))
        _describe_segments(project)
        _MEMO.clear()
    return touched


def _describe_segments(project: "Project") -> None:
    """Count, size and domains of each segment in ``state.json`` again (after a rewrite)."""
    state = _open_state(project)
    for meta in state["segments"]:
        path = history_dir(project) / meta["name"]
        try:
            data = path.read_bytes()
        except OSError:
            continue
        lines = split_lines_kept(data)
        meta["count"] = len(lines)
        meta["bytes"] = len(data)
        meta["domains"] = sorted({c.domain for c in map(_parse, lines) if c is not None})
    if history_dir(project).is_dir():
        _keep_state(project, state)


def purge_collection(project: "Project", domain: str, collection: str | None) -> int:
    """Drop every change of ``domain``'s collection ``collection`` (``None``: of the whole
    domain), for records forgotten by name (caller holds the lock)."""
    dropped = 0
    with _LOCK:
        for seg in segment_paths(project):
            out = []
            for line in split_lines_kept(seg.read_bytes()):
                try:
                    change = Change.from_json(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    continue
                if change.domain == domain and collection in (None, change.collection):
                    dropped += 1
                else:
                    out.append(line)
            from ..fsutil import atomic_write_bytes

            atomic_write_bytes(seg, b"".join(out))
            _index.reindex(seg, b"".join(out))
        _describe_segments(project)
        _MEMO.clear()
    return dropped


def _scrub(value: Any, doomed: set[str], words: set[str]) -> Any:
    if isinstance(value, str):
        return None if value in doomed or any(w in value.lower() for w in words) else value
    if isinstance(value, list):
        return [v for v in (_scrub(v, doomed, words) for v in value) if v is not None]
    if isinstance(value, dict):
        return {k: _scrub(v, doomed, words) for k, v in value.items()}
    return value


__all__ = [
    "KINDS",
    "WHOLE_LOG",
    "SEGMENT_CHANGES",
    "Change",
    "ChangeRange",
    "Problems",
    "Rec",
    "after_write",
    "apply",
    "before_write",
    "check",
    "compile_scope",
    "diff",
    "history_dir",
    "logged_domains",
    "mark",
    "matching",
    "purge",
    "purge_collection",
    "read_changes",
    "read_state",
    "rebuild",
    "records_of",
    "replay",
    "rollback",
    "segment_paths",
]
