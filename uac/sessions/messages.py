"""OpenAI-style chat messages.

Accepted shapes (JSON or JSONL):

* a list of ``{"role", "content", "name"?, "timestamp"?}`` messages -- also
  one message per line of a JSONL chat export, even a single line;
* an object ``{"date": ..., "messages": [...]}`` (optionally ``"session_id"``);
* a list of such objects (several sessions in one file).

The speaker of a message is its ``name`` if given, else the user's name for
``role: user`` and ``assistant`` for the assistant.  System and tool messages
are not part of the conversation and are skipped.  Turn ids are
``<session_id>:<n>``.

Dates: a session object's own ``date`` wins.  Otherwise the messages'
timestamps (``timestamp``, ``created_at`` or ``time``: ISO 8601 text, or Unix
seconds or milliseconds) date the session, read in the project's time zone;
a message without one takes the date of the message before it.  Messages
without a session object around them (or in one without a ``session_id``)
are split into one session per calendar day, in order.  ``--date`` is the
fallback when nothing in the file has a date.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import InputError
from .archive import check_session_id
from .dates import parse_date
from .model import Session, Turn, content_session_id
from .reader import check_turn_size

_SKIPPED_ROLES = {"system", "tool", "function", "developer"}
#: per-message time fields, in the order they are looked for
TIME_KEYS = ("timestamp", "created_at", "time")


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "role" in value and "content" in value


def looks_like_messages(value: Any) -> bool:
    if _is_message(value):  # a one-line JSONL export
        return True
    if isinstance(value, dict):
        return isinstance(value.get("messages"), list)
    if isinstance(value, list) and value:
        return all(_is_message(v) for v in value) or all(
            isinstance(v, dict) and isinstance(v.get("messages"), list) for v in value
        )
    return False


def _content_text(content: Any, path: Path, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    raise InputError(f"{path}: {where} has content of type {type(content).__name__}; expected text.")


def _zone(timezone: str | None) -> _dt.tzinfo:
    if not timezone:
        return _dt.timezone.utc
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return _dt.timezone.utc


def message_day(raw: Any, zone: _dt.tzinfo, path: Path, where: str) -> _dt.date:
    """The calendar day of a message timestamp, in ``zone`` (naive times are taken as local)."""
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        seconds = raw / 1000 if abs(raw) > 1e11 else raw  # milliseconds since the epoch
        try:
            return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).astimezone(zone).date()
        except (OverflowError, OSError, ValueError):
            raise InputError(f"{path}: {where} has timestamp {raw!r}, out of range.") from None
    if isinstance(raw, str) and raw.strip():
        text = raw.strip()
        try:
            moment = _dt.datetime.fromisoformat(text)
        except ValueError:
            day = parse_date(text)
            if day is None:
                raise InputError(
                    f"{path}: {where} has timestamp {raw!r}, which is not a date.",
                    hint="Use ISO 8601 (2024-03-01T10:30:00Z) or Unix seconds.",
                ) from None
            return day
        return (moment.astimezone(zone) if moment.tzinfo is not None else moment).date()
    raise InputError(
        f"{path}: {where} has timestamp {raw!r}, which is not a date.", hint="Use ISO 8601 or Unix seconds."
    )


def _message_time(message: dict[str, Any]) -> Any:
    for key in TIME_KEYS:
        if message.get(key) not in (None, ""):
            return message[key]
    return None


def _rows(
    obj: dict[str, Any], path: Path, *, user_name: str, index: int, zone: _dt.tzinfo
) -> list[tuple[str, str, _dt.date | None, str]]:
    """(speaker, text, day of its timestamp or None, timestamp as written) per kept message."""
    rows = []
    for number, message in enumerate(obj.get("messages") or (), 1):
        if not _is_message(message):
            raise InputError(f"{path}: session {index} message {number} is not an object with role and content.")
        role = str(message["role"])
        if role in _SKIPPED_ROLES:
            continue
        where = f"session {index} message {number}"
        text = _content_text(message["content"], path, where).strip()
        check_turn_size(text, path, where)
        if not text:
            continue
        raw_time = _message_time(message)
        day = message_day(raw_time, zone, path, where) if raw_time is not None else None
        speaker = str(message.get("name") or (user_name if role == "user" else role))
        rows.append((speaker, text, day, "" if raw_time is None else str(raw_time)))
    return rows


def _make_session(
    session_id: str | None, day: _dt.date, date_text: str, rows: list[tuple[str, str, Any, str]]
) -> Session:
    plain: list[tuple[str, str, str | None]] = [(speaker, text, None) for speaker, text, _, _ in rows]
    session_id = str(session_id or content_session_id(day, plain))
    check_session_id(session_id)
    turns = tuple(Turn(f"{session_id}:{n}", speaker, text) for n, (speaker, text, _) in enumerate(plain, 1))
    return Session(session_id, day, date_text, turns, source="messages")


def _one_session(
    obj: dict[str, Any], path: Path, *, date: str | None, user_name: str, index: int, zone: _dt.tzinfo
) -> list[Session]:
    rows = _rows(obj, path, user_name=user_name, index=index, zone=zone)
    if not rows:
        return []
    raw_date = obj.get("date") or obj.get("date_time") or obj.get("timestamp")
    if raw_date:
        day = parse_date(str(raw_date))
        if day is None:
            raise InputError(
                f"{path}: session {index} has no date (unreadable {raw_date!r}).",
                hint='Give the date with {opt:date} (YYYY-MM-DD), or add a "date" field next to "messages".',
            )
        return [_make_session(obj.get("session_id"), day, str(raw_date), rows)]
    if not any(day is not None for _, _, day, _ in rows):
        day = parse_date(date) if date else None
        if day is None:
            raise InputError(
                f"{path}: session {index} has no date.",
                hint='Give the date with {opt:date} (YYYY-MM-DD), add a "date" field next to "messages", '
                'or give the messages a "timestamp".',
            )
        return [_make_session(obj.get("session_id"), day, str(date), rows)]
    # date every message: its own timestamp, else the one before it (the first dated one for a leading run)
    first = next(row for row in rows if row[2] is not None)
    dated: list[tuple[str, str, Any, str]] = []
    current = (first[2], first[3])
    for speaker, text, day, written in rows:
        if day is not None:
            current = (day, written)
        dated.append((speaker, text, current[0], current[1]))
    if obj.get("session_id"):
        return [_make_session(obj["session_id"], dated[0][2], dated[0][3], dated)]
    sessions = []
    run: list[tuple[str, str, Any, str]] = []
    for row in dated:
        if run and row[2] != run[-1][2]:
            sessions.append(_make_session(None, run[0][2], run[0][3], run))
            run = []
        run.append(row)
    sessions.append(_make_session(None, run[0][2], run[0][3], run))
    return sessions


def read_messages(
    value: Any, path: Path, *, date: str | None = None, user_name: str = "user", timezone: str | None = None
) -> list[Session]:
    if _is_message(value):
        objects = [{"messages": [value]}]
    elif isinstance(value, dict):
        objects = [value]
    elif isinstance(value, list) and value and all(_is_message(v) for v in value):
        objects = [{"messages": value}]
    elif isinstance(value, list):
        objects = value
    else:
        raise InputError(f"{path} is not a list of chat messages.")
    zone = _zone(timezone)
    sessions = []
    for index, obj in enumerate(objects, 1):
        if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
            raise InputError(f'{path}: item {index} has no "messages" list.')
        sessions.extend(_one_session(obj, path, date=date, user_name=user_name, index=index, zone=zone))
    if not sessions:
        raise InputError(f"{path} holds no conversation messages (empty session).", hint="Nothing to ingest.")
    return sessions
