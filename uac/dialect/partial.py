"""Checking a domain's files when only some of their records changed.

A domain compiled batch by batch is written again after every batch, and
what is written must pass the full validator (:func:`.loader.load_sources`)
whenever it is loaded fresh.  Running that validator over the whole domain
after every batch makes each batch cost the size of the domain.  This module
shows the same result from the part that changed.

``state.py`` as uac renders it (:func:`.render.state_source`) is a header (the
docstring and the imports) and then one ``name: T = value`` statement per
top-level name; a long list of records is written one record after another,
each record's lines rendered once (a :class:`.render.Chunk`).  Both loaders
read every statement, and every element of a list, on its own: what an
element's text means does not depend on the elements around it.  Only the
limits look at the file as a whole.  So the files pass the full validator
when:

* ``schema.py`` passes it (:func:`.validate.validate_schema`, remembered by
  content) and reads back as the schema the records were built with;
* ``__init__.py`` passes :func:`.validate.check_init`;
* the whole of ``state.py`` is within the limits that count: its size, the
  elements of each list, and the values the loaders count (each takes at least
  one character, so a file of at most :data:`.limits.MAX_STATE_NODES`
  characters is within that limit);
* a *partial* ``state.py`` -- the same header and every statement, but of each
  list of records only the records not checked before under this schema --
  passes the state loader and reads back as exactly the values it was rendered
  from (equal, and rendering to the same lines).

:func:`check_files` returns ``True`` when it has shown this (and marks the
records it read as checked); ``False`` means "not shown", and the caller runs
the full validator, which gives the authoritative answer and its message.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

from . import limits
from .fastload import fast_values
from .interpret import StateInterpreter
from .loader import gc_paused
from .precheck import check_depth, precheck_split
from .problems import CodeRejected
from .render import Statement, StateSource, flat, format_value
from .spec import SchemaSpec
from .syntax import parse_python
from .validate import check_init, validate_schema


def preload() -> None:
    """Import what checking a new ``schema.py`` needs (libcst, and black to render it):
    about a second of imports, worth doing while a model call is in flight rather than
    between two batches of a domain."""
    from .render import _black
    from .schema_allowlist import import_libcst

    import_libcst()
    _black()


def schema_key(schema_text: str) -> str:
    """What a record's check is valid under: the exact ``schema.py``."""
    return hashlib.sha256(schema_text.encode("utf-8")).hexdigest()


def check_files(
    name: str,
    files: dict[str, str],
    source: StateSource,
    schema: SchemaSpec,
    classes: Mapping[str, type],
    *,
    label: str | None = None,
) -> bool:
    """Do ``files`` (rendered from ``source``) pass the full validator?  ``True``: shown
    from the records not checked before (see the module docstring); ``False``: not shown."""
    label = label or f"domains/{name}"
    state_text = files["state.py"]
    if len(state_text) > limits.MAX_STATE_NODES or len(state_text.encode("utf-8")) > limits.MAX_STATE_BYTES:
        return False
    if any(s.chunks is not None and len(s.chunks) > limits.MAX_COLLECTION for s in source.statements):
        return False
    try:
        check_init(name, files["__init__.py"].encode("utf-8"), label)
        validated = validate_schema(files["schema.py"].encode("utf-8"), f"{label}/schema.py")
    except CodeRejected:
        return False
    if validated.classes != schema.classes or validated.doc != schema.doc:
        return False
    key = schema_key(files["schema.py"])
    partial = StateSource(source.header, [])
    expected: list[Any] = []
    fresh = []
    for statement in source.statements:
        if statement.chunks is None:
            partial.statements.append(statement)
            expected.append(statement.value)
            continue
        unchecked = [c for c in statement.chunks if c.checked != key]
        fresh.extend(unchecked)
        partial.statements.append(Statement(statement.name, statement.prefix, statement.value, chunks=unchecked))
        expected.append([c.item for c in unchecked])
    values = _read(partial.text(), schema, classes, f"{label}/state.py")
    if values is None or [v.name for v in values] != [s.name for s in source.statements]:
        return False
    for value, statement, wanted in zip(values, partial.statements, expected):
        if value.value != wanted:
            return False
        if statement.chunks is None:
            if flat(value.value) != flat(wanted):  # equal is not enough: 1 == 1.0 == True
                return False
            continue
        for item, chunk in zip(value.value, statement.chunks):
            if type(item) is not type(chunk.item) or format_value(item, 1, "", ",") != chunk.lines:
                return False
    for chunk in fresh:
        chunk.checked = key
    return True


def _read(text: str, schema: SchemaSpec, classes: Mapping[str, type], path: str) -> list[Any] | None:
    """The state loader of :func:`.loader.load_sources` on ``text``; ``None`` if it refuses."""
    try:
        with gc_paused():
            text, code, strings = precheck_split(text, path, max_bytes=limits.MAX_STATE_BYTES, depth=False)
            values = fast_values(code, strings, schema, classes, path)
            if values is None:
                check_depth(text, code, path)
                values = StateInterpreter(path, schema, classes).run(parse_python(text, path))
    except CodeRejected:
        return None
    return values


__all__ = ["check_files", "preload", "schema_key"]
