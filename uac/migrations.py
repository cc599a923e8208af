"""Named, append-only migrations of persisted project data.

Every change to what a project stores on disk gets a migration here, appended
at the end of :data:`MIGRATIONS` and never edited or reordered once released.
A project records the names it has applied in ``uac.toml`` (``migrations``);
opening a project applies the pending ones in order, under the project lock.
A project that lists a migration this uac does not know was written by a newer
uac and is refused rather than guessed at.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .dates import Period
from .errors import FormatVersionError, MigrationError
from .fsutil import atomic_write_bytes, split_lines_kept


@dataclass(frozen=True)
class Migration:
    name: str
    description: str
    apply: Callable[[Path], None]
    #: format_version the project has after this migration
    format_version: int = 1


def _create_layout(root: Path) -> None:
    for sub in ("memory/sessions", "domains", ".uac"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    facts = root / "memory" / "facts.jsonl"
    if not facts.exists():
        facts.touch()
    gitignore = root / ".uac" / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("# derived data: rebuilt by 'uac doctor --repair'\n*\n", "utf-8")


def _domains_package(root: Path) -> None:
    init = root / "domains" / "__init__.py"
    if not init.exists():
        init.write_text('"""Generated per-domain packages of this user project."""\n', "utf-8")


def _line_checksum(record: dict[str, Any]) -> str:
    """The fact log's line checksum (``uac.facts.log.line_checksum``; a migration
    is pinned to the format it migrates, so it carries its own copy)."""
    body = {k: v for k, v in record.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _old_period(day: _dt.date, precision: str) -> Period | None:
    """What an event day stored with ``meta.date_precision`` meant."""
    if precision == "week":
        return Period.week_of(day)
    if precision == "weekend":
        saturday = (
            day - _dt.timedelta(days=day.weekday() - 5)
            if day.weekday() >= 5
            else day + _dt.timedelta(days=5 - day.weekday())
        )
        return Period(saturday, saturday + _dt.timedelta(days=1))
    if precision == "month":
        return Period.month(day.year, day.month)
    if precision == "year":
        return Period.year(day.year)
    return None


def _event_periods(root: Path) -> None:
    """Event dates with their precision: a fact whose ``event_date`` was a stand-in day
    for a week, weekend, month or year (``meta.date_precision``, written by the rule
    extractor and by the reading of model replies) gets that period as its
    ``event_date``; ``date_precision`` leaves ``meta``.  Every other event date was an
    exact day and stays one; other lines (supersessions, commits, an unfinished
    tail) are kept byte for byte."""
    path = root / "memory" / "facts.jsonl"
    if not path.is_file() or path.is_symlink():
        return
    data = path.read_bytes()
    out = bytearray()
    changed = 0
    for raw in split_lines_kept(data):
        try:
            record = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            out += raw
            continue
        meta = record.get("meta") if isinstance(record, dict) else None
        if (
            record.get("kind") != "fact"
            or not isinstance(meta, dict)
            or "date_precision" not in meta
            or record.get("checksum") != _line_checksum(record)
        ):
            out += raw
            continue
        precision = str(meta.pop("date_precision"))
        period = None
        if record.get("event_date"):
            try:
                period = _old_period(_dt.date.fromisoformat(str(record["event_date"])[:10]), precision)
            except ValueError:
                period = None
        if period is not None:
            record["event_date"] = period.code
        record["checksum"] = _line_checksum(record)
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        out += line + (b"\n" if raw.endswith(b"\n") else b"")
        changed += 1
    if changed:
        atomic_write_bytes(path, bytes(out))


def _change_log(root: Path) -> None:
    """The view's change log (``.uac/history/``, derived data): the records the compile
    ledgers say were retired are its first compile (``c1``, mode ``ledgers``; when they
    were retired is not kept, so the time is the ledger file's).  The records the view
    holds now are logged by the next write of their domain or by ``uac doctor --repair``
    (a ``resync`` compile: the log is behind the view until then).  The format is
    ``uac.view.changes``; a migration carries its own copy of the line it writes."""
    history = root / ".uac" / "history"
    if (history / "state.json").exists():
        return
    lines = []
    compile_root = root / ".uac" / "compile"
    for ledger in sorted(compile_root.glob("*/ledger-*.json")) if compile_root.is_dir() else []:
        try:
            data = json.loads(ledger.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        at = _dt.datetime.fromtimestamp(ledger.stat().st_mtime, _dt.timezone.utc).isoformat(timespec="seconds")
        for entry in data.get("retired") or ():
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                continue
            record = entry.get("record")
            old = {k: v for k, v in record.items() if k != "sources"} if isinstance(record, dict) else {}
            facts = [s for s in entry.get("cited") or () if isinstance(s, str)]
            lines.append(
                {
                    "seq": 1,
                    "compile": "c1",
                    "at": at,
                    "mode": "ledgers",
                    "domain": ledger.parent.name,
                    "collection": str(entry.get("collection") or ""),
                    "record": entry["id"],
                    "kind": "retired",
                    "field": None,
                    "old": old,
                    "new": None,
                    "facts": facts,
                }
            )
    history.mkdir(parents=True, exist_ok=True)
    segments = []
    if lines:
        name = "changes-000001.jsonl"
        encoded = [(json.dumps(c, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8") for c in lines]
        atomic_write_bytes(history / name, b"".join(encoded))
        # its index: one run per time (every line is compile 1), as uac.view.change_index writes it
        runs: list[list[Any]] = []
        offset = 0
        for change, raw in zip(lines, encoded):
            if runs and runs[-1][1] == change["at"]:
                runs[-1][3] = offset + len(raw)
            else:
                runs.append([1, change["at"], offset, offset + len(raw)])
            offset += len(raw)
        atomic_write_bytes(history / "changes-000001.idx", "".join(json.dumps(r) + "\n" for r in runs).encode("utf-8"))
        segments.append(
            {
                "name": name,
                "count": len(lines),
                "first_seq": 1,
                "last_seq": 1,
                "first_at": lines[0]["at"],
                "last_at": lines[-1]["at"],
                "bytes": offset,
                "domains": sorted({c["domain"] for c in lines}),
            }
        )
    state: dict[str, Any] = {"version": 1, "next_seq": 2 if lines else 1, "heads": {}, "segments": segments}
    atomic_write_bytes(history / "state.json", (json.dumps(state, sort_keys=True) + "\n").encode("utf-8"))


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_layout", "create memory/, memory/sessions/, domains/ and .uac/", _create_layout),
    Migration("0002_domains_package", "make domains/ a package with __init__.py", _domains_package),
    Migration(
        "0003_event_periods",
        "event dates keep their precision: stand-in days of a week, weekend, month or year become that period",
        _event_periods,
    ),
    Migration(
        "0004_change_log",
        "the view's change log under .uac/history/, started from the records the compile ledgers retired",
        _change_log,
    ),
)


def known_names() -> list[str]:
    return [m.name for m in MIGRATIONS]


def pending(applied: tuple[str, ...] | list[str]) -> list[Migration]:
    """The migrations still to apply, given the names a project has applied.

    Raises :class:`FormatVersionError` if the project lists a name this uac does
    not know or lists known ones out of order.
    """
    names = known_names()
    unknown = [name for name in applied if name not in names]
    if unknown:
        raise FormatVersionError(
            f"the project was migrated by a newer uac (unknown migration(s): {', '.join(unknown)}).",
            hint="Upgrade uac to open it.",
        )
    if list(applied) != names[: len(applied)]:
        raise MigrationError(
            f"the project's migration history {list(applied)} does not match this uac's {names}.",
            hint="Restore uac.toml from a copy; {do:doctor} for details.",
        )
    return list(MIGRATIONS[len(applied) :])


def latest_format_version() -> int:
    return max((m.format_version for m in MIGRATIONS), default=1)
