"""The literal interpreter: evaluates a ``state.py`` syntax tree without ``eval``.

Accepted module statements: a docstring, ``from datetime|typing|__future__
import ...`` (allowlisted names, no ``as``), ``from .schema import A, B`` and
``name: Annotation = value``.  Accepted values:

* literals: ``str`` (no f-strings), ``int``, ``float`` (finite), ``bool``,
  ``None``, unary minus on a number;
* ``[...]``, ``(...)``, ``{...}`` (sets) and ``{k: v}`` with literal members;
* ``Record(field=value, ...)`` for a dataclass of the schema (keyword
  arguments only, every field known, every required field given, every value
  checked against its declared type);
* ``date(...)``, ``datetime(...)``, ``time(...)``, ``timedelta(...)`` with
  literal ``int`` arguments;
* ``Period("2023-05")`` (``from uac.dates import Period``) with one string
  literal in the stored form of a period (``2023-05-07``, ``2023-05``,
  ``2022``, ``2023-summer``, ``2023-06-02/2023-06-08``);
* ``Ref("relationships/person-2")`` (``from uac.refs import Ref``) with one
  string literal ``<domain>/<record id>``;
* ``EnumClass.MEMBER`` for an enum of the schema.

Anything else -- names, attribute access on other objects, operators,
comprehensions, lambdas, walrus, subscripts, ``__import__`` -- is rejected
with its line number.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any, Mapping, cast

from ..dates import Period, parse_period
from ..refs import Ref, parse_ref
from . import limits
from .grammar import RESERVED_NAMES, check_identifier, imported_names
from .problems import CodeRejected, Problem, reject
from .spec import ClassSpec, SchemaSpec
from .types import (
    PERIOD_MODULE,
    PERIOD_NAME,
    REF_MODULE,
    REF_NAME,
    TEMPORAL,
    AnnotationError,
    Mismatch,
    TypeSpec,
    check_value,
    describe,
    parse_annotation,
)

_TIMEDELTA_KEYWORDS = {"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"}
_NAMED_NODES = {
    "Lambda": "lambdas",
    "NamedExpr": "the walrus operator (:=)",
    "ListComp": "comprehensions",
    "SetComp": "comprehensions",
    "DictComp": "comprehensions",
    "GeneratorExp": "generator expressions",
    "JoinedStr": "f-strings",
    "FormattedValue": "f-strings",
    "BinOp": "operators",
    "BoolOp": "operators",
    "Compare": "comparisons",
    "IfExp": "conditional expressions",
    "Subscript": "subscripts",
    "Starred": "unpacking (*)",
    "Await": "await",
    "Yield": "yield",
    "YieldFrom": "yield",
    "Slice": "slices",
}


@dataclass(frozen=True)
class StateValue:
    name: str
    type: TypeSpec
    value: Any
    line: int


class _Record:
    __slots__ = ("cls", "spec", "fields", "required")

    def __init__(self, cls: type, spec: ClassSpec) -> None:
        self.cls = cls
        self.spec = spec
        self.fields = {f.name: f.type for f in spec.fields}
        self.required = frozenset(f.name for f in spec.fields if f.required)


class StateInterpreter:
    def __init__(self, path: str, schema: SchemaSpec, classes: Mapping[str, type]) -> None:
        self.path = path
        self.schema = schema
        self.classes = classes
        self.scope: set[str] = set()
        self.nodes = 0
        self._records = {c.name: _Record(classes[c.name], c) for c in schema.classes if c.kind == "dataclass"}
        self._enums: dict[str, Any] = {c.name: classes[c.name] for c in schema.classes if c.kind == "enum"}

    # -- module level --------------------------------------------------------------

    def run(self, tree: ast.Module, provided: list[Any] | None = None) -> list[StateValue]:
        """Evaluate the module; with ``provided``, the statements' values were
        already built (by the fast loader, which sits above this module) and
        are only type-checked here."""
        problems: list[Problem] = []
        body = list(tree.body)
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body.pop(0)
        values: list[StateValue] = []
        bound: set[str] = set()
        for statement in body:
            if isinstance(statement, ast.ImportFrom):
                names = imported_names(statement, self.path, problems, schema_classes=set(self.schema.names))
                for name in names:
                    if name in self.scope:
                        problems.append(Problem(self.path, statement.lineno, f"{name!r} is imported twice"))
                    self.scope.add(name)
                continue
            if problems:
                break
            if isinstance(statement, ast.Import):
                raise reject(self.path, statement.lineno, "`import module` is not allowed")
            if (
                not isinstance(statement, ast.AnnAssign)
                or not isinstance(statement.target, ast.Name)
                or statement.value is None
            ):
                raise reject(
                    self.path,
                    statement.lineno,
                    f"only `name: Type = value` statements are allowed in state.py, not {type(statement).__name__}",
                )
            name = statement.target.id
            problem = check_identifier(name, self.path, statement.lineno, "name")
            if problem:
                raise CodeRejected([problem])
            if name in RESERVED_NAMES or name in self.schema.names or name in self.scope:
                raise reject(self.path, statement.lineno, f"{name!r} rebinds an allowed or imported name")
            if name in bound:
                raise reject(self.path, statement.lineno, f"{name!r} is assigned twice")
            bound.add(name)
            try:
                spec = parse_annotation(statement.annotation, set(self.schema.names), self.scope)
            except AnnotationError as exc:
                raise reject(self.path, getattr(exc.node, "lineno", statement.lineno), f"{name}: {exc}") from None
            for ref in spec.class_names():
                self._require_scope(ref, statement.lineno)
            if provided is None:
                value = self.value(statement.value)
            elif len(values) < len(provided):
                value = provided[len(values)]
            else:
                raise reject(self.path, statement.lineno, "more statements than provided values")
            try:
                value = check_value(value, spec, self.classes, name)
            except Mismatch as exc:
                raise reject(self.path, statement.lineno, str(exc)) from None
            values.append(StateValue(name, spec, value, statement.lineno))
        if problems:
            raise CodeRejected(problems)
        if provided is not None and len(values) != len(provided):
            raise reject(self.path, 0, "fewer statements than provided values")
        return values

    def _require_scope(self, name: str, line: int) -> None:
        if name not in self.scope:
            origin = (
                "datetime"
                if name in TEMPORAL
                else PERIOD_MODULE
                if name == PERIOD_NAME
                else REF_MODULE
                if name == REF_NAME
                else ".schema"
            )
            raise reject(self.path, line, f"{name!r} is used but not imported (add it to `from {origin} import ...`)")

    # -- values ------------------------------------------------------------------------

    def value(self, node: ast.expr) -> Any:
        self.nodes += 1
        kind = type(node)
        # ``type(node) is`` rather than isinstance (the hot path); cast() says what it found
        if kind is ast.Constant:
            return self._constant(cast(ast.Constant, node))
        if kind is ast.Call:
            return self._call(cast(ast.Call, node))
        if kind is ast.List:
            return [self.value(e) for e in self._elements(cast(ast.List, node))]
        if kind is ast.Tuple:
            return tuple(self.value(e) for e in self._elements(cast(ast.Tuple, node)))
        if kind is ast.Dict:
            return self._dict(cast(ast.Dict, node))
        if kind is ast.Set:
            items = [self.value(e) for e in self._elements(cast(ast.Set, node))]
            try:
                return set(items)
            except TypeError:
                raise reject(self.path, node.lineno, "set members must be hashable literals") from None
        if kind is ast.UnaryOp:
            unary = cast(ast.UnaryOp, node)
            operand = unary.operand
            if isinstance(unary.op, ast.USub) and type(operand) is ast.Constant and type(operand.value) in (int, float):
                return -self._constant(operand)
            raise reject(self.path, node.lineno, "only unary minus on a number literal is allowed")
        if kind is ast.Attribute:
            return self._attribute(cast(ast.Attribute, node))
        if kind is ast.Name:
            ident = cast(ast.Name, node).id
            if ident == "__import__" or ident.startswith("_"):
                raise reject(self.path, node.lineno, f"name {ident!r} is not allowed")
            raise reject(
                self.path,
                node.lineno,
                f"bare name {ident!r} is not a value; use a literal, a record call or EnumClass.MEMBER",
            )
        what = _NAMED_NODES.get(kind.__name__, kind.__name__)
        raise reject(self.path, getattr(node, "lineno", 0), f"{what} not allowed in state.py")

    def _elements(self, node: ast.List | ast.Tuple | ast.Set) -> list[ast.expr]:
        elements = node.elts
        if len(elements) > limits.MAX_COLLECTION:
            raise reject(
                self.path,
                node.lineno,
                f"collection of {len(elements):,} items exceeds the limit of {limits.MAX_COLLECTION:,}",
            )
        if self.nodes > limits.MAX_STATE_NODES:
            raise reject(self.path, node.lineno, f"more than {limits.MAX_STATE_NODES:,} values")
        return elements

    def _constant(self, node: ast.Constant) -> Any:
        value: Any = node.value
        kind = type(value)
        if kind is str:
            if len(value) > limits.MAX_STR_LEN:
                raise reject(
                    self.path,
                    node.lineno,
                    f"string literal of {len(value):,} characters exceeds the limit of {limits.MAX_STR_LEN:,}",
                )
            return value
        if kind is int:
            if value.bit_length() > limits.MAX_INT_BITS:
                raise reject(self.path, node.lineno, f"integer literal larger than {limits.MAX_INT_BITS} bits")
            return value
        if kind is float:
            if not math.isfinite(value):
                raise reject(self.path, node.lineno, "non-finite float literal")
            return value
        if kind is bool or value is None:
            return value
        raise reject(self.path, node.lineno, f"{kind.__name__} literals are not allowed")

    def _dict(self, node: ast.Dict) -> dict[Any, Any]:
        if len(node.keys) > limits.MAX_COLLECTION:
            raise reject(self.path, node.lineno, f"dict of {len(node.keys):,} items exceeds the limit")
        out: dict[Any, Any] = {}
        for key_node, value_node in zip(node.keys, node.values):
            if key_node is None:
                raise reject(self.path, node.lineno, "dict unpacking (**) is not allowed")
            key = self.value(key_node)
            try:
                out[key] = self.value(value_node)
            except TypeError:
                raise reject(self.path, node.lineno, "dict keys must be hashable literals") from None
        return out

    def _attribute(self, node: ast.Attribute) -> Any:
        base = node.value
        if isinstance(base, ast.Name) and base.id in self._enums:
            self._require_scope(base.id, node.lineno)
            cls = self._enums[base.id]
            member = cls.__members__.get(node.attr)
            if member is None or node.attr.startswith("_"):
                raise reject(self.path, node.lineno, f"{base.id} has no member {node.attr!r}")
            return member
        raise reject(self.path, node.lineno, "attribute access is only allowed as EnumClass.MEMBER")

    def _call(self, node: ast.Call) -> Any:
        func = node.func
        if not isinstance(func, ast.Name):
            raise reject(
                self.path,
                node.lineno,
                "only calls of schema classes, date/datetime/time/timedelta, Period and Ref are allowed",
            )
        name = func.id
        record = self._records.get(name)
        if record is not None:
            return self._record(node, name, record)
        if name in TEMPORAL:
            return self._temporal(node, name)
        if name == PERIOD_NAME:
            return self._period(node)
        if name == REF_NAME:
            return self._ref(node)
        raise reject(
            self.path,
            node.lineno,
            f"call of {name!r} is not allowed (only schema classes, date/datetime/time/timedelta, Period and Ref)",
        )

    def _record(self, node: ast.Call, name: str, record: _Record) -> Any:
        self._require_scope(name, node.lineno)
        if node.args:
            raise reject(self.path, node.lineno, f"{name}(...) takes keyword arguments only")
        kwargs: dict[str, Any] = {}
        fields = record.fields
        for kw in node.keywords:
            arg = kw.arg
            if arg is None:
                raise reject(self.path, node.lineno, f"{name}(...): ** unpacking is not allowed")
            spec = fields.get(arg)
            if spec is None:
                raise reject(
                    self.path, kw.value.lineno, f"{name}(...) has no field {arg!r} (fields: {', '.join(fields)})"
                )
            value = self.value(kw.value)
            try:
                kwargs[arg] = check_value(value, spec, self.classes, "")
            except Mismatch:
                raise reject(
                    self.path,
                    kw.value.lineno,
                    f"{name}(...) field {arg!r} expects {spec.source()}, got {_describe_deep(value, spec)}",
                ) from None
        if len(kwargs) < len(record.required) or not record.required <= kwargs.keys():
            missing = sorted(record.required - kwargs.keys())
            raise reject(self.path, node.lineno, f"{name}(...) is missing required field(s): {', '.join(missing)}")
        return record.cls(**kwargs)

    def _temporal(self, node: ast.Call, name: str) -> Any:
        self._require_scope(name, node.lineno)
        args = []
        for arg in node.args:
            number = _int_literal(arg)
            if number is None:
                raise reject(self.path, node.lineno, f"{name}(...) takes literal int arguments only")
            args.append(number)
        kwargs: dict[str, int] = {}
        for kw in node.keywords:
            number = _int_literal(kw.value) if kw.arg is not None else None
            if number is None or kw.arg is None:
                raise reject(self.path, node.lineno, f"{name}(...) takes literal int arguments only")
            if name == "timedelta" and kw.arg not in _TIMEDELTA_KEYWORDS:
                raise reject(self.path, node.lineno, f"timedelta(...) has no argument {kw.arg!r}")
            if kw.arg == "tzinfo" or kw.arg == "fold":
                raise reject(self.path, node.lineno, f"{name}(...): {kw.arg} is not supported")
            kwargs[kw.arg] = number
        try:
            return TEMPORAL[name](*args, **kwargs)
        except (ValueError, TypeError, OverflowError) as exc:
            raise reject(self.path, node.lineno, f"invalid {name}(...): {exc}") from None

    def _one_string(self, node: ast.Call, name: str, takes: str) -> str:
        """The one string literal of the call ``name(...)`` (in scope), else a rejection
        saying what the call ``takes``."""
        self._require_scope(name, node.lineno)
        if (
            node.keywords
            or len(node.args) != 1
            or type(node.args[0]) is not ast.Constant
            or type(node.args[0].value) is not str
        ):
            raise reject(self.path, node.lineno, f"{name}(...) takes one string literal, {takes}")
        return node.args[0].value

    def _period(self, node: ast.Call) -> Period:
        text = self._one_string(node, PERIOD_NAME, 'its stored form, e.g. Period("2023-05")')
        return period_literal(text, self.path, node.lineno)

    def _ref(self, node: ast.Call) -> Ref:
        text = self._one_string(node, REF_NAME, '"<domain>/<record id>", e.g. Ref("relationships/person-2")')
        return ref_literal(text, self.path, node.lineno)


def period_literal(code: str, path: str, line: int) -> Period:
    """The period a ``Period("...")`` literal names, or a rejection saying the forms."""
    try:
        period = parse_period(code) if len(code) <= 40 else None
    except ValueError:
        period = None
    if period is None:
        raise reject(
            path,
            line,
            f"Period({code[:40]!r}) is not a period; write YYYY-MM-DD, YYYY-MM, YYYY, YYYY-<season> or START/END",
        )
    return period


def ref_literal(code: str, path: str, line: int) -> Ref:
    """The reference a ``Ref("...")`` literal names, or a rejection saying the form."""
    try:
        parse_ref(code) if len(code) <= 80 else None
    except ValueError:
        pass
    else:
        if len(code) <= 80:
            return Ref(code)
    raise reject(
        path,
        line,
        f'Ref({code[:40]!r}) is not a reference; write "<domain>/<record id>", e.g. "relationships/person-2"',
    )


def _int_literal(node: ast.expr) -> int | None:
    """The value of ``123`` or ``-123`` (an int literal), else ``None``."""
    if type(node) is ast.Constant and type(node.value) is int:
        return node.value
    if (
        type(node) is ast.UnaryOp
        and isinstance(node.op, ast.USub)
        and type(node.operand) is ast.Constant
        and type(node.operand.value) is int
    ):
        return -node.operand.value
    return None


def _describe_deep(value: Any, spec: TypeSpec) -> str:
    if isinstance(value, list) and spec.kind == "list":
        bad = {describe(v) for v in value}
        return f"list of {'/'.join(sorted(bad))}" if bad else "list"
    return describe(value)


__all__ = ["StateInterpreter", "StateValue"]
