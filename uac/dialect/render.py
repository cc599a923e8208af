"""Deterministic source generation for domain packages.

``state.py`` can hold 100,000 records, too big to pass through black quickly,
so it is written by a small pretty-printer whose output black leaves
unchanged: a value that fits in 88 columns stays on one line; otherwise its
brackets are exploded one item per line with a trailing ("magic") comma,
recursively.  Strings follow black's quote preference.  ``schema.py`` is
rendered from a template and passed through ``black.format_str``.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
import threading
from typing import Any, Callable, Iterable

from ..dates import Period
from ..refs import Ref
from .spec import SchemaSpec
from .types import PERIOD_MODULE, PERIOD_NAME, REF_MODULE, REF_NAME, TypeSpec

LINE_LENGTH = 88
INDENT = "    "


def string_literal(value: str) -> str:
    """``repr`` with black's quote normalisation (prefer double quotes)."""
    text = repr(value)
    if text[0] == '"':
        return text
    body = text[1:-1]
    new_escapes = value.count('"')
    old_escapes = value.count("'")
    if new_escapes > old_escapes:
        return text
    return '"' + body.replace("\\'", "'").replace('"', '\\"') + '"'


def float_literal(value: float) -> str:
    text = repr(value)
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"non-finite float {text} cannot be written as a literal")
    return text.replace("e+", "e")  # black's spelling of the exponent


def _clock_args(parts: list[int], value: "_dt.datetime | _dt.time") -> str:
    """``parts`` and the seconds and microseconds of ``value`` as far as they are not zero."""
    if value.second or value.microsecond:
        parts.append(value.second)
    if value.microsecond:
        parts.append(value.microsecond)
    return ", ".join(map(str, parts))


def _temporal(value: Any) -> str:
    if type(value) is _dt.date:
        return f"date({value.year}, {value.month}, {value.day})"
    if type(value) is _dt.datetime:
        if value.tzinfo is not None:
            raise ValueError("datetimes with a time zone cannot be written to state.py")
        parts = [value.year, value.month, value.day, value.hour, value.minute]
        return f"datetime({_clock_args(parts, value)})"
    if type(value) is _dt.time:
        if value.tzinfo is not None:
            raise ValueError("times with a time zone cannot be written to state.py")
        parts = [value.hour, value.minute]
        return f"time({_clock_args(parts, value)})"
    if type(value) is _dt.timedelta:
        given = [
            f"{k}={v}"
            for k, v in (("days", value.days), ("seconds", value.seconds), ("microseconds", value.microseconds))
            if v
        ]
        return f"timedelta({', '.join(given) or 'days=0'})"
    raise TypeError(type(value).__name__)


def _record_items(value: Any) -> list[tuple[str, Any]]:
    """The keyword arguments of a record call: fields that differ from their default."""
    items = []
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.default is not dataclasses.MISSING and item == f.default and type(item) is type(f.default):
            continue
        if f.default_factory is not dataclasses.MISSING and item == f.default_factory():
            continue
        items.append((f.name, item))
    return items


def _set_items(value: set[Any]) -> list[Any]:
    return sorted(value, key=lambda v: (type(v).__name__, flat(v)))


def flat(value: Any) -> str:
    """The one-line source of a value."""
    kind = type(value)
    if kind is str:
        return string_literal(value)
    if kind is bool or value is None or kind is int:
        return repr(value)
    if kind is float:
        return float_literal(value)
    if kind in (_dt.date, _dt.datetime, _dt.time, _dt.timedelta):
        return _temporal(value)
    if kind is Period:
        return f"{PERIOD_NAME}({string_literal(value.code)})"
    if kind is Ref:
        return f"{REF_NAME}({string_literal(value.code)})"
    if isinstance(value, enum.Enum):
        return f"{kind.__name__}.{value.name}"
    if kind is list:
        return "[" + ", ".join(flat(v) for v in value) + "]"
    if kind is tuple:
        if len(value) == 1:
            return "(" + flat(value[0]) + ",)"
        return "(" + ", ".join(flat(v) for v in value) + ")"
    if kind is set:
        if not value:
            raise ValueError("empty sets cannot be written as literals; use a list")
        return "{" + ", ".join(flat(v) for v in _set_items(value)) + "}"
    if kind is dict:
        return "{" + ", ".join(f"{flat(k)}: {flat(v)}" for k, v in value.items()) + "}"
    if dataclasses.is_dataclass(value):
        return kind.__name__ + "(" + ", ".join(f"{k}={flat(v)}" for k, v in _record_items(value)) + ")"
    raise TypeError(f"cannot write a {kind.__name__} to state.py")


def _temporal_parts(value: Any) -> tuple[str, list[tuple[str, Any]], str]:
    text = _temporal(value)
    head, _, rest = text.partition("(")
    items = []
    for part in rest[:-1].split(", "):
        name, eq, number = part.partition("=")
        items.append((name + "=", int(number)) if eq else ("", int(name)))
    return head + "(", items, ")"


def _parts(value: Any) -> tuple[str, list[tuple[str, Any]], str] | None:
    kind = type(value)
    if kind in (_dt.date, _dt.datetime, _dt.time, _dt.timedelta):
        return _temporal_parts(value)
    if kind is list and value:
        return "[", [("", v) for v in value], "]"
    if kind is tuple and value:
        return "(", [("", v) for v in value], ")"
    if kind is set and value:
        return "{", [("", v) for v in _set_items(value)], "}"
    if kind is dict and value:
        return "{", [(flat(k) + ": ", v) for k, v in value.items()], "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = _record_items(value)
        if items:
            return kind.__name__ + "(", [(k + "=", v) for k, v in items], ")"
    return None


#: a container with more items than this cannot fit one line (each item takes at least ", x")
_NEVER_ONE_LINE = LINE_LENGTH // 3


def format_value(value: Any, indent: int = 0, prefix: str = "", suffix: str = "") -> list[str]:
    """Lines of ``prefix + value + suffix`` at ``indent`` levels, black-stable."""
    pad = INDENT * indent
    if not (type(value) in (list, tuple, set, dict) and len(value) > _NEVER_ONE_LINE):
        one = pad + prefix + flat(value) + suffix
        if width(one) <= LINE_LENGTH:
            return [one]
    else:
        one = ""
    parts = _parts(value)
    if parts is None:
        return [one]
    opener, items, closer = parts
    out = [pad + prefix + opener]
    for item_prefix, item in items:
        out.extend(format_value(item, indent + 1, item_prefix, ","))
    out.append(pad + closer + suffix)
    return out


def width(line: str) -> int:
    """Display width as black measures it (East Asian wide characters count 2)."""
    if line.isascii():
        return len(line)
    _black()
    from black.strings import str_width

    return str_width(line)


def import_line(module: str, names: Iterable[str]) -> str:
    names = list(names)
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"{INDENT}{n},\n" for n in names) + ")"


def _used(values: Iterable[Any]) -> tuple[set[str], set[str]]:
    """Classes (by name) and temporal constructors (and ``Period``) used in values."""
    classes: set[str] = set()
    temporal: set[str] = set()
    stack = list(values)
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in (str, int, float, bool) or value is None:
            continue
        if kind in (_dt.date, _dt.datetime, _dt.time, _dt.timedelta):
            temporal.add(kind.__name__)
        elif kind is Period:
            temporal.add(PERIOD_NAME)
        elif kind is Ref:
            temporal.add(REF_NAME)
        elif isinstance(value, enum.Enum):
            classes.add(kind.__name__)
        elif kind in (list, tuple, set):
            stack.extend(value)
        elif kind is dict:
            stack.extend(value.keys())
            stack.extend(value.values())
        elif dataclasses.is_dataclass(value):
            classes.add(kind.__name__)
            stack.extend(v for _, v in _record_items(value))
    return classes, temporal


def _annotation_names(spec: TypeSpec) -> tuple[set[str], set[str]]:
    classes = spec.class_names()
    temporal: set[str] = set()
    stack = [spec]
    while stack:
        current = stack.pop()
        if current.kind in ("date", "datetime", "time", "timedelta"):
            temporal.add(current.kind)
        if current.kind == "any":
            temporal.add("Any")
        if current.kind == "period":
            temporal.add(PERIOD_NAME)
        if current.kind == "ref":
            temporal.add(REF_NAME)
        stack.extend(current.args)
    return classes, temporal


class Chunk:
    """The rendered lines of one record of a top-level list, with the names they use.

    Records are immutable, so a chunk stays right for as long as its record lives;
    ``checked`` says the lines were shown to read back as the record (see
    :mod:`.partial`)."""

    __slots__ = ("item", "lines", "classes", "temporal", "checked")

    def __init__(self, item: Any, lines: list[str]) -> None:
        self.item = item
        self.lines = lines
        self.classes, self.temporal = _used([item])
        #: the schema key the lines were checked against (False: not checked yet)
        self.checked: str | bool = False


#: rendered records by ``id()`` of the record (a chunk keeps its record alive, so ids stay unique)
ChunkCache = dict[int, Chunk]


def _chunk(item: Any, cache: ChunkCache) -> Chunk:
    hit = cache.get(id(item))
    if hit is None or hit.item is not item:
        hit = Chunk(item, format_value(item, 1, "", ","))
        cache[id(item)] = hit
    return hit


def _records_only(value: list[Any], cache: ChunkCache) -> bool:
    """Is every item a record (a record with a chunk already is one)?"""
    for item in value:
        hit = cache.get(id(item))
        if (hit is None or hit.item is not item) and not dataclasses.is_dataclass(item):
            return False
    return True


@dataclasses.dataclass
class Statement:
    """One ``name: T = value`` of ``state.py``: its lines, or its records' chunks."""

    name: str
    prefix: str
    value: Any
    lines: list[str] | None = None
    chunks: list[Chunk] | None = None

    def extend(self, out: list[str]) -> None:
        if self.chunks is None:
            out.extend(self.lines or ())
            return
        out.append(self.prefix + "[")
        for chunk in self.chunks:
            out.extend(chunk.lines)
        out.append("]")


@dataclasses.dataclass
class StateSource:
    """``state.py`` as its header and statements (see :func:`state_source`)."""

    header: list[str]
    statements: list[Statement]

    def text(self) -> str:
        lines = list(self.header)
        for statement in self.statements:
            lines.append("")
            statement.extend(lines)
        return "\n".join(lines) + "\n"


def state_source(
    doc: str, schema: SchemaSpec, entries: list[tuple[str, TypeSpec, Any]], *, chunk_cache: ChunkCache | None = None
) -> StateSource:
    """The parts of ``state.py`` (:func:`render_state` joins them).  With ``chunk_cache``,
    each record of a top-level list of records is rendered once and kept between calls
    (records are immutable), so re-rendering a domain after a few changes costs what
    changed (and joining the lines)."""
    classes: set[str] = set()
    temporal: set[str] = set()
    statements: list[Statement] = []
    for name, spec, value in entries:
        prefix = f"{name}: {spec.source()} = "
        statement = Statement(name, prefix, value)
        if chunk_cache is not None and type(value) is list and value and _records_only(value, chunk_cache):
            one = prefix + flat(value) if len(value) <= _NEVER_ONE_LINE else ""
            if one and width(one) <= LINE_LENGTH:
                statement.lines = [one]
            else:
                statement.chunks = [_chunk(item, chunk_cache) for item in value]
        if statement.chunks is not None:
            for chunk in statement.chunks:
                classes |= chunk.classes
                temporal |= chunk.temporal
        else:
            if statement.lines is None:
                statement.lines = _statement(value, prefix)
            used_classes, used_temporal = _used([value])
            classes |= used_classes
            temporal |= used_temporal
        ann_classes, ann_temporal = _annotation_names(spec)
        classes |= ann_classes
        temporal |= ann_temporal
        statements.append(statement)
    lines = [f'"""{_docstring(doc)}"""']
    datetime_names = [n for n in ("date", "datetime", "time", "timedelta") if n in temporal]
    if datetime_names or "Any" in temporal or PERIOD_NAME in temporal or REF_NAME in temporal:
        lines.append("")
    if datetime_names:
        lines.append(import_line("datetime", datetime_names))
    if "Any" in temporal:
        lines.append("from typing import Any")
    if PERIOD_NAME in temporal:
        lines.append(f"from {PERIOD_MODULE} import {PERIOD_NAME}")
    if REF_NAME in temporal:
        lines.append(f"from {REF_MODULE} import {REF_NAME}")
    schema_names = [n for n in schema.names if n in classes]
    if schema_names:
        lines.append("")
        lines.append(import_line(".schema", schema_names))
    return StateSource(lines, statements)


def render_state(
    doc: str,
    schema: SchemaSpec,
    entries: list[tuple[str, TypeSpec, Any]],
    *,
    chunk_cache: ChunkCache | None = None,
) -> str:
    """``state.py``: docstring, imports, then ``name: Type = value`` per entry
    (``chunk_cache``: see :func:`state_source`)."""
    return state_source(doc, schema, entries, chunk_cache=chunk_cache).text()


def _statement(value: Any, prefix: str) -> list[str]:
    """``name: T = value`` as black (26) writes it: an atom too long for the line goes
    inside parentheses, on a line of its own."""
    lines = format_value(value, 0, prefix)
    if len(lines) == 1 and width(lines[0]) > LINE_LENGTH and _parts(value) is None:
        return [prefix + "(", INDENT + flat(value), ")"]
    return lines


def _docstring(text: str) -> str:
    text = " ".join(text.replace("\\", "/").replace('"""', "'''").split())
    return text.rstrip('"') or "Generated by uac."


_SCHEMA_TEXT: dict[str, str] = {}


def render_schema(schema: SchemaSpec) -> str:
    """``schema.py`` from a spec (black-formatted; the same spec renders once per process)."""
    key = json.dumps(schema.to_json(), sort_keys=True, default=repr)
    return _remembered(_SCHEMA_TEXT, key, lambda: _render_schema(schema))


def _remembered(cache: dict[str, str], key: str, render: Callable[[], str]) -> str:
    """``render()``, kept in ``cache`` under ``key`` (emptied when it passes 256 texts)."""
    text = cache.get(key)
    if text is None:
        text = render()
        if len(cache) > 256:
            cache.clear()
        cache[key] = text
    return text


def _render_schema(schema: SchemaSpec) -> str:
    from ..templating import render_template

    datetime_names = [n for n in ("date", "datetime", "time", "timedelta") if n in _schema_temporal(schema)]
    typing_names = ["Any"] if "Any" in _schema_temporal(schema) else []
    has_factory = any(f.default_kind in ("list", "dict") for c in schema.classes for f in c.fields)
    classes = []
    for cls in schema.classes:
        fields = []
        for f in cls.fields:
            if f.default_kind == "required":
                default = ""
            elif f.default_kind == "value":
                default = " = " + flat(f.default)
            else:
                default = f" = field(default_factory={f.default_kind})"
            fields.append({"name": f.name, "annotation": f.type.source(), "default": default})
        members = [{"name": m, "value": flat(v)} for m, v in cls.members]
        classes.append(
            {
                "name": cls.name,
                "kind": cls.kind,
                "doc": _docstring(cls.doc) if cls.doc else "",
                "fields": fields,
                "members": members,
            }
        )
    text = render_template(
        "structure_schema.py.j2",
        doc=_docstring(schema.doc),
        datetime_names=datetime_names,
        typing_names=typing_names,
        has_factory=has_factory,
        has_enum=any(c.kind == "enum" for c in schema.classes),
        period_import="\n".join(
            f"from {module} import {name}"
            for module, name in ((PERIOD_MODULE, PERIOD_NAME), (REF_MODULE, REF_NAME))
            if name in _schema_temporal(schema)
        ),
        classes=classes,
    )
    return black_format(text)


def _schema_temporal(schema: SchemaSpec) -> set[str]:
    names: set[str] = set()
    for cls in schema.classes:
        for f in cls.fields:
            names |= _annotation_names(f.type)[1]
    return names


_INIT_TEXT: dict[str, str] = {}


def render_init(doc: str, schema: SchemaSpec, names: list[str]) -> str:
    """``__init__.py`` (black-formatted; the same text renders once per process)."""
    lines = [f'"""{_docstring(doc)}"""', ""]
    if schema.names:
        lines.append(import_line(".schema", schema.names))
    if names:
        lines.append(import_line(".state", names))
    source = "\n".join(lines) + "\n"
    return _remembered(_INIT_TEXT, source, lambda: black_format(source))


_BLACK_IMPORT = threading.Lock()


def _black():
    # Importing black from two threads at once can expose a half-initialised
    # module (``black.Mode`` missing); import it under a lock, once.
    with _BLACK_IMPORT:
        import black

    return black


def black_format(text: str) -> str:
    black = _black()
    return black.format_str(text, mode=black.Mode(line_length=LINE_LENGTH))


__all__ = [
    "Chunk",
    "ChunkCache",
    "StateSource",
    "Statement",
    "black_format",
    "flat",
    "format_value",
    "render_init",
    "render_schema",
    "render_state",
    "state_source",
    "string_literal",
]
