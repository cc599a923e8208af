"""Shared builders for the compile tests: facts and a scripted model that
writes valid domain code citing the fact ids it is shown."""

from __future__ import annotations

import datetime as dt
import json
import re

from uac.facts.model import Fact

TOPICS = [
    ("travel", "I took a trip to {place} and stayed in a hotel near the beach"),
    ("food", "I cooked a new {place} recipe for dinner with my friends at the restaurant"),
    ("hobbies", "I played guitar and painted a picture of {place} for my art hobby"),
    ("work", "My boss asked me to lead the {place} project at the office meeting"),
]
PLACES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul"]


def make_facts(n: int, *, sessions: int = 10, pad: int = 0) -> list[Fact]:
    """``n`` facts over ``sessions`` sessions; ``pad`` adds filler words to each text."""
    facts = []
    for i in range(n):
        session = i % sessions
        _topic, template = TOPICS[i % len(TOPICS)]
        text = template.format(place=PLACES[i % len(PLACES)]) + f" (note {i})"
        if pad:
            text += " " + " ".join(["detail"] * pad)
        facts.append(
            Fact(
                id=f"f{i:04d}",
                text=text,
                session_id=f"S{session + 1}",
                session_date=dt.date(2023, 1, 1) + dt.timedelta(days=7 * session),
                speaker="Alice",
            )
        )
    return facts


FACT_ID = re.compile(r"^\[(f\d{4})\]", re.MULTILINE)

SCHEMA = '''"""Generated domain."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date


@dataclass(frozen=True)
class Item:
    text: str
    day: date | None = None
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
'''


def prompt_of(request) -> str:
    return "\n".join(m.content or "" for m in request.messages)


def domain_reply(prompt: str) -> dict:
    """Valid schema/state keeping the records already in the prompt and adding one per new fact."""
    current = re.search(r"Current domains/\w+/state.py:\n```python\n(.*?)```", prompt, re.S)
    old = re.findall(r'text="([^"]*)",?\s*(?:day=date\((\d+), (\d+), (\d+)\),?\s*)?sources=\["(f\d{4})"\]', current.group(1) if current else "")
    new_section = prompt.split("NEW facts", 1)[1] if "NEW facts" in prompt else prompt
    new = [(m.group(1), m.group(2)) for m in re.finditer(r"^\[(f\d{4})\] \((\d{4}-\d{2}-\d{2})\)[^\n]*", new_section, re.M)]
    items = []
    for text, y, m, d, fid in old:
        day = f", day=date({y}, {m}, {d})" if y else ""
        items.append(f'Item(text="{text}"{day}, sources=["{fid}"])')
    for fid, day in new:
        y, m, d = (int(x) for x in day.split("-"))
        items.append(f'Item(text="fact {fid}", day=date({y}, {m}, {d}), sources=["{fid}"])')
    state = '"""State."""\n\nfrom datetime import date\n\nfrom .schema import Item\n\nitems: list[Item] = [\n' + "".join(f"    {i},\n" for i in items) + "]\n"
    return {"schema_py": SCHEMA, "state_py": state}


def route_reply(prompt: str, domain_of=None) -> dict:
    ids = FACT_ID.findall(prompt.split("Facts (one per line", 1)[1])
    return {"routes": [{"id": i, "domain": domain_of(i) if domain_of else "life"} for i in ids]}


def handler_for(domain_of=None, *, broken_domains=()):
    """A ScriptedProvider handler: routes, then writes valid code for each domain call."""

    def handler(request):
        prompt = prompt_of(request)
        if "Route each fact" in prompt:
            return {"json": route_reply(prompt, domain_of)}
        match = re.search(r'You maintain the "(\w+)" domain', prompt)
        if match and match.group(1) in broken_domains:
            return {"json": {"schema_py": "import os\n", "state_py": "x: int = 1\n"}}
        if match:
            return {"json": domain_reply(prompt)}
        raise AssertionError("unexpected prompt: " + prompt[:200])

    return handler


def dumps(data) -> str:
    return json.dumps(data)
