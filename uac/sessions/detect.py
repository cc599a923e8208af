"""Read a session file in any supported format, detecting the format if asked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..fsutil import split_lines
from .locomo import looks_like_locomo, read_locomo
from .messages import looks_like_messages, read_messages
from .model import Session
from .reader import parse_json, parse_jsonl, read_text
from .transcript import looks_like_transcript, read_transcript

FORMATS = ("auto", "locomo", "messages", "transcript")


JSONL_SUFFIXES = (".jsonl", ".ndjson")


def _json_value(text: str, path: Path) -> Any:
    """JSON, or JSONL when the whole text is not one JSON value but its lines are
    (a ``.jsonl``/``.ndjson`` file is always JSONL: a list, even of one line)."""
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{path} is empty.", hint="Nothing to ingest.")
    if stripped[0] not in "[{":
        raise InputError(f"{path} is not JSON (it starts with {stripped[:20]!r}).")
    if Path(path).suffix.lower() in JSONL_SUFFIXES and stripped[0] == "{":
        return parse_jsonl(stripped, path)
    first_line = split_lines(stripped)[0].strip()
    multi = "\n" in stripped and first_line.startswith("{") and first_line.endswith("}")
    if multi:
        try:
            parse_json(first_line, path)
        except InputError:
            multi = False
    if multi:
        return parse_jsonl(stripped, path)
    return parse_json(stripped, path)


def detect_format(text: str, path: Path) -> str:
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{path} is empty.", hint="Nothing to ingest.")
    if stripped[0] in "[{":
        value = _json_value(text, path)
        if looks_like_locomo(value):
            return "locomo"
        if looks_like_messages(value):
            return "messages"
        raise InputError(
            f"{path} is JSON but neither a LoCoMo conversation nor chat messages.",
            hint="Expected {'conversation': {...}} (LoCoMo), [{'role', 'content'}, ...] (messages) "
            "or a JSONL chat export with one {'role', 'content'} message per line.",
        )
    if looks_like_transcript(text):
        return "transcript"
    raise InputError(
        f"{path}: unknown session format.",
        hint="Use LoCoMo JSON, chat messages (JSON/JSONL) or a 'Speaker: text' transcript, "
        "and give {opt:format} if detection fails.",
    )


def load_sessions(
    path: str | Path,
    *,
    format: str = "auto",
    sample_id: str | None = None,
    date: str | None = None,
    user_name: str = "user",
    timezone: str | None = None,
) -> list[Session]:
    """Read ``path`` into sessions; raises :class:`InputError` for anything unreadable.

    ``timezone`` (the project's) turns message timestamps into calendar days.
    """
    path = Path(path)
    if format not in FORMATS:
        raise InputError(f"unknown format {format!r}.", hint=f"Use one of: {', '.join(FORMATS)}.")
    text = read_text(path)
    if format == "auto":
        format = detect_format(text, path)
    if format == "transcript":
        return read_transcript(text, path, date=date)
    value = _json_value(text, path)
    if format == "locomo":
        if not looks_like_locomo(value):
            raise InputError(f"{path} is not LoCoMo JSON (no 'conversation' object).")
        return read_locomo(value, path, sample_id=sample_id, date=date)
    if not looks_like_messages(value):
        raise InputError(f"{path} is not a list of chat messages with role and content.")
    return read_messages(value, path, date=date, user_name=user_name, timezone=timezone)


@dataclass(frozen=True)
class ReadOptions:
    """How a session value is read: the options :func:`load_sessions` takes for a file."""

    format: str = "auto"
    #: the LoCoMo conversation to read
    sample_id: str | None = None
    #: the day of a session that says none
    date: str | None = None
    user_name: str = "user"
    #: the project's time zone: message timestamps become calendar days in it
    timezone: str | None = None


def sessions_from_value(
    value: Any, options: ReadOptions = ReadOptions(), *, label: str = "the session"
) -> list[Session]:
    """Sessions from an in-memory JSON value (a dict or list, as a session file would hold).

    Accepts what :func:`load_sessions` accepts from a JSON file: chat messages
    (``{"date", "messages": [...]}`` or a list of ``{"role", "content"}``) or a LoCoMo
    conversation.  ``label`` names the value in error messages.
    """
    import json

    format, date = options.format, options.date
    if format not in ("auto", "messages", "locomo"):
        raise InputError(
            f"{label}: format {format!r} does not apply to a JSON value.",
            hint="Use 'messages' or 'locomo' (or 'auto'); a transcript is text, give it as a file.",
        )
    if not isinstance(value, (dict, list)):
        raise InputError(
            f"{label} is a {type(value).__name__}, not a JSON object or list.",
            hint="Give {'date': 'YYYY-MM-DD', 'messages': [{'role': ..., 'content': ...}]} or a list of messages.",
        )
    try:
        # a round trip through JSON: the value is checked exactly as a file's content would be
        text = json.dumps(value, ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InputError(
            f"{label} is not plain JSON data: {exc}.", hint="Use str, numbers, lists and dicts only."
        ) from None
    path = Path(label)
    parsed = parse_json(text, path)
    if format == "locomo" or (format == "auto" and looks_like_locomo(parsed)):
        if not looks_like_locomo(parsed):
            raise InputError(f"{label} is not a LoCoMo conversation (no 'conversation' object).")
        return read_locomo(parsed, path, sample_id=options.sample_id, date=date)
    if not looks_like_messages(parsed):
        raise InputError(
            f"{label} is neither chat messages nor a LoCoMo conversation.",
            hint="Expected {'date': 'YYYY-MM-DD', 'messages': [{'role': 'user', 'content': '...'}]} "
            "or [{'role': ..., 'content': ...}, ...].",
        )
    return read_messages(parsed, path, date=date, user_name=options.user_name, timezone=options.timezone)
