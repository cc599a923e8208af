"""The run directory's JSONL files: appended line by line, read back tolerantly.

A line torn by an interrupted run (the last one, without its newline or not
valid JSON) is ignored on reading, so ``--resume`` redoes that question.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Iterable

from uac import InputError


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    path = Path(path)
    if not path.exists():
        return []
    rows = []
    lines = path.read_text("utf-8").split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):
                continue  # a torn last line
            raise InputError(
                f"{path}:{number} is not valid JSON.", hint="Remove the line or rerun without --resume."
            ) from None
        if isinstance(value, dict):
            rows.append(value)
    return rows


class JsonlWriter:
    """Appends JSON lines to one file from many threads."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._drop_torn_tail()

    def _drop_torn_tail(self) -> None:
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            with open(self.path, "r+b") as handle:
                handle.truncate(keep)

    def write(self, row: dict[str, Any]) -> None:
        line = json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()

    def write_all(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self.write(row)


def done_ids(path: Path, key: str = "qid") -> set[str]:
    return {str(row[key]) for row in read_jsonl(path) if key in row}
