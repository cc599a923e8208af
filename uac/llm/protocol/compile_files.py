"""The compile responder for the whole-file protocol (``domain_files``, ``domains``).

A domain becomes two collections: ``trips`` (a fact saying someone flew,
travelled, drove or went to a capitalised place) and ``events`` (every other
fact, with its day).  The current ``state.py`` shown in the prompt is read
back with :mod:`ast`, so records of earlier calls are kept, and a fact already
cited is not added twice.  This module answers the protocol of
``uac/prompts/structure_domain.j2`` and ``structure_bounded.j2``; a compile
protocol of another shape gets its own responder.
"""

from __future__ import annotations

import ast
import datetime as _dt
import re
from typing import Any

from ..types import ChatRequest
from .prompts import FactLine, fact_lines, first_user, section
from .reply import Reply
from .route import FACTS_HEADING, domain_of

NEW_FACTS_HEADING = "NEW facts (one per line, `[id] (date) speaker: text`):"
_TRIP = re.compile(
    r"\b(?:flew|flown|travel(?:l)?ed|drove|went|took a trip|took a flight|(?:a |the )?trip) to ([A-Z][\w'-]+(?: [A-Z][\w'-]+)*)"
)

_SCHEMA_HEAD = '''"""Typed records of the {domain} domain."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
'''

_CLASSES = {
    "Trip": '''

@dataclass(frozen=True)
class Trip:
    """A trip to one destination."""

    destination: str
    start: date | None = None
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
''',
    "Event": '''

@dataclass(frozen=True)
class Event:
    """Something that happened or was said, with its day when known."""

    text: str
    day: date | None = None
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
''',
}

COLLECTIONS = (("trips", "Trip"), ("events", "Event"))


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "date":
        return _dt.date(*(int(_literal(a)) for a in node.args))
    raise ValueError(ast.dump(node)[:80])


def read_records(state_py: str) -> dict[str, list[dict[str, Any]]]:
    """``collection -> [record kwargs]`` of a state.py this responder wrote (anything else: empty)."""
    records: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in COLLECTIONS}
    try:
        tree = ast.parse(state_py)
    except SyntaxError:
        return records
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in records:
            if isinstance(node.value, ast.List):
                for call in node.value.elts:
                    if isinstance(call, ast.Call):
                        try:
                            records[node.target.id].append({k.arg: _literal(k.value) for k in call.keywords if k.arg})
                        except ValueError:
                            continue
    return records


def add_fact(records: dict[str, list[dict[str, Any]]], fact: FactLine) -> None:
    cited = {s for items in records.values() for item in items for s in item.get("sources", ())}
    if fact.fact_id in cited:
        return
    trip = _TRIP.search(fact.text)
    if trip:
        records["trips"].append({"destination": trip.group(1), "start": fact.day, "sources": [fact.fact_id]})
    else:
        records["events"].append({"text": fact.text, "day": fact.day, "sources": [fact.fact_id]})


def render_schema(domain: str, records: dict[str, list[dict[str, Any]]]) -> str:
    """The schema of the collections in use (only those: the schema is what answering reads)."""
    used = [cls for name, cls in COLLECTIONS if records.get(name)] or ["Event"]
    return _SCHEMA_HEAD.format(domain=domain) + "".join(_CLASSES[cls] for cls in used)


def _value(value: Any) -> str:
    if isinstance(value, _dt.date):
        return f"date({value.year}, {value.month}, {value.day})"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return repr(value)


def render_state(domain: str, records: dict[str, list[dict[str, Any]]]) -> str:
    used = [(name, cls) for name, cls in COLLECTIONS if records.get(name)]
    lines = [f'"""State of the {domain} domain."""', ""]
    if any(isinstance(v, _dt.date) for name, _ in used for item in records[name] for v in item.values()):
        lines += ["from datetime import date", ""]
    if used:
        lines += [f"from .schema import {', '.join(sorted(cls for _, cls in used))}", ""]
    for name, cls in used:
        items = []
        for item in records[name]:
            arguments = ", ".join(f"{key}={_value(value)}" for key, value in item.items() if value is not None)
            items.append(f"    {cls}({arguments}),")
        lines += [f"{name}: list[{cls}] = [", *items, "]"]
    return "\n".join(lines) + "\n"


def _code_block(prompt: str, heading: str) -> str:
    block = section(prompt, heading, stop=("\n```\n",))
    return block.split("```python", 1)[-1] if "```python" in block else ""


def respond_compile(request: ChatRequest) -> Reply:
    prompt = first_user(request)
    match = re.match(r'\s*You maintain the "([^"]+)" domain', prompt)
    domain = match.group(1) if match else "general"
    records = read_records(_code_block(prompt, f"Current domains/{domain}/state.py:"))
    for fact in fact_lines(prompt, NEW_FACTS_HEADING):
        add_fact(records, fact)
    return Reply("compile", {"schema_py": render_schema(domain, records), "state_py": render_state(domain, records)})


def respond_bounded(request: ChatRequest) -> Reply:
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for fact in fact_lines(first_user(request), FACTS_HEADING):
        add_fact(grouped.setdefault(domain_of(fact.text), {name: [] for name, _ in COLLECTIONS}), fact)
    domains = [
        {"name": name, "schema_py": render_schema(name, records), "state_py": render_state(name, records)}
        for name, records in sorted(grouped.items())
    ]
    return Reply("compile_bounded", {"domains": domains})


__all__ = ["add_fact", "render_schema", "read_records", "render_state", "respond_bounded", "respond_compile"]
