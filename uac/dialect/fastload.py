"""A fast path for large ``state.py`` files: literal values via ``json.loads``.

``ast.parse`` of a 20 MB ``state.py`` (100,000 records) takes seconds, most of
it building Python syntax-tree objects.  For the literal grammar of
``state.py`` there is a cheaper route that is just as strict:

1. the text is split into string literals and code, comments dropped
   (:func:`.precheck.split_code`, done once by the text checks);
2. the statement headers (``name: Annotation =``) are cut out; the values are
   rewritten into JSON by literal replacements anchored on the names the
   schema defines: ``Trip(`` becomes ``["\u0001Trip",``, ``city=`` becomes
   ``"\u0007city",``, ``Status.DONE`` becomes ``"\u0003Status.DONE"``;
   braces, dict colons and tuple commas get markers of the same kind (JSON
   strings starting with a control character, which no accepted source
   string can hold); string literals are re-encoded as JSON strings;
3. ``json.loads`` parses the result -- any Python the rewrite did not expect
   (an operator, an unknown name or call, a lambda, a comprehension) is left
   in place and makes the text invalid JSON;
4. :class:`Builder` turns the JSON into values with the literal interpreter's
   rules (schema classes with keyword arguments only, every field checked
   against its type, ``date(...)`` and friends with ``int`` arguments,
   ``Period("...")`` with its stored form, enum members), and the statement skeleton (imports, names, annotations, each
   value replaced by ``0``) goes through the literal interpreter.

The fast path only ever *accepts*: whenever anything is unexpected it returns
``None`` and the caller runs the full ``ast`` interpreter, which produces the
authoritative result or the precise rejection message.
"""

from __future__ import annotations

import ast
import datetime as _dt
import json
import math
import re
import warnings
from typing import Any, Mapping

from sandbox.pyparse import locked, parse

from ..dates import Period, parse_period
from ..refs import REF_FORM, Ref
from . import limits
from .interpret import StateInterpreter
from .precheck import check_depth
from .problems import CodeRejected
from .spec import SchemaSpec
from .types import PERIOD_NAME, REF_NAME, TEMPORAL, Mismatch, TypeSpec, check_value

_HEADER = re.compile(r"^([A-Za-z_]\w*)[ \t]*:[ \t]*([^=\n\x00]*?)[ \t]*=[ \t]*", re.M)
_JSON_WORDS = ("true", "false", "null", "NaN", "Infinity")
_CONSTANTS = (("True", "true"), ("False", "false"), ("None", "null"))
_TRAILING_PAREN = re.compile(r",(?=\s*\))")
_TRAILING = re.compile(r",(?=\s*\])")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
#: keyword arguments the temporal constructors accept
_TEMPORAL_KEYWORDS = (
    "year",
    "month",
    "day",
    "hour",
    "minute",
    "second",
    "microsecond",
    "days",
    "seconds",
    "microseconds",
    "milliseconds",
    "minutes",
    "hours",
    "weeks",
)


#: markers in the JSON text: strings starting with a control character that no
#: accepted source string can hold (plain literals with raw control characters
#: are invalid JSON; escaped ones are checked in :func:`_json_string`)
CALL, COLON, ENUM, TUPLE, KEYWORD = "\x01", "\x02", "\x03", "\x04", "\x07"
MARKS = (CALL, COLON, ENUM, TUPLE, KEYWORD)
CALL_JSON, COLON_JSON, ENUM_JSON, TUPLE_JSON, KEYWORD_JSON = "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0007"


class _Fallback(Exception):
    """Not for the fast path; use the full interpreter."""


def _json_string(token: str) -> str:
    if token[0] == '"' and token[1:3] != '""' and "\\" not in token:
        return token
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = locked(ast.literal_eval, token)
    if type(value) is not str:
        raise _Fallback("not a str literal")
    if any(mark in value for mark in MARKS):
        raise _Fallback("string holds a marker character")
    return json.dumps(value, ensure_ascii=False)


def _reject_constant(name: str) -> Any:
    raise _Fallback(name)


def _standalone(body: str, word: str) -> bool:
    """Is every occurrence of ``word`` in ``body`` a whole token?"""
    size = len(word)
    start = body.find(word)
    while start >= 0:
        after = body[start + size : start + size + 1]
        if (start and body[start - 1] in _WORD) or (after and after in _WORD):
            return False
        start = body.find(word, start + size)
    return True


def _never_standalone(body: str, word: str) -> bool:
    """Is every occurrence of ``word`` part of a longer identifier?"""
    size = len(word)
    start = body.find(word)
    while start >= 0:
        after = body[start + size : start + size + 1]
        if not ((start and body[start - 1] in _WORD) or (after and after in _WORD)):
            return False
        start = body.find(word, start + size)
    return True


_EMPTY_LEAD = re.compile(r"[\[({]\s*,")


def _statements_stand_alone(body: str) -> bool:
    """Does each statement's value stand on its own, as Python would read it?

    The rewrite joins the values with commas and parses them as one JSON list,
    so a value cut off by the next statement (``a = [1`` / ``b = 2]``), a
    missing value, a value that starts on the next line, a top-level comma
    (``x = 1,`` is a tuple in Python) or an opening bracket followed by a
    comma (``[,]``, which the trailing-comma rule would turn into ``[]``)
    could still give a list of the right length.  Each value (between two
    statement headers, strings already cut out) must start on its header's
    line, be non-empty, have as many closing brackets of each kind as opening
    ones, and not end in a comma; no bracket may open on a comma.
    """
    if _EMPTY_LEAD.search(body):
        return False
    for raw in body.split("\x02")[1:]:
        if raw[:1] in ("\n", "\r"):  # nothing after the `=` on the statement's own line
            return False
        value = raw.strip()
        if not value or value.endswith(","):
            return False
        if (
            value.count("[") != value.count("]")
            or value.count("(") != value.count(")")
            or value.count("{") != value.count("}")
        ):
            return False
    return True


def to_json_values(
    code: str, strings: list[str], schema: SchemaSpec
) -> tuple[str, list[tuple[str, str]], list[Any]] | None:
    """``(header code, [(name, annotation)], raw JSON values)`` or ``None``."""
    headers = list(_HEADER.finditer(code))
    if not headers:
        return None
    head = code[: headers[0].start()]
    body = _HEADER.sub("\x02", code[headers[0].start() :])
    if "==" in body or any(c in body for c in ("\x01", "\x03", "\x04", "\x05", "\x06")):
        return None
    if not _statements_stand_alone(body):
        return None
    if any(word in body and not _never_standalone(body, word) for word in _JSON_WORDS):
        return None
    # source braces and colons move out of the way; the JSON markers use real ones
    body = body.replace("{", "\x03").replace("}", "\x04").replace(":", "\x05")
    for word, replacement in _CONSTANTS:
        if word in body:
            if not _standalone(body, word):
                return None
            body = body.replace(word, replacement)
    body = _TRAILING_PAREN.sub(",\x06", body)
    callables = {c.name for c in schema.classes if c.kind == "dataclass"} | set(TEMPORAL)
    if PERIOD_NAME not in schema.names:
        callables.add(PERIOD_NAME)
    if REF_NAME not in schema.names:
        callables.add(REF_NAME)
    for name in sorted(callables, key=len, reverse=True):
        body = body.replace(name + "(", '["' + CALL_JSON + name + '",')
    body = body.replace("(", '["' + CALL_JSON + '",').replace(")", "]")
    for enum_name in sorted((c.name for c in schema.classes if c.kind == "enum"), key=len, reverse=True):
        if enum_name + "." in body:
            body = re.sub(
                re.escape(enum_name) + r"\.([A-Za-z_]\w*)",
                lambda m: '"%s%s.%s"' % (ENUM_JSON, enum_name, m.group(1)),  # called here, in this iteration
                body,
            )
    # field names first (longest first, so no name is rewritten inside a longer
    # one); the temporal keywords only if some `=` is left
    for names in ({f.name for c in schema.classes for f in c.fields}, set(_TEMPORAL_KEYWORDS)):
        if "=" not in body:
            break
        for name in sorted(names, key=len, reverse=True):
            body = body.replace(name + "=", '"' + KEYWORD_JSON + name + '",')
    if "=" in body:
        return None
    body = (
        body.replace("\x03", '["' + CALL_JSON + '{",')
        .replace("\x04", "]")
        .replace("\x05", ',"' + COLON_JSON + '",')
        .replace("\x06", '"' + TUPLE_JSON + '"')
    )
    body = "[" + body[1:].replace("\x02", ",") + "]"
    body = _TRAILING.sub("", body)
    head_strings = head.count("\x00")
    pieces = body.split("\x00")
    tail = strings[head_strings:]
    if len(pieces) != len(tail) + 1:
        return None
    out = [""] * (2 * len(pieces) - 1)
    out[0::2] = pieces
    try:
        joined = "\x00".join(tail)
        plain = not tail or (
            tail[0][0] == '"' and joined.count('\x00"') == len(tail) - 1 and "\\" not in joined and '"""' not in joined
        )
        if plain:
            # all plain double-quoted literals: already JSON strings (a raw control
            # character, which a marker would need, makes json.loads fail)
            out[1::2] = tail
        else:
            out[1::2] = [_json_string(s) for s in tail]
        values = json.loads("".join(out), parse_constant=_reject_constant)
    except (_Fallback, ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if type(values) is not list or len(values) != len(headers):
        return None
    return head, [(m.group(1), m.group(2)) for m in headers], values


class _Record:
    __slots__ = ("cls", "types", "required", "exact", "defaults", "factories", "keys")

    def __init__(self, cls: type, fields: list[Any]) -> None:
        self.cls = cls
        self.types = {f.name: f.type for f in fields}
        self.required = frozenset(f.name for f in fields if f.required)
        #: fields whose JSON value is already the Python value when its type matches exactly
        self.exact = {
            f.name: {"str": str, "int": int, "bool": bool, "float": float}[f.type.kind]
            for f in fields
            if f.type.kind in ("str", "int", "bool", "float")
        }
        self.defaults = {f.name: f.default for f in fields if f.default_kind == "value"}
        self.factories = [
            (f.name, list if f.default_kind == "list" else dict) for f in fields if f.default_kind in ("list", "dict")
        ]
        #: keyword marker -> field name
        self.keys = {KEYWORD + f.name: f.name for f in fields}


def _holds_period(spec: TypeSpec) -> bool:
    """``Period`` or a union with it (``Period | None``)."""
    return spec.kind == "period" or (spec.kind == "union" and any(a.kind == "period" for a in spec.args))


def _is_str_list(spec: TypeSpec) -> bool:
    return spec.kind == "list" and spec.args[0].kind == "str"


class Builder:
    """JSON values -> Python values, with the literal interpreter's rules."""

    def __init__(self, schema: SchemaSpec, classes: Mapping[str, type]) -> None:
        self.classes = classes
        self.records = {
            c.name: _Record(classes[c.name], list(c.fields)) for c in schema.classes if c.kind == "dataclass"
        }
        self.enums: dict[str, Any] = {c.name: classes[c.name] for c in schema.classes if c.kind == "enum"}
        self.used: set[str] = set()
        self.nodes = 0
        self.depth = 0
        #: stored form -> Period (periods are immutable; a state repeats a few months many times)
        self.periods: dict[str, Period] = {}

    def value(self, data: Any) -> Any:
        self.nodes += 1
        kind = type(data)
        if kind is str:
            if len(data) > limits.MAX_STR_LEN:
                raise _Fallback("long string")
            if data[:1] in MARKS:
                if data[0] == ENUM:
                    return self.enum(data[1:])
                raise _Fallback("marker out of place")
            return data
        if kind is int:
            if data.bit_length() > limits.MAX_INT_BITS:
                raise _Fallback("big int")
            return data
        if kind is float:
            if not math.isfinite(data):
                raise _Fallback("non-finite")
            return data
        if kind is bool or data is None:
            return data
        if kind is list:
            if len(data) > limits.MAX_COLLECTION or self.nodes > limits.MAX_STATE_NODES:
                raise _Fallback("size")
            self.depth += 1
            if self.depth > limits.MAX_BRACKET_DEPTH:
                raise _Fallback("depth")
            try:
                if data and type(data[0]) is str and data[0][:1] == CALL:
                    return self.call(data[0][1:], data[1:])
                return [self.element(v) for v in data]
            finally:
                self.depth -= 1
        raise _Fallback("unexpected JSON value")

    def element(self, data: Any) -> Any:
        """One list element: records (the bulk of a large state) go straight to :meth:`record`."""
        if type(data) is list and data and type(data[0]) is str:
            head = data[0]
            record = self.records.get(head[1:]) if head[:1] == CALL else None
            if record is not None:
                if self.depth >= limits.MAX_BRACKET_DEPTH:
                    raise _Fallback("depth")
                args = data[1:]
                if args and args[-1] == TUPLE:
                    args = args[:-1]
                self.nodes += 1
                self.depth += 1
                try:
                    return self.record(head[1:], record, args)
                finally:
                    self.depth -= 1
        return self.value(data)

    def enum(self, ref: str) -> Any:
        name, _, member_name = ref.partition(".")
        cls = self.enums.get(name)
        member = cls.__members__.get(member_name) if cls is not None else None
        if member is None or member_name.startswith("_"):
            raise _Fallback("enum")
        self.used.add(name)
        return member

    def call(self, name: str, args: list[Any]) -> Any:
        if name == "":
            if args and args[-1] == TUPLE:
                return tuple(self.value(v) for v in args[:-1])
            if len(args) == 1:
                return self.value(args[0])
            return tuple(self.value(v) for v in args)
        if name == "{":
            return self.braces(args)
        if args and args[-1] == TUPLE:
            args = args[:-1]
        record = self.records.get(name)
        if record is not None:
            return self.record(name, record, args)
        if name in TEMPORAL:
            return self.temporal(name, args)
        if name == PERIOD_NAME:
            return self.period(args)
        if name == REF_NAME:
            return self.ref(args)
        raise _Fallback("call")

    def ref(self, args: list[Any]) -> Ref:
        if len(args) != 1 or type(args[0]) is not str or len(args[0]) > 80 or not REF_FORM.match(args[0]):
            raise _Fallback("ref")
        self.used.add(REF_NAME)
        return Ref(args[0])

    def period(self, args: list[Any]) -> Period:
        if len(args) != 1 or type(args[0]) is not str:
            raise _Fallback("period args")
        code = args[0]
        period = self.periods.get(code)
        if period is None:
            if len(code) > 40 or code[:1] in MARKS:
                raise _Fallback("period code")
            try:
                period = parse_period(code)
            except ValueError:
                raise _Fallback("bad period") from None
            if period is None:
                raise _Fallback("empty period")
            self.periods[code] = period
        self.used.add(PERIOD_NAME)
        return period

    def temporal(self, name: str, args: list[Any]) -> Any:
        positional: list[int] = []
        keywords: dict[str, int] = {}
        index = 0
        while index < len(args):
            item = args[index]
            if type(item) is str and item[:1] == KEYWORD:
                key = item[1:]
                if index + 1 >= len(args) or key in keywords:
                    raise _Fallback("temporal keyword")
                keywords[key] = args[index + 1]
                index += 2
                continue
            if keywords:
                raise _Fallback("positional after keyword")
            positional.append(item)
            index += 1
        if not all(type(a) is int for a in positional) or not all(type(a) is int for a in keywords.values()):
            raise _Fallback("temporal args")
        if name != "timedelta" and keywords:
            raise _Fallback("temporal keywords")  # the full interpreter decides
        if name == "timedelta" and any(k not in _TEMPORAL_KEYWORDS[7:] for k in keywords):
            raise _Fallback("timedelta keyword")
        self.used.add(name)
        try:
            return TEMPORAL[name](*positional, **keywords)
        except (ValueError, TypeError, OverflowError):
            raise _Fallback("bad temporal") from None

    def braces(self, args: list[Any]) -> Any:
        if not args:
            return {}
        if COLON in args:
            if len(args) % 3 != 0 or any(args[i] != COLON for i in range(1, len(args), 3)):
                raise _Fallback("dict")
            out = {}
            for i in range(0, len(args), 3):
                key = self.value(args[i])
                try:
                    out[key] = self.value(args[i + 2])
                except TypeError:
                    raise _Fallback("unhashable") from None
            return out
        try:
            return {self.value(v) for v in args}
        except TypeError:
            raise _Fallback("unhashable") from None

    def record(self, name: str, record: _Record, args: list[Any]) -> Any:
        count = len(args)
        if count % 2:
            raise _Fallback("positional")
        self.nodes += count
        kwargs: dict[str, Any] = {}
        types = record.types
        exact = record.exact
        keys = record.keys
        max_str = limits.MAX_STR_LEN
        for i in range(0, count, 2):
            marker = args[i]
            if type(marker) is not str:
                raise _Fallback("positional")
            key = keys.get(marker)
            if key is None or key in kwargs:
                raise _Fallback("field")
            raw = args[i + 1]
            kind = type(raw)
            if kind is exact.get(key):
                if kind is str:
                    if len(raw) <= max_str and raw[:1] not in MARKS:
                        kwargs[key] = raw
                        continue
                elif kind is float:
                    if math.isfinite(raw):
                        kwargs[key] = raw
                        continue
                elif kind is int:
                    if raw.bit_length() <= limits.MAX_INT_BITS:
                        kwargs[key] = raw
                        continue
                else:
                    kwargs[key] = raw
                    continue
            spec = types[key]
            if kind is list:
                if (
                    spec.kind == "date"
                    and len(raw) == 4
                    and raw[0] == _DATE_CALL
                    and type(raw[1]) is int
                    and type(raw[2]) is int
                    and type(raw[3]) is int
                ):
                    try:
                        kwargs[key] = _dt.date(raw[1], raw[2], raw[3])
                    except ValueError:
                        raise _Fallback("bad date") from None
                    self.used.add("date")
                    continue
                if len(raw) == 2 and raw[0] == _PERIOD_CALL and _holds_period(spec) and PERIOD_NAME not in self.records:
                    kwargs[key] = self.period(raw[1:])
                    continue
                if _is_str_list(spec) and all(type(x) is str and len(x) <= max_str and x[:1] not in MARKS for x in raw):
                    kwargs[key] = raw
                    continue
            value = self.value(raw)
            try:
                kwargs[key] = check_value(value, spec, self.classes, "")
            except Mismatch:
                raise _Fallback("type") from None
        if not record.required <= kwargs.keys():
            raise _Fallback("missing")
        self.used.add(name)
        full = dict(record.defaults)
        for field_name, factory in record.factories:
            if field_name not in kwargs:
                full[field_name] = factory()
        full.update(kwargs)
        obj: Any = object.__new__(record.cls)
        obj.__dict__.update(full)
        return obj


_DATE_CALL = CALL + "date"
_PERIOD_CALL = CALL + PERIOD_NAME


def fast_values(
    code: str, strings: list[str], schema: SchemaSpec, classes: Mapping[str, type], path: str
) -> list[Any] | None:
    """The state's statement values via the fast path, or ``None`` to use the full one."""
    parsed = to_json_values(code, strings, schema)
    if parsed is None:
        return None
    head, statements, raw = parsed
    builder = Builder(schema, classes)
    try:
        values = [builder.value(v) for v in raw]
    except _Fallback:
        return None
    skeleton = head.replace("\x00", '""') + "".join(f"\n{name}: {annotation} = 0\n" for name, annotation in statements)
    try:
        check_depth(skeleton, skeleton, path)
    except CodeRejected:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = parse(skeleton)
    except (SyntaxError, MemoryError, RecursionError, ValueError):
        return None
    interpreter = StateInterpreter(path, schema, classes)
    try:
        result = interpreter.run(tree, provided=values)
    except CodeRejected:
        return None
    if not builder.used <= interpreter.scope:
        return None
    return result


__all__ = ["fast_values", "to_json_values"]
