"""Validation of generated code: it is never imported or executed.

Three layers, cheapest first:

1. :mod:`.precheck` works on the raw text before any parser sees it (size,
   encoding, NUL, ``coding`` lines, non-ASCII outside strings, bracket depth).
2. :mod:`.syntax`: ``ast.parse`` (parser overflow and recursion errors
   become rejections), a syntax-tree depth and node-count limit.
3. For ``schema.py``: the libcst allowlist of the whole grammar
   (:mod:`.schema_allowlist`), then extraction into a :class:`SchemaSpec`
   with type and default checks (here).  ``state.py`` is checked statement
   by statement by the literal interpreter (:mod:`.interpret`), which
   refuses every construct outside its grammar.

:func:`validate_schema` runs the three layers on ``schema.py``;
:func:`check_init` checks a domain's ``__init__.py``.  Every problem is
reported as ``path:line: message``.
"""

from __future__ import annotations

import ast
import hashlib
from collections import OrderedDict
from typing import Any

from . import limits
from .grammar import RESERVED_NAMES, imported_names
from .precheck import precheck
from .problems import CodeRejected, Problem
from .schema_allowlist import cst_problems
from .spec import ClassSpec, FieldSpec, SchemaSpec
from .syntax import check_tree_size, parse_python
from .types import AnnotationError, Mismatch, TypeSpec, check_value, parse_annotation


def _literal_default(node: ast.expr) -> tuple[bool, Any]:
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes) and node.value is not Ellipsis:
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        number = node.operand.value
        if type(number) is int or type(number) is float:
            return True, -number
    if isinstance(node, ast.Tuple):
        items = [_literal_default(e) for e in node.elts]
        if all(ok for ok, _ in items):
            return True, tuple(v for _, v in items)
    return False, None


#: schema sources that passed validation (sha256 -> spec); a schema rarely changes
#: while a domain is rewritten batch after batch, and validation is a pure function
_VALID: "OrderedDict[bytes, SchemaSpec]" = OrderedDict()
_VALID_SIZE = 64


def validate_schema(data: bytes | str, path: str = "schema.py") -> SchemaSpec:
    """Validate a ``schema.py`` source and return its :class:`SchemaSpec`."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    key = hashlib.sha256(raw).digest()
    known = _VALID.get(key)
    if known is not None:
        return known
    text = precheck(raw, path, max_bytes=limits.MAX_SCHEMA_BYTES)
    tree = parse_python(text, path)
    check_tree_size(tree, path, max_depth=limits.MAX_TREE_DEPTH, max_nodes=limits.MAX_SCHEMA_NODES)
    problems = cst_problems(text, path)
    if problems:
        raise CodeRejected(problems)
    spec = _extract_schema(tree, path)
    _VALID[key] = spec
    while len(_VALID) > _VALID_SIZE:
        _VALID.popitem(last=False)
    return spec


def _split_doc(statements: list[ast.stmt]) -> tuple[str, list[ast.stmt]]:
    """The docstring of a module's or class's body ("" if none), and the statements after it."""
    body = list(statements)
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first.value.value, body[1:]
    return "", body


def _extract_schema(tree: ast.Module, path: str) -> SchemaSpec:
    problems: list[Problem] = []
    doc, body = _split_doc(tree.body)
    imports: list[str] = []
    class_nodes: list[ast.ClassDef] = []
    for statement in body:
        if isinstance(statement, ast.ImportFrom):
            imports.extend(imported_names(statement, path, problems))
        elif isinstance(statement, ast.ClassDef):
            class_nodes.append(statement)
        else:
            problems.append(
                Problem(path, statement.lineno, f"{type(statement).__name__} is not allowed at module level")
            )
    if len(class_nodes) > limits.MAX_CLASSES:
        problems.append(Problem(path, 0, f"more than {limits.MAX_CLASSES} classes"))
    future = "annotations" in imports
    class_names: set[str] = set()
    for node in class_nodes:
        if node.name in class_names:
            problems.append(Problem(path, node.lineno, f"class {node.name} is defined twice"))
        if node.name in RESERVED_NAMES or node.name in imports:
            problems.append(Problem(path, node.lineno, f"class name {node.name!r} rebinds an allowed name"))
        class_names.add(node.name)
    for name in imports:
        if imports.count(name) > 1:
            problems.append(Problem(path, 0, f"{name!r} is imported twice"))
            break
    names = set(imports)
    classes: list[ClassSpec] = []
    for node in class_nodes:
        classes.append(_extract_class(node, path, problems, class_names, names, future))
    if problems:
        raise CodeRejected(problems)
    spec = SchemaSpec(tuple(classes), doc, tuple(imports))
    _check_references(spec, class_nodes, path)
    return spec


def _extract_class(
    node: ast.ClassDef, path: str, problems: list[Problem], class_names: set[str], names: set[str], future: bool
) -> ClassSpec:
    doc, body = _split_doc(node.body)
    is_enum = len(node.bases) == 1 and isinstance(node.bases[0], ast.Name) and node.bases[0].id == "Enum"
    if is_enum:
        return _enum_class(node, body, doc, path, problems, names)
    frozen = _dataclass_decorator(node, path, problems, names)
    fields = _dataclass_fields(node, body, path, problems, class_names, names, future)
    return ClassSpec(node.name, "dataclass", tuple(fields), frozen=frozen, doc=doc)


def _enum_class(
    node: ast.ClassDef, body: list[ast.stmt], doc: str, path: str, problems: list[Problem], names: set[str]
) -> ClassSpec:
    if "Enum" not in names:
        problems.append(Problem(path, node.lineno, "Enum is used but not imported from enum"))
    members: list[tuple[str, Any]] = []
    for statement in body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Constant)
            and type(statement.value.value) in (str, int)
        ):
            problems.append(
                Problem(
                    path,
                    getattr(statement, "lineno", node.lineno),
                    f"enum {node.name}: members must be `NAME = literal`",
                )
            )
            continue
        member = statement.targets[0].id
        if any(m == member for m, _ in members):
            problems.append(Problem(path, statement.lineno, f"enum {node.name}: member {member} defined twice"))
        if any(v == statement.value.value for _, v in members):
            problems.append(
                Problem(path, statement.lineno, f"enum {node.name}: value {statement.value.value!r} used twice")
            )
        members.append((member, statement.value.value))
    if not members:
        problems.append(Problem(path, node.lineno, f"enum {node.name} has no members"))
    return ClassSpec(node.name, "enum", members=tuple(members), doc=doc)


def _dataclass_decorator(node: ast.ClassDef, path: str, problems: list[Problem], names: set[str]) -> bool:
    """Check the class's bases and its one ``@dataclass`` decorator; is it frozen?"""
    if node.bases or node.keywords:
        problems.append(Problem(path, node.lineno, f"class {node.name}: no base classes or keywords allowed"))
    frozen = False
    if len(node.decorator_list) != 1:
        problems.append(Problem(path, node.lineno, f"class {node.name} needs exactly one @dataclass decorator"))
    else:
        deco = node.decorator_list[0]
        if isinstance(deco, ast.Call):
            frozen = True
            deco = deco.func
        if not (isinstance(deco, ast.Name) and deco.id == "dataclass"):
            problems.append(Problem(path, node.lineno, f"class {node.name}: only @dataclass is allowed as decorator"))
        elif "dataclass" not in names:
            problems.append(Problem(path, node.lineno, "dataclass is used but not imported from dataclasses"))
    return frozen


def _factory_field(
    where: str,
    name: str,
    value: ast.Call,
    spec: TypeSpec,
    field_imported: bool,
    at: tuple[str, int],
    problems: list[Problem],
) -> FieldSpec | None:
    """A field whose default is ``field(default_factory=list)`` or ``dict``, or None (a problem said)."""
    path, line = at
    factory = value.keywords[0].value.id if value.keywords and isinstance(value.keywords[0].value, ast.Name) else ""
    if factory not in ("list", "dict") or not field_imported:
        problems.append(Problem(path, line, f"{where}: only field(default_factory=list/dict) is allowed"))
        return None
    if spec.kind != factory and not (spec.kind == "union" and any(a.kind == factory for a in spec.args)):
        problems.append(Problem(path, line, f"{where}: default_factory={factory} does not match {spec.source()}"))
    return FieldSpec(name, spec, factory)


def _dataclass_fields(
    node: ast.ClassDef,
    body: list[ast.stmt],
    path: str,
    problems: list[Problem],
    class_names: set[str],
    names: set[str],
    future: bool,
) -> list[FieldSpec]:
    fields: list[FieldSpec] = []
    seen_default = None
    shadow = {"field", "dataclass", "Enum"} | class_names | (set() if future else RESERVED_NAMES)
    if len(body) > limits.MAX_FIELDS:
        problems.append(Problem(path, node.lineno, f"class {node.name} has more than {limits.MAX_FIELDS} fields"))
    for statement in body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            problems.append(
                Problem(
                    path,
                    getattr(statement, "lineno", node.lineno),
                    f"class {node.name}: only annotated fields are allowed",
                )
            )
            continue
        name = statement.target.id
        line = statement.lineno
        if name in shadow:
            hint = "" if future else " (add `from __future__ import annotations` to use this field name)"
            problems.append(Problem(path, line, f"field {node.name}.{name} rebinds an allowed name{hint}"))
        if any(f.name == name for f in fields):
            problems.append(Problem(path, line, f"field {node.name}.{name} defined twice"))
        try:
            spec = parse_annotation(statement.annotation, class_names, names)
        except AnnotationError as exc:
            problems.append(Problem(path, getattr(exc.node, "lineno", line), f"{node.name}.{name}: {exc}"))
            continue
        value = statement.value
        if value is None:
            if seen_default is not None:
                problems.append(
                    Problem(path, line, f"{node.name}.{name} has no default but follows {seen_default}, which has one")
                )
            fields.append(FieldSpec(name, spec))
            continue
        if seen_default is None:
            seen_default = f"{node.name}.{name}"
        if isinstance(value, ast.Call):
            made = _factory_field(f"{node.name}.{name}", name, value, spec, "field" in names, (path, line), problems)
            if made is not None:
                fields.append(made)
            continue
        ok, default = _literal_default(value)
        if not ok:
            problems.append(Problem(path, line, f"{node.name}.{name}: default must be a literal"))
            continue
        if spec.class_names():
            ok_type = default is None and spec.optional
        else:
            try:
                default = check_value(default, spec, {}, f"{node.name}.{name} default")
                ok_type = True
            except Mismatch as exc:
                problems.append(Problem(path, line, str(exc)))
                continue
        if not ok_type:
            problems.append(
                Problem(path, line, f"{node.name}.{name}: default {default!r} does not match {spec.source()}")
            )
            continue
        fields.append(FieldSpec(name, spec, "value", default))
    return fields


def _check_references(spec: SchemaSpec, nodes: list[ast.ClassDef], path: str) -> None:
    """Classes may refer to classes defined before them (or themselves via Optional/list)."""
    problems = []
    order = {c.name: i for i, c in enumerate(spec.classes)}
    for index, cls in enumerate(spec.classes):
        for f in cls.fields:
            for ref in f.type.class_names():
                if order[ref] > index:
                    problems.append(
                        Problem(
                            path,
                            nodes[index].lineno,
                            f"{cls.name}.{f.name} refers to {ref}, which is defined later; define {ref} first",
                        )
                    )
                elif order[ref] == index:
                    problems.append(Problem(path, nodes[index].lineno, f"{cls.name}.{f.name} refers to its own class"))
    if problems:
        raise CodeRejected(problems)


def check_init(name: str, data: bytes, label: str) -> None:
    """``__init__.py`` may hold a docstring and ``from .schema|.state import ...`` only."""
    path = f"{label}/__init__.py"
    text = precheck(data, path, max_bytes=limits.MAX_SCHEMA_BYTES)
    tree = parse_python(text, path)
    for index, statement in enumerate(tree.body):
        if (
            index == 0
            and isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        ):
            continue
        if (
            isinstance(statement, ast.ImportFrom)
            and statement.level == 1
            and statement.module in ("schema", "state")
            and all(a.asname is None and a.name != "*" and not a.name.startswith("_") for a in statement.names)
        ):
            continue
        raise CodeRejected(
            [
                Problem(
                    path,
                    getattr(statement, "lineno", 0),
                    "__init__.py may only hold a docstring and `from .schema/.state import ...`",
                )
            ]
        )


__all__ = ["check_init", "validate_schema"]
