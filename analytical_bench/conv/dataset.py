"""A history of the conversational benchmark: sessions, ledger and questions, checksummed.

On disk a history is a directory of three files::

    sessions.jsonl   one session a line: {"session_id", "date", "messages": [...]}
    ledger.json      the ledger (uac-ledger/1)
    questions.json   [{"id", "kind", "text", "answer_kind", "query", "gold"}, ...]

Generated histories come from :func:`generate` (a seed and a size); a
hand-written set is a directory with ``sessions.jsonl`` and ``ledger.json``
(its questions are made from its ledger).  ``sha256`` covers the canonical
JSON of all three parts.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .ledger import Ledger, LedgerError, load_ledger, parse_ledger
from .questions import Question, check_question, make_questions
from .simulate import simulate
from .teller import tell

DEFAULT_SEED = 32
DEFAULT_SIZES = (10, 50, 200)


def spread_questions(questions: list[Question], limit: int) -> list[Question]:
    """At most ``limit`` questions, taken one kind at a time in turn (count, sum, ..., recall),
    each kind's in their order, so a small run still asks every kind it can."""
    if limit < 1:
        raise LedgerError(f"a run needs at least one question per history, not {limit}.")
    by_kind: dict[str, list[Question]] = {}
    for q in questions:
        by_kind.setdefault(q.kind, []).append(q)
    chosen: list[Question] = []
    while len(chosen) < min(limit, len(questions)):
        for pending in by_kind.values():
            if pending and len(chosen) < limit:
                chosen.append(pending.pop(0))
    order = {id(q): i for i, q in enumerate(questions)}
    return sorted(chosen, key=lambda q: order[id(q)])


@dataclass
class History:
    name: str  # "generated-50", "dev", "dev2"
    source: str  # "generated" | "hand-written"
    sessions: list[dict[str, Any]]
    ledger: Ledger
    questions: list[Question]
    seed: int | None = None
    diversity: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.sessions)

    @property
    def today(self) -> str:
        return str(self.ledger.extra.get("today") or max(s.get("date", "") for s in self.sessions))

    @property
    def sha256(self) -> str:
        payload = json.dumps(
            {
                "sessions": self.sessions,
                "ledger": self.ledger.to_json(),
                "questions": [q.to_json() for q in self.questions],
            },
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def save(self, directory: Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(s, ensure_ascii=False, sort_keys=True) + "\n" for s in self.sessions)
        (directory / "sessions.jsonl").write_text(lines, "utf-8")
        (directory / "ledger.json").write_text(
            json.dumps(self.ledger.to_json(), indent=1, ensure_ascii=False) + "\n", "utf-8"
        )
        (directory / "questions.json").write_text(
            json.dumps([q.to_json() for q in self.questions], indent=1, ensure_ascii=False) + "\n", "utf-8"
        )
        return directory / "sessions.jsonl"


def generate(seed: int = DEFAULT_SEED, size: int = 50) -> History:
    """The generated history of ``size`` sessions for ``seed`` (the same arguments, the same bytes)."""
    told = tell(simulate(seed, size))
    questions = make_questions(told.ledger, seed * 1000 + size)
    return History(f"generated-{size}", "generated", told.sessions, told.ledger, questions, seed, told.diversity())


def _read_sessions(path: Path) -> list[dict[str, Any]]:
    sessions = []
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise LedgerError(f"cannot read {path}: {exc.strerror or exc}.") from exc
    for number, line in enumerate(text.split("\n"), 1):  # by "\n" only: a message may hold U+2028
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise LedgerError(f"{path}:{number} is not JSON ({exc.msg}).") from exc
        if not isinstance(value, dict) or not isinstance(value.get("messages"), list):
            raise LedgerError(f'{path}:{number} is not a session ({{"session_id", "date", "messages"}}).')
        sessions.append(value)
    if not sessions:
        raise LedgerError(f"{path} holds no session.")
    return sessions


def load_history(directory: Path, *, name: str | None = None, seed: int = DEFAULT_SEED) -> History:
    """A history directory: its questions checked against its ledger, or made from it when absent."""
    directory = Path(directory)
    sessions = _read_sessions(directory / "sessions.jsonl")
    ledger = load_ledger(directory / "ledger.json")
    known = {str(s.get("session_id")) for s in sessions}
    for event in ledger.events:
        missing = [s for s in event.sessions if s not in known]
        if missing:
            raise LedgerError(
                f"{directory}: event {event.id!r} cites session(s) {', '.join(missing)}, "
                "which sessions.jsonl does not hold."
            )
    path = directory / "questions.json"
    if path.exists():
        raw = json.loads(path.read_text("utf-8"))
        questions = [check_question(q, ledger) for q in raw]
        source = "generated" if directory.name.startswith("generated") else "hand-written"
    else:
        questions = make_questions(ledger, seed, prefix=f"{directory.name}-q")
        source = "hand-written"
    return History(name or directory.name, source, sessions, ledger, questions)


def hand_written_sets(root: Path) -> list[History]:
    """The hand-written histories under ``root``: every directory there (``dev``, ``dev2``, a held-out
    set, in name order) that holds ``sessions.jsonl`` and ``ledger.json``, or directories of those."""
    out = []
    for base in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        split = base.name
        if (base / "ledger.json").exists():
            out.append(load_history(base, name=split))
        elif base.is_dir():
            for chat in sorted(p for p in base.iterdir() if (p / "ledger.json").exists()):
                out.append(load_history(chat, name=f"{split}/{chat.name}"))
    return out


__all__ = ["DEFAULT_SEED", "DEFAULT_SIZES", "History", "generate", "hand_written_sets", "load_history", "parse_ledger"]
