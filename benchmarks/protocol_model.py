"""A deterministic model for uac's compile prompts: it reads the real prompts and answers by rule.

Used by ``bench_compile_scale.py`` (and tests) through
:class:`uac.ScriptedProvider`'s ``handler``: no network, no randomness, and it
sees only what a real model would see -- the rendered prompt text.

Rules:

* extraction (``Extract every individual fact ...``): one fact per turn under
  "Turns to extract from", ``"<speaker> said: <text>"`` citing that turn;
* routing (``Route each fact ...``): a keyword table, else ``life``;
* an operations batch (``You maintain the "<domain>" domain``): create the
  record class ``Entry`` when the domain has no classes yet; then one ``add``
  per new fact (text, day, speaker), except facts of fewer than three words,
  which are skipped with a reason; a record under ``REVISIT`` is updated from
  the fact shown for reference that replaced its source, or retired when no
  such fact is shown;
* a repair request: ``add`` operations for the facts it names as not
  addressed yet.
"""

from __future__ import annotations

import json
import re
from typing import Any

ROUTES = [
    ("travel", ("trip", "flight", "flew", "hotel", "travel", "visit", "beach", "vacation")),
    ("food", ("dinner", "lunch", "restaurant", "cook", "recipe", "ate", "breakfast", "cafe")),
    ("work", ("work", "job", "boss", "office", "project", "meeting", "colleague")),
    ("health", ("doctor", "run", "gym", "sleep", "yoga", "health")),
]
FACT_LINE = re.compile(
    r"^\[(?P<id>[^\]]+)\](?: \(said (?P<said>\d{4}-\d{2}-\d{2})(?:; happened (?P<happened>\d{4}-\d{2}-\d{2}))?\))?"
    r"(?: (?P<speaker>[^:\n]{1,40}):)? (?P<text>.*)$",
    re.M,
)
ENTRY_CLASS = {
    "op": "add_class",
    "name": "Entry",
    "doc": "One thing the user said or did, as one record.",
    "fields": [
        {"name": "text", "type": "str"},
        {"name": "day", "type": "date | None", "default": None},
        {"name": "speaker", "type": "str | None", "default": None},
    ],
}


def prompt_text(request: Any) -> str:
    return "\n".join(m.content or "" for m in request.messages)


def _section(text: str, start: str, end: str | None = None) -> str:
    if start not in text:
        return ""
    body = text.split(start, 1)[1]
    return body.split(end, 1)[0] if end and end in body else body


TURN_LINE = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<speaker>[^:\n]{1,80}): (?P<text>.*)$", re.M)


def extract(prompt: str) -> dict[str, Any]:
    facts = []
    for match in TURN_LINE.finditer(_section(prompt, "Turns to extract from:", "Answer with JSON")):
        facts.append({
            "text": f"{match.group('speaker')} said: {match.group('text').strip()}",
            "evidence": [match.group("id")],
            "event_date": None,
            "supersedes": None,
            "speaker": match.group("speaker"),
        })
    return {"facts": facts}


def route(prompt: str) -> dict[str, Any]:
    routes = []
    for match in FACT_LINE.finditer(_section(prompt, "Facts (one per line", "Answer with JSON")):
        text = match.group("text").lower()
        domain = next((name for name, words in ROUTES if any(w in text for w in words)), "life")
        routes.append({"id": match.group("id"), "domain": domain})
    return {"routes": routes}


def _add(match: re.Match) -> dict[str, Any]:
    return {
        "op": "add",
        "collection": "entries",
        "class": "Entry",
        "values": {"text": match.group("text"), "day": match.group("happened") or match.group("said"), "speaker": match.group("speaker")},
        "sources": [match.group("id")],
    }


def operations(prompt: str) -> dict[str, Any]:
    ops: list[dict[str, Any]] = []
    if "class Entry:" not in prompt:
        ops.append(ENTRY_CLASS)
    new = {m.group("id"): m for m in FACT_LINE.finditer(_section(prompt, "## NEW facts", "## What to answer"))}
    shown = {m.group("id"): m for m in FACT_LINE.finditer(_section(prompt, "Facts shown for reference", "## NEW facts"))}
    used: set[str] = set()
    for line in _section(prompt, "REVISIT:", "\n\n").splitlines():
        ident = re.search(r'id="([^"]+)"', line)
        if not ident:
            continue
        replaced = re.search(r"replaced by ([^ ,)]+)", line)
        replacement = (new.get(replaced.group(1)) or shown.get(replaced.group(1))) if replaced else None
        if replacement is not None:
            ops.append({"op": "update", "id": ident.group(1), "set": {"text": replacement.group("text")}, "sources": [replacement.group("id")]})
            used.add(replacement.group("id"))
        else:
            ops.append({"op": "retire", "id": ident.group(1), "reason": "the facts it came from were removed"})
    for match in new.values():
        if match.group("id") in used:
            continue
        if len(match.group("text").split()) < 3:
            ops.append({"op": "skip", "facts": [match.group("id")], "reason": "too short to record"})
        else:
            ops.append(_add(match))
    return {"operations": ops}


def repair(request: Any) -> dict[str, Any]:
    last = request.messages[-1].content or ""
    first_prompt = next((m.content for m in request.messages if m.content and "## NEW facts" in m.content), "")
    wanted = set(re.findall(r"facts ([^ ]+(?:, [^ ]+)*) are not addressed", last))
    ids = {i.strip() for group in wanted for i in group.split(",")}
    lines = {m.group("id"): m for m in FACT_LINE.finditer(_section(first_prompt, "## NEW facts", "## What to answer"))}
    ops = [_add(lines[i]) for i in sorted(ids) if i in lines]
    applied = re.search(r"uac applied (\d+) of your operations", last)
    if ops and "class Entry:" not in first_prompt and applied and int(applied.group(1)) == 0:
        ops.insert(0, ENTRY_CLASS)  # nothing of the first answer took, the class included
    return {"operations": ops}


def prompt_text_starts(request: Any, opening: str) -> bool:
    first = next((m.content or "" for m in request.messages if m.role == "user"), "")
    return first.lstrip().startswith(opening)


def handler(request: Any) -> dict[str, Any]:
    """A :class:`uac.ScriptedProvider` handler answering uac's compile prompts."""
    prompt = prompt_text(request)
    if prompt_text_starts(request, "Extract every individual fact"):
        return {"json": extract(prompt)}
    if "Route each fact" in prompt:
        return {"json": route(prompt)}
    if len(request.messages) > 2 and "These problems remain" in (request.messages[-1].content or ""):
        return {"json": repair(request)}
    if "You maintain the" in prompt and "operations" in prompt:
        return {"json": operations(prompt)}
    raise ValueError("the protocol model does not know this prompt: " + prompt[:160])


def reply_text(request: Any) -> str:
    """The same answer as plain text (for servers that speak the wire format)."""
    return json.dumps(handler(request)["json"], ensure_ascii=False)
