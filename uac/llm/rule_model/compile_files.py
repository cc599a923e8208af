"""The compile responder for the bounded whole-file protocol (``structure_bounded.j2``).

Every fact of the prompt's ``facts`` block goes to the domain :mod:`.route` picks for it and
becomes a ``Trip`` or an ``Event`` record (:mod:`.records`: the rules of the
operations responder; the bounded protocol cannot leave a fact out, so short
facts are events too).  The answer is ``{"domains": [{"name", "schema_py",
"state_py"}, ...]}``, each domain declaring only the classes it uses.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from ..types import ChatRequest
from .records import SHAPES, Planned, Shape, classify
from .reply import Reply
from .request import block, fact_lines, first_user
from .route import domain_of

_SCHEMA_HEAD = '''"""Typed records of the {domain} domain."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
'''


def render_class(shape: Shape) -> str:
    lines = ["", "", "@dataclass(frozen=True)", f"class {shape.name}:", f'    """{shape.doc}"""', ""]
    for name, kind, required in shape.fields:
        lines.append(f"    {name}: {kind}" + ("" if required else " = None"))
    lines += [
        "    notes: list[str] = field(default_factory=list)",
        "    sources: list[str] = field(default_factory=list)",
    ]
    return "\n".join(lines) + "\n"


def _value(value: Any, is_date: bool) -> str:
    if is_date and isinstance(value, str):
        day = _dt.date.fromisoformat(value)
        return f"date({day.year}, {day.month}, {day.day})"
    return repr(value)


def render_files(domain: str, records: list[tuple[str, Planned]]) -> dict[str, str]:
    """``schema_py`` and ``state_py`` of one domain from its (fact id, planned record) pairs."""
    used = [shape for kind, shape in SHAPES.items() if any(p.kind == kind for _, p in records)]
    schema = _SCHEMA_HEAD.format(domain=domain) + "".join(render_class(shape) for shape in used)
    lines = [f'"""State of the {domain} domain."""', ""]
    if any(SHAPES[p.kind].date_fields() & set(p.values) for _, p in records):
        lines += ["from datetime import date", ""]
    lines += [f"from .schema import {', '.join(sorted(shape.name for shape in used))}", ""]
    for shape in used:
        dates = shape.date_fields()
        lines.append(f"{shape.collection}: list[{shape.name}] = [")
        for fact_id, plan in records:
            if plan.kind == shape.kind:
                arguments = [f"{key}={_value(value, key in dates)}" for key, value in plan.values.items()]
                lines.append(f"    {shape.name}({', '.join([*arguments, f'sources=[{fact_id!r}]'])}),")
        lines.append("]")
    return {"schema_py": schema, "state_py": "\n".join(lines) + "\n"}


def respond_bounded(request: ChatRequest) -> Reply:
    grouped: dict[str, list[tuple[str, Planned]]] = {}
    for fact in fact_lines(block(first_user(request), "facts")):
        grouped.setdefault(domain_of(fact.text), []).append((fact.fact_id, classify(fact, may_skip=False)))
    domains = [{"name": name, **render_files(name, records)} for name, records in sorted(grouped.items())]
    return Reply("compile_bounded", {"domains": domains})


__all__ = ["render_class", "render_files", "respond_bounded"]
