"""OpenAI-style chat messages.

Accepted shapes (JSON or JSONL):

* a list of ``{"role", "content", "name"?}`` messages;
* an object ``{"date": ..., "messages": [...]}`` (optionally ``"session_id"``);
* a list of such objects (several sessions in one file).

The speaker of a message is its ``name`` if given, else the user's name for
``role: user`` and ``assistant`` for the assistant.  System and tool messages
are not part of the conversation and are skipped.  Turn ids are
``<session_id>:<n>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import InputError
from .dates import parse_date
from .archive import check_session_id
from .model import Session, Turn, content_session_id
from .reader import check_turn_size

_SKIPPED_ROLES = {"system", "tool", "function", "developer"}


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "role" in value and "content" in value


def looks_like_messages(value: Any) -> bool:
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


def _one_session(obj: dict[str, Any], path: Path, *, date: str | None, user_name: str, index: int) -> Session | None:
    raw_date = obj.get("date") or obj.get("date_time") or obj.get("timestamp")
    date_text = str(raw_date) if raw_date else (date or "")
    day = parse_date(date_text) if date_text else None
    if day is None and date:
        day = parse_date(date)
        date_text = date
    if day is None:
        raise InputError(
            f"{path}: session {index} has no date"
            + (f" (unreadable {raw_date!r})" if raw_date else "")
            + ".",
            hint="Give the date with {opt:date} (YYYY-MM-DD), or add a \"date\" field next to \"messages\".",
        )
    rows: list[tuple[str, str, str | None]] = []
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
        speaker = str(message.get("name") or (user_name if role == "user" else role))
        rows.append((speaker, text, None))
    if not rows:
        return None
    session_id = str(obj.get("session_id") or content_session_id(day, rows))
    check_session_id(session_id)
    turns = tuple(Turn(f"{session_id}:{n}", speaker, text) for n, (speaker, text, _) in enumerate(rows, 1))
    return Session(session_id, day, date_text, turns, source="messages")


def read_messages(value: Any, path: Path, *, date: str | None = None, user_name: str = "user") -> list[Session]:
    if isinstance(value, dict):
        objects = [value]
    elif isinstance(value, list) and value and all(_is_message(v) for v in value):
        objects = [{"messages": value}]
    elif isinstance(value, list):
        objects = value
    else:
        raise InputError(f"{path} is not a list of chat messages.")
    sessions = []
    for index, obj in enumerate(objects, 1):
        if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
            raise InputError(f"{path}: item {index} has no \"messages\" list.")
        session = _one_session(obj, path, date=date, user_name=user_name, index=index)
        if session is not None:
            sessions.append(session)
    if not sessions:
        raise InputError(f"{path} holds no conversation messages (empty session).", hint="Nothing to ingest.")
    return sessions
