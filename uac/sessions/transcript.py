"""Plain transcripts: ``Speaker: text`` lines.

* an optional header line ``# date: 2024-03-01`` (or ``--date``) dates the session;
* other lines starting with ``#`` are comments;
* a line that does not start with ``Speaker:`` continues the previous turn;
* turn ids are ``<session_id>:<n>``, the session id a hash of the content.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError
from ..fsutil import split_lines
from .dates import parse_date
from .model import Session, Turn, content_session_id
from .reader import check_turn_size

_TURN = re.compile(r"^(?P<speaker>[^\s:#][^:]{0,60}?):\s*(?P<text>.*)$")
_DATE_HEADER = re.compile(r"^#\s*date\s*:\s*(?P<date>.+)$", re.IGNORECASE)


def looks_like_transcript(text: str) -> bool:
    lines = [line for line in split_lines(text) if line.strip() and not line.lstrip().startswith("#")]
    return bool(lines) and _TURN.match(lines[0].strip()) is not None


def read_transcript(text: str, path: Path, *, date: str | None = None) -> list[Session]:
    header_date: str | None = None
    rows: list[list[str]] = []
    for number, raw in enumerate(split_lines(text), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            match = _DATE_HEADER.match(line)
            if match:
                header_date = match["date"].strip()
            continue
        match = _TURN.match(line)
        if match:
            rows.append([match["speaker"].strip(), match["text"].strip()])
        elif rows:
            rows[-1][1] = (rows[-1][1] + "\n" + line).strip()
        else:
            raise InputError(
                f"{path}:{number}: expected 'Speaker: text', got {line[:60]!r}.",
                hint="Start every turn with the speaker's name and a colon.",
            )
    date_text = header_date or date or ""
    day = parse_date(date_text) if date_text else None
    if day is None and date and header_date:
        day, date_text = parse_date(date), date
    if day is None:
        raise InputError(
            f"{path}: the transcript has no date" + (f" (unreadable {date_text!r})" if date_text else "") + ".",
            hint="Give the date with {opt:date} (YYYY-MM-DD) or add a '# date: YYYY-MM-DD' line at the top.",
        )
    rows = [r for r in rows if r[1]]
    if not rows:
        raise InputError(f"{path} holds no turns (empty session).", hint="Nothing to ingest.")
    for index, (_, body) in enumerate(rows, 1):
        check_turn_size(body, path, f"turn {index}")
    session_id = content_session_id(day, [(s, t, None) for s, t in rows])
    turns = tuple(Turn(f"{session_id}:{n}", s, t) for n, (s, t) in enumerate(rows, 1))
    return [Session(session_id, day, date_text, turns, source="transcript")]
