"""Layer 3a of validation: the libcst allowlist of ``schema.py``.

The whole module must be a docstring, imports from the allowlist
(:data:`.grammar.ALLOWED_IMPORTS`) and classes: each either a literal
``@dataclass`` / ``@dataclass(frozen=True)`` with annotated fields and literal
defaults (or ``field(default_factory=list|dict)``), or ``class X(Enum)`` with
literal members.  No bases, methods, metaclasses, lambdas or other calls.
libcst is imported only when a schema is checked.
"""

from __future__ import annotations

import threading
from typing import Any

from .grammar import ALLOWED_IMPORTS, check_identifier
from .problems import Problem

_IMPORT = threading.Lock()


def import_libcst() -> Any:
    """``libcst`` (with its metadata package), imported once under a lock: threads
    compiling domains side by side must not see a half-imported module."""
    with _IMPORT:
        import libcst
        import libcst.metadata  # noqa: F401

    return libcst


class _SchemaChecker:
    """The allowlist's checks over one parsed ``schema.py``; each problem found lands in :attr:`problems`."""

    def __init__(self, cst: Any, positions: Any, path: str) -> None:
        self.cst = cst
        self.positions = positions
        self.path = path
        self.problems: list[Problem] = []

    def line(self, node: Any) -> int:
        pos = self.positions.get(node)
        return pos.start.line if pos is not None else 0

    def bad(self, node: Any, message: str) -> None:
        self.problems.append(Problem(self.path, self.line(node), message))

    def is_name(self, node: Any, value: str) -> bool:
        cst = self.cst
        return isinstance(node, cst.Name) and node.value == value

    def literal(self, node: Any) -> bool:
        cst = self.cst
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return not (isinstance(node, cst.SimpleString) and "f" in node.prefix.lower())
        if isinstance(node, cst.ConcatenatedString):
            return self.literal(node.left) and self.literal(node.right)
        if isinstance(node, cst.Name):
            return node.value in ("None", "True", "False")
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float))
        if isinstance(node, cst.Tuple):
            return all(not isinstance(e, cst.StarredElement) and self.literal(e.value) for e in node.elements)
        return False

    def check_default(self, node: Any) -> None:
        cst = self.cst
        if self.literal(node):
            return
        if isinstance(node, cst.Call) and self.is_name(node.func, "field"):
            ok = (
                len(node.args) == 1
                and node.args[0].keyword is not None
                and node.args[0].keyword.value == "default_factory"
                and node.args[0].star == ""
                and isinstance(node.args[0].value, cst.Name)
                and node.args[0].value.value in ("list", "dict")
            )
            if not ok:
                self.bad(
                    node, "field(...) is only allowed as field(default_factory=list) or field(default_factory=dict)"
                )
            return
        if isinstance(node, cst.Lambda):
            self.bad(node, "lambdas are not allowed")
        elif isinstance(node, (cst.FormattedString,)):
            self.bad(node, "f-strings are not allowed")
        elif isinstance(node, cst.Call):
            self.bad(node, "calls are not allowed in defaults (only field(default_factory=list/dict))")
        elif isinstance(node, (cst.List, cst.Dict, cst.Set)):
            self.bad(
                node, "mutable defaults are not allowed; use field(default_factory=list) or field(default_factory=dict)"
            )
        else:
            self.bad(node, f"default must be a literal, not {type(node).__name__}")

    def check_decorators(self, node: Any) -> None:
        cst = self.cst
        if len(node.decorators) != 1:
            self.bad(node, f"class {node.name.value} needs exactly one decorator, a literal @dataclass")
            return
        deco = node.decorators[0].decorator
        if self.is_name(deco, "dataclass"):
            return
        if isinstance(deco, cst.Call) and self.is_name(deco.func, "dataclass"):
            args = deco.args
            if (
                len(args) == 1
                and args[0].keyword is not None
                and args[0].keyword.value == "frozen"
                and isinstance(args[0].value, cst.Name)
                and args[0].value.value == "True"
            ):
                return
        self.bad(deco, "only a literal @dataclass or @dataclass(frozen=True) decorator is allowed")

    def annotation_names(self, node: Any) -> None:
        cst = self.cst
        # annotations may only contain names, subscripts, `|`, None and `...`
        allowed = (
            cst.Name,
            cst.Subscript,
            cst.SubscriptElement,
            cst.Index,
            cst.BinaryOperation,
            cst.BitOr,
            cst.Ellipsis,
        )
        for child in _cst_walk(node, cst):
            if isinstance(child, cst.BinaryOperation) and not isinstance(child.operator, cst.BitOr):
                self.bad(child, "only `|` may combine types in an annotation")
            elif isinstance(child, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                self.bad(child, "string (forward-reference) annotations are not allowed; name the type directly")
            elif not isinstance(child, allowed) and not isinstance(
                child,
                (
                    cst.LeftSquareBracket,
                    cst.RightSquareBracket,
                    cst.Comma,
                    cst.SimpleWhitespace,
                    cst.ParenthesizedWhitespace,
                    cst.TrailingWhitespace,
                    cst.Newline,
                    cst.Comment,
                    cst.EmptyLine,
                    cst.LeftParen,
                    cst.RightParen,
                ),
            ):
                self.bad(child, f"{type(child).__name__} is not allowed in an annotation")

    def check_class(self, node: Any) -> None:
        cst = self.cst
        name = node.name.value
        problem = check_identifier(name, self.path, self.line(node), "class name")
        if problem:
            self.problems.append(problem)
        if node.keywords:
            self.bad(node, f"class {name}: keywords (metaclass=...) are not allowed")
        is_enum = len(node.bases) == 1 and self.is_name(node.bases[0].value, "Enum") and node.bases[0].keyword is None
        if node.bases and not is_enum:
            self.bad(node, f"class {name}: base classes are not allowed (only `class X(Enum)` for enums)")
        if is_enum:
            if node.decorators:
                self.bad(node, f"enum {name} must not be decorated")
        else:
            self.check_decorators(node)
        if not isinstance(node.body, cst.IndentedBlock):
            self.bad(node, f"class {name}: put each field on its own line")
            return
        for index, statement in enumerate(node.body.body):
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                what = type(statement).__name__
                if isinstance(statement, cst.FunctionDef):
                    what = f"method {statement.name.value}()"
                self.bad(statement, f"class {name}: only annotated fields are allowed in a class body, not {what}")
                continue
            small = statement.body[0]
            if (
                index == 0
                and isinstance(small, cst.Expr)
                and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
            ):
                continue
            if is_enum:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                    and isinstance(small.value, (cst.SimpleString, cst.Integer))
                    and not (isinstance(small.value, cst.SimpleString) and "f" in small.value.prefix.lower())
                ):
                    member = small.targets[0].target.value
                    problem = check_identifier(member, self.path, self.line(small), f"enum member {name}.")
                    if problem:
                        self.problems.append(problem)
                    continue
                self.bad(small, f'enum {name}: members must be `NAME = "literal"` or `NAME = 123`')
                continue
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                self.bad(
                    small,
                    f"class {name}: only annotated fields (`name: type = default`) are allowed, not {type(small).__name__}",
                )
                continue
            problem = check_identifier(small.target.value, self.path, self.line(small), f"field {name}.")
            if problem:
                self.problems.append(problem)
            self.annotation_names(small.annotation.annotation)
            if small.value is not None:
                self.check_default(small.value)

    def check_module(self, module: Any) -> None:
        cst = self.cst
        for index, statement in enumerate(module.body):
            if isinstance(statement, cst.ClassDef):
                self.check_class(statement)
                continue
            if not isinstance(statement, cst.SimpleStatementLine):
                self.bad(
                    statement,
                    f"only imports and class definitions are allowed at module level, not {type(statement).__name__}",
                )
                continue
            for small in statement.body:
                if (
                    index == 0
                    and isinstance(small, cst.Expr)
                    and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
                ):
                    continue
                if isinstance(small, cst.ImportFrom):
                    _cst_import_problems(small, self.bad, cst, allow_relative=False)
                    continue
                if isinstance(small, cst.Import):
                    self.bad(small, "`import module` is not allowed; use `from <allowed module> import <name>`")
                    continue
                self.bad(
                    small, f"only imports and class definitions are allowed at module level, not {type(small).__name__}"
                )


def cst_problems(text: str, path: str) -> list[Problem]:
    cst = import_libcst()
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError as exc:
        return [Problem(path, exc.raw_line, f"syntax error: {exc.message}")]
    checker = _SchemaChecker(cst, wrapper.resolve(PositionProvider), path)
    checker.check_module(wrapper.module)
    return checker.problems


def _cst_walk(node: Any, cst: Any):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _dotted(node: Any, cst: Any) -> str | None:
    """``a.b`` of a module name node (``None`` for anything else)."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = _dotted(node.value, cst)
        return None if head is None else f"{head}.{node.attr.value}"
    return None


def _cst_import_problems(node: Any, bad: Any, cst: Any, *, allow_relative: bool) -> None:
    if node.relative:
        if not allow_relative:
            bad(node, "relative imports are not allowed in schema.py")
        return
    module = node.module
    name = _dotted(module, cst)
    if name not in ALLOWED_IMPORTS:
        shown = cst.Module([]).code_for_node(module) if module is not None else "?"
        bad(node, f"import from {shown!r} is not allowed (allowed: {', '.join(sorted(ALLOWED_IMPORTS))})")
        return
    if isinstance(node.names, cst.ImportStar):
        bad(node, f"`from {name} import *` is not allowed")
        return
    for alias in node.names:
        if alias.asname is not None:
            bad(node, f"aliased import (`as`) is not allowed: {name}.{cst.Module([]).code_for_node(alias.name)}")
        elif not isinstance(alias.name, cst.Name) or alias.name.value not in ALLOWED_IMPORTS[name]:
            bad(
                node,
                f"`{cst.Module([]).code_for_node(alias.name)}` may not be imported from {name} (allowed: {', '.join(sorted(ALLOWED_IMPORTS[name]))})",
            )


__all__ = ["cst_problems"]
