"""Where each compile's lines are in a segment of the change log (``changes-NNNNNN.idx``).

A segment (:mod:`uac.view.changes`) holds up to 20,000 changes; a question about
the last day must not parse them all.  Beside each segment, its index has one
JSON line per run of lines with the same compile and time::

    [12, "2026-05-01T10:00:00+00:00", 40960, 44210]

(compile number, time, first byte, byte after the last).  The runs cover the
segment from byte 0 without a gap, in the order the lines were appended.  A
reader of a range of compiles or times reads only the bytes of the runs in it
(:func:`span`), and knows the lines of those runs are in the range without
parsing them.  Lines after the last run (a crash between the append and its
index line) are read and checked one by one.

The index is derived: a writer appends to it after the segment, and when it does
not end where the segment did before the append (missing, or behind) writes it
again from the segment's lines (:func:`reindex`), as every rewrite of a segment
(forget, ``doctor --repair``) does.  A reader that finds it broken (a gap, a
compile going back, a run past the end of the file) reads the whole segment.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_bytes, open_private


@dataclass(frozen=True)
class ChangeRange:
    """The changes with ``since_seq < seq <= until_seq`` and ``since_at <= at < until_at``,
    each bound optional (``ChangeRange()``: the whole log)."""

    since_seq: int | None = None
    since_at: str | None = None
    until_seq: int | None = None
    until_at: str | None = None

    def holds(self, seq: int, at: str) -> bool:
        """Is the change numbered ``seq`` and made at ``at`` in the range?"""
        return not (
            (self.since_seq is not None and seq <= self.since_seq)
            or (self.until_seq is not None and seq > self.until_seq)
            or (self.since_at is not None and at < self.since_at)
            or (self.until_at is not None and at >= self.until_at)
        )


def index_path(segment: Path) -> Path:
    return segment.with_name(segment.name.rsplit(".", 1)[0] + ".idx")


def runs_of(lines: list[tuple[int, str, int]], base: int = 0) -> list[list[Any]]:
    """The runs of ``(seq, at, length)`` lines that start at byte ``base``."""
    runs: list[list[Any]] = []
    offset = base
    for seq, at, length in lines:
        if runs and runs[-1][0] == seq and runs[-1][1] == at:
            runs[-1][3] = offset + length
        else:
            runs.append([seq, at, offset, offset + length])
        offset += length
    return runs


def _encode(runs: list[list[Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in runs).encode("utf-8")


def _last_end(path: Path) -> int | None:
    """Where the index's last run ends (0: an empty index; ``None``: none or unreadable)."""
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            if size == 0:
                return 0
            handle.seek(max(0, size - 512))
            tail = handle.read()
    except OSError:
        return None
    if not tail.endswith(b"\n"):
        return None
    try:
        run = json.loads(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1])
        return int(run[3])
    except (ValueError, TypeError, IndexError, KeyError):
        return None


def appended(segment: Path, before: int, lines: list[tuple[int, str, int]]) -> None:
    """``lines`` (seq, at, length) were appended to ``segment`` at byte ``before``."""
    path = index_path(segment)
    if (before == 0 and not path.exists()) or _last_end(path) == before:
        with os.fdopen(
            open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | (os.O_TRUNC if before == 0 else 0)), "wb"
        ) as handle:
            handle.write(_encode(runs_of(lines, before)))
    else:
        reindex(segment)


def reindex(segment: Path, data: bytes | None = None) -> None:
    """Write the index of ``segment`` (whose bytes are ``data``) from its lines; a line
    that is not a change joins the run before it."""
    if data is None:
        try:
            data = segment.read_bytes()
        except FileNotFoundError:
            index_path(segment).unlink(missing_ok=True)
            return
    lines: list[tuple[int, str, int]] = []
    for raw in data.splitlines(keepends=True):
        if not raw.endswith(b"\n"):
            break  # a torn last line: the next append cuts it
        try:
            change = json.loads(raw)
            seq, at = change["seq"], change["at"]
            if not isinstance(seq, int) or not isinstance(at, str):
                raise ValueError
        except (ValueError, KeyError, TypeError):
            seq, at = (lines[-1][0], lines[-1][1]) if lines else (0, "")
        lines.append((seq, at, len(raw)))
    atomic_write_bytes(index_path(segment), _encode(runs_of(lines)))


@dataclass
class Span:
    """The bytes of a segment to read for a range: ``[start, stop)`` (``stop=None``: to
    the end); lines before ``sure_end`` are in the range without a check."""

    start: int = 0
    stop: int | None = None
    sure_end: int = 0
    #: the time of the run that starts at ``start`` (checked against the line there;
    #: ``None``: only what follows the index is read, after a line's end)
    first_at: str | None = None

    def fits(self, handle: Any) -> bool:
        """Do ``start`` and ``stop`` fall on the starts of lines of ``handle``'s segment, and
        is the line at ``start`` the run's?  (An index left behind by a hand edit is not.)"""
        if self.start > 0:
            handle.seek(self.start - 1)
            head = handle.read(1 + 10 + len(self.first_at or ""))
            if head[:1] != b"\n":
                return False
            if self.first_at and not head[1:].startswith(
                ('{"at": ' + json.dumps(self.first_at, ensure_ascii=False)).encode("utf-8")
            ):
                return False
        if self.stop is not None and self.stop > 0:
            handle.seek(self.stop - 1)
            if handle.read(1) != b"\n":
                return False
        return True


def read_runs(segment: Path, size: int) -> list[tuple[int, str, int, int]] | None:
    """The index of ``segment`` (``size`` bytes long), or ``None`` when it is missing or broken."""
    try:
        data = index_path(segment).read_bytes()
    except OSError:
        return None
    runs: list[tuple[int, str, int, int]] = []
    end = 0
    try:
        for raw in data.splitlines():
            seq, at, start, stop = json.loads(raw)
            if not isinstance(seq, int) or not isinstance(at, str) or start != end or stop <= start:
                return None
            if runs and seq < runs[-1][0]:
                return None
            runs.append((seq, at, start, stop))
            end = stop
    except (ValueError, TypeError):
        return None
    return runs if end <= size else None


def span(segment: Path, size: int, within: ChangeRange) -> Span:
    """What to read of ``segment`` for the changes ``within`` the range; the whole
    segment, unchecked, without a usable index."""
    since_seq, since_at, until_seq, until_at = within.since_seq, within.since_at, within.until_seq, within.until_at
    runs = read_runs(segment, size)
    if runs is None:
        return Span()
    if (since_at is not None or until_at is not None) and any(a[1] > b[1] for a, b in zip(runs, runs[1:])):
        return Span()  # times going back (a clock set back): no shortcut by time
    end = runs[-1][3] if runs else 0

    def inside_from_below(run: tuple[int, str, int, int]) -> bool:
        return (since_seq is None or run[0] > since_seq) and (since_at is None or run[1] >= since_at)

    def past_the_top(run: tuple[int, str, int, int]) -> bool:
        return (until_seq is not None and run[0] > until_seq) or (until_at is not None and run[1] >= until_at)

    first = next((i for i, r in enumerate(runs) if inside_from_below(r)), len(runs))
    start, first_at = (runs[first][2], runs[first][1]) if first < len(runs) else (end, None)
    last = next((i for i in range(first, len(runs)) if past_the_top(runs[i])), None)
    if last is not None:
        return Span(start, runs[last][2], runs[last][2], first_at)
    return Span(start, None, end, first_at)


__all__ = ["ChangeRange", "Span", "appended", "index_path", "read_runs", "reindex", "runs_of", "span"]
