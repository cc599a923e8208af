"""The compile ledger of a domain: what the operations protocol remembers between runs.

Per domain, under ``.uac/compile/<domain>/``:

* ``considered`` -- fact id -> the model's one-line reason for leaving it out
  (these facts are not sent again);
* ``pending`` -- facts routed here whose batch failed or that the model did not
  address (sent again next time);
* ``retired`` -- records the model retired, with their last value, reason and
  sources;
* ``revisit`` -- record ids to show the model again (they cite a fact that was
  superseded or forgotten);
* ``superseded_seen`` -- superseded facts whose records were already revisited;
* ``next_ids`` -- the next record number per id prefix (ids are never reused).

The ledger belongs to one exact state of the domain's files: it is stored as
``ledger-<hash>.json``, keyed by the source hash of ``schema.py`` + ``state.py``,
and written *before* the domain directory is swapped.  After a crash either
the old files and the old ledger or the new files and the new ledger are
found together; a ledger of no file state (the view was rewritten by another
command) lends only its ``considered``, ``retired`` and ``next_ids``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..dialect.loader import source_hash
from ..fsutil import atomic_write_text, read_json_object

LEDGER_VERSION = 1
#: the state hash of a domain that has no files (a ledger of left-out or pending facts only)
EMPTY_STATE_HASH = source_hash(b"", b"")
_PREFIX = "ledger-"


@dataclass
class Ledger:
    domain: str
    considered: dict[str, str] = field(default_factory=dict)
    pending: list[str] = field(default_factory=list)
    retired: list[dict[str, Any]] = field(default_factory=list)
    revisit: list[str] = field(default_factory=list)
    superseded_seen: list[str] = field(default_factory=list)
    next_ids: dict[str, int] = field(default_factory=dict)
    #: whether this ledger matched the files it was loaded for
    matched: bool = True

    def to_json(self) -> dict[str, Any]:
        return {
            "version": LEDGER_VERSION,
            "domain": self.domain,
            "considered": dict(sorted(self.considered.items())),
            "pending": sorted(set(self.pending)),
            "retired": self.retired,
            "revisit": sorted(set(self.revisit)),
            "superseded_seen": sorted(set(self.superseded_seen)),
            "next_ids": dict(sorted(self.next_ids.items())),
        }

    @classmethod
    def from_json(cls, domain: str, data: dict[str, Any]) -> "Ledger":
        return cls(
            domain,
            considered={str(k): str(v) for k, v in (data.get("considered") or {}).items()},
            pending=[str(i) for i in data.get("pending") or ()],
            retired=list(data.get("retired") or ()),
            revisit=[str(i) for i in data.get("revisit") or ()],
            superseded_seen=[str(i) for i in data.get("superseded_seen") or ()],
            next_ids={str(k): int(v) for k, v in (data.get("next_ids") or {}).items()},
        )


def ledger_dir(internal: Path, domain: str) -> Path:
    return internal / "compile" / domain


def ledger_domains(internal: Path) -> list[str]:
    """Domains that have a ledger (some may have no files: every fact left out)."""
    root = internal / "compile"
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def _path(internal: Path, domain: str, state_hash: str) -> Path:
    return ledger_dir(internal, domain) / f"{_PREFIX}{state_hash[:32]}.json"


def _read(path: Path, domain: str) -> Ledger | None:
    data = read_json_object(path)
    if data is None or data.get("version") != LEDGER_VERSION:
        return None
    try:
        return Ledger.from_json(domain, data)
    except (TypeError, ValueError, AttributeError):
        return None


def load_ledger(internal: Path, domain: str, state_hash: str | None) -> Ledger:
    """The ledger of the domain's current files (see the module docstring)."""
    if state_hash is not None:
        exact = _read(_path(internal, domain, state_hash), domain)
        if exact is not None:
            return exact
    directory = ledger_dir(internal, domain)
    candidates = (
        sorted(directory.glob(f"{_PREFIX}*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        if directory.is_dir()
        else []
    )
    for candidate in candidates:
        older = _read(candidate, domain)
        if older is not None:
            return Ledger(
                domain, considered=older.considered, retired=older.retired, next_ids=older.next_ids, matched=False
            )
    return Ledger(domain, matched=state_hash is None)


def save_ledger(internal: Path, ledger: Ledger, state_hash: str) -> Path:
    """Write the ledger for the files with ``state_hash`` (before they are swapped in)."""
    path = _path(internal, ledger.domain, state_hash)
    atomic_write_text(path, json.dumps(ledger.to_json(), ensure_ascii=False, indent=1) + "\n")
    return path


def prune_ledgers(internal: Path, domain: str, keep_hash: str) -> None:
    """Remove the ledgers of file states that are gone (after a successful swap)."""
    keep = _path(internal, domain, keep_hash).name
    directory = ledger_dir(internal, domain)
    if not directory.is_dir():
        return
    for path in directory.glob(f"{_PREFIX}*.json"):
        if path.name != keep:
            path.unlink(missing_ok=True)


__all__ = ["EMPTY_STATE_HASH", "Ledger", "ledger_dir", "ledger_domains", "load_ledger", "prune_ledgers", "save_ledger"]
