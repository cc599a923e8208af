"""An agent's conversation into the memory when it ends, once, however often it is fed.

Agent frameworks keep a conversation going across runs (an Agents SDK session, a
LangGraph thread): fed after every run, the same messages would come again and again.
:func:`remember_conversation` keeps a conversation with an id as sessions named after
it -- ``conv-<id>``, then ``conv-<id>.2``, ``conv-<id>.3`` for what came later -- and
stores only the messages that follow the ones already kept, so feeding the same
conversation twice stores nothing the second time.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from typing import Any, Iterable

from ..errors import InputError, SessionNotFound
from ..memory import UserMemory
from ..names import SESSION_ID

ROLES = ("user", "assistant")
#: most parts of one conversation looked for (a conversation fed after every run of a long chat)
MAX_PARTS = 10_000


def base_session_id(conversation_id: str) -> str:
    """``conv-<id>`` when the id can name a session file, else ``conv-`` and a digest of it."""
    if not isinstance(conversation_id, str) or not conversation_id:
        raise InputError("a conversation id is a non-empty string.", hint="Give the session's or thread's id.")
    candidate = "conv-" + conversation_id
    if SESSION_ID.ok(candidate) and len(candidate) <= 100:
        return candidate
    return "conv-" + hashlib.sha256(conversation_id.encode("utf-8")).hexdigest()[:16]


def part_ids(base: str) -> Iterable[str]:
    yield base
    for number in range(2, MAX_PARTS):
        yield f"{base}.{number}"


def _texts(messages: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    kept = []
    for message in messages:
        role, content = message.get("role"), message.get("content")
        if role in ROLES and isinstance(content, str) and content.strip():
            kept.append({"role": role, "content": content.strip()})
    return kept


def remember_conversation(
    memory: UserMemory,
    messages: Iterable[dict[str, Any]],
    *,
    conversation_id: str | None = None,
    date: "_dt.date | str | None" = None,
) -> dict[str, Any]:
    """Add the user and assistant messages of a conversation (``[{role, content}]``) to
    ``memory``; with ``conversation_id``, only those not kept from it before.

    Returns ``{"stored", "session_ids", "turns_added", "facts_added"}``."""
    from ..dates import parse_day

    kept = _texts(messages)
    day = parse_day(date, what="date") or _dt.date.today()
    if not kept:
        return {"stored": False, "session_ids": [], "turns_added": 0, "facts_added": 0}
    if conversation_id is None:
        report = memory.add_session({"date": day.isoformat(), "messages": kept})
        return {
            "stored": bool(report.sessions_added),
            "session_ids": list(report.sessions_added or report.sessions_skipped),
            "turns_added": len(kept) if report.sessions_added else 0,
            "facts_added": report.facts_appended,
        }
    seen: list[str] = []
    free = None
    for session_id in part_ids(base_session_id(conversation_id)):
        try:
            seen.extend(turn.text for turn in memory.session(session_id).turns)
        except SessionNotFound:
            free = session_id
            break
    if free is None:
        raise InputError(
            f"conversation {conversation_id!r} has been fed {MAX_PARTS} times.",
            hint="Feed a long conversation when it ends, not after every message.",
        )
    # what follows the longest run of messages already kept (a conversation may have been compacted)
    common = 0
    while common < min(len(seen), len(kept)) and seen[common] == kept[common]["content"]:
        common += 1
    new = kept[common:]
    if common < len(seen):  # the conversation was rewritten (compacted): leave out what is kept already
        already = set(seen)
        new = [message for message in new if message["content"] not in already]
    if not new:
        return {"stored": False, "session_ids": [], "turns_added": 0, "facts_added": 0}
    report = memory.add_session({"date": day.isoformat(), "session_id": free, "messages": new})
    return {
        "stored": True,
        "session_ids": list(report.sessions_added),
        "turns_added": len(new),
        "facts_added": report.facts_appended,
    }
