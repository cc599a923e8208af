"""One renderer of a domain's files: every writer of ``domains/<d>/`` renders them with
:func:`uac.view.store.render_domain`, and what it renders loads back as the records."""

from __future__ import annotations

import ast
from pathlib import Path

from uac.dialect.classes import build_classes
from uac.dialect.loader import load_sources
from uac.dialect.types import TypeSpec
from uac.dialect.validate import validate_schema
from uac.view import store

UAC = Path(__file__).resolve().parents[2] / "uac"
#: the one renderer of a domain's files, and the dialect that renders each of them
RENDERERS = {UAC / "view" / "store.py"}
FILE_RENDERERS = {"render_init", "render_schema", "render_state", "state_source"}


def test_only_the_view_renders_a_domains_files():
    callers = []
    for path in sorted(UAC.rglob("*.py")):
        if path in RENDERERS or path.is_relative_to(UAC / "dialect"):
            continue
        text = path.read_text("utf-8")
        if not any(name in text for name in FILE_RENDERERS):
            continue  # parse only the files that name a renderer
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in FILE_RENDERERS:
                callers.append(f"{path.relative_to(UAC.parent)}:{node.lineno} {node.func.attr}")
    assert not callers, "render a domain's files with uac.view.store.render_domain:\n" + "\n".join(callers)


SCHEMA = (
    '"""Trips."""\n\nfrom dataclasses import dataclass, field\n\n\n@dataclass(frozen=True)\nclass Trip:\n'
    "    place: str\n    sources: list[str] = field(default_factory=list)\n"
)


def test_what_render_domain_renders_loads_back_as_the_records():
    schema = validate_schema(SCHEMA.encode("utf-8"))
    Trip = build_classes(schema, "uac_domains.travel")["Trip"]
    trips = [Trip(place="Lisbon", sources=["s1-f1"]), Trip(place="Oslo", sources=["s2-f3"])]
    entries = [("trips", TypeSpec("list", (TypeSpec("class", name="Trip"),)), trips)]
    rendered = store.render_domain("travel", schema, entries)
    assert sorted(rendered.files) == ["__init__.py", "schema.py", "state.py"]
    assert (
        "The travel domain" in rendered.files["__init__.py"]
        and "State of the travel domain" in rendered.files["state.py"]
    )
    loaded = load_sources("travel", rendered.files["schema.py"], rendered.files["state.py"])
    assert [(t.place, t.sources) for t in loaded.values["trips"]] == [("Lisbon", ["s1-f1"]), ("Oslo", ["s2-f3"])]
    assert rendered.digest == loaded.source_hash == store.files_digest(rendered.files)
