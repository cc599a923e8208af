"""Load a domain's generated package from source text -- without importing it.

``schema.py`` is validated into a :class:`SchemaSpec` (:mod:`.validate`); its
classes are built with :func:`dataclasses.make_dataclass` (:mod:`.classes`);
``state.py`` goes through the text checks, then the fast JSON loader
(:mod:`.fastload`) or, when that declines, the literal interpreter
(:mod:`.interpret`), which checks every value against its declared type.
:func:`source_hash` keys the load cache that the view keeps on disk.
"""

from __future__ import annotations

import dataclasses
import gc
import hashlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from . import limits
from .classes import build_classes
from .fastload import fast_values
from .interpret import StateInterpreter
from .precheck import check_depth, precheck_split
from .spec import SchemaSpec
from .syntax import parse_python
from .types import TypeSpec
from .validate import validate_schema

#: bump when the cache layout or the loader's semantics change
LOADER_VERSION = 1
FILES = ("__init__.py", "schema.py", "state.py")


@dataclass
class LoadedDomain:
    """One domain's loaded view."""

    name: str
    schema: SchemaSpec
    classes: dict[str, type]
    #: top-level name -> value, in source order
    values: dict[str, Any]
    types: dict[str, TypeSpec]
    source_hash: str
    from_cache: bool = False

    def records(self) -> Iterator[Any]:
        """Every record instance (dataclass object) reachable from the values."""
        stack = list(self.values.values())
        while stack:
            value = stack.pop()
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                yield value
                stack.extend(getattr(value, f.name) for f in dataclasses.fields(value))
            elif isinstance(value, (list, tuple, set)):
                stack.extend(value)
            elif isinstance(value, dict):
                stack.extend(value.values())

    def record_count(self) -> int:
        return sum(1 for _ in self.records())

    def cited_ids(self) -> set[str]:
        """Fact ids cited by records' ``sources`` (and ``notes`` that mention them)."""
        cited: set[str] = set()
        for record in self.records():
            for attr in ("sources", "notes"):
                items = getattr(record, attr, None)
                if isinstance(items, (list, tuple)):
                    cited.update(i for i in items if isinstance(i, str))
        return cited


def source_hash(schema_bytes: bytes, state_bytes: bytes) -> str:
    digest = hashlib.sha256()
    digest.update(f"uac-structure/{LOADER_VERSION}\0".encode())
    digest.update(len(schema_bytes).to_bytes(8, "big"))
    digest.update(schema_bytes)
    digest.update(state_bytes)
    return digest.hexdigest()


def load_sources(
    name: str, schema_src: bytes | str, state_src: bytes | str, *, label: str | None = None
) -> LoadedDomain:
    """Validate and interpret one domain's sources (the cold path)."""
    label = label or f"domains/{name}"
    schema_bytes = schema_src.encode("utf-8") if isinstance(schema_src, str) else schema_src
    state_bytes = state_src.encode("utf-8") if isinstance(state_src, str) else state_src
    schema = validate_schema(schema_bytes, f"{label}/schema.py")
    classes = build_classes(schema, f"uac_domains.{name}")
    state_path = f"{label}/state.py"
    with gc_paused():
        # the fast path never hands the values to a recursive parser (json.loads
        # declines deep nesting, the builder caps it), so the text-level depth
        # check runs only before the full parse
        text, code, strings = precheck_split(state_bytes, state_path, max_bytes=limits.MAX_STATE_BYTES, depth=False)
        values = fast_values(code, strings, schema, classes, state_path)
        if values is None:
            check_depth(text, code, state_path)
        del code, strings
        if values is None:
            tree = parse_python(text, state_path)
            values = StateInterpreter(state_path, schema, classes).run(tree)
            del tree
    return LoadedDomain(
        name,
        schema,
        classes,
        {v.name: v.value for v in values},
        {v.name: v.type for v in values},
        source_hash(schema_bytes, state_bytes),
    )


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while bulk-building acyclic objects
    (millions of fresh containers would otherwise trigger repeated full scans)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


__all__ = ["FILES", "LOADER_VERSION", "LoadedDomain", "gc_paused", "load_sources", "source_hash"]
