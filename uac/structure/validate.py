"""Validation of generated code: it is never imported or executed.

Three layers, cheapest first:

1. :func:`precheck` works on the raw text before any parser sees it: size
   limit, UTF-8 only, no NUL, no byte-order mark, no ``coding`` declaration,
   no non-ASCII character outside string literals and comments (so Unicode
   look-alikes and NFKC-normalised identifiers never reach the parser), and
   the bracket nesting depth measured on the text (nesting bombs are refused
   before ``ast.parse`` could recurse on them).
2. ``ast.parse`` (parser overflow and recursion errors become rejections),
   a syntax-tree depth and node-count limit.
3. For ``schema.py``: a libcst allowlist of the whole grammar
   (:func:`_cst_problems`), then extraction into a :class:`SchemaSpec`
   with type and default checks.  ``state.py`` is checked statement by
   statement by the literal interpreter (:mod:`uac.structure.interpret`),
   which refuses every construct outside its grammar.

Every problem is reported as ``path:line: message``.
"""

from __future__ import annotations

import ast
import keyword
import re
from dataclasses import dataclass
from typing import Any

from ..errors import CompileError
from . import limits
from .spec import ClassSpec, FieldSpec, SchemaSpec
from .types import SCALARS, TEMPORAL, AnnotationError, Mismatch, check_value, parse_annotation

#: module -> names that may be imported from it (never with ``as``)
ALLOWED_IMPORTS: dict[str, frozenset[str]] = {
    "__future__": frozenset({"annotations"}),
    "dataclasses": frozenset({"dataclass", "field"}),
    "datetime": frozenset(TEMPORAL),
    "typing": frozenset({"Optional", "Any", "Union", "List", "Dict", "Tuple", "Set"}),
    "enum": frozenset({"Enum"}),
}
#: names generated code may never bind (imports, builtins used in annotations)
RESERVED_NAMES = (
    frozenset().union(*ALLOWED_IMPORTS.values())
    | frozenset(SCALARS)
    | frozenset({"list", "dict", "tuple", "set", "None", "True", "False", "object", "type"})
)


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


class CodeRejected(CompileError):
    """Generated code failed validation; ``problems`` lists every finding."""

    def __init__(self, problems: list[Problem], *, hint: str | None = None) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:8])
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        super().__init__(f"generated code rejected: {shown}{more}.", hint=hint)


def reject(path: str, line: int, message: str) -> CodeRejected:
    return CodeRejected([Problem(path, line, message)])


# --- layer 1: the raw text ------------------------------------------------------

_STRINGS_AND_COMMENTS = re.compile(
    r"""(?:[rRbBuUfF]{0,2})(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S])*')|\#[^\n]*"""
)
_NOT_BRACKETS = re.compile(r"[^\[\](){}]+")
_INNERMOST = re.compile(r"\(\)|\[\]|\{\}")
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def precheck(data: bytes | str, path: str, *, max_bytes: int) -> str:
    """Check the raw text and return it decoded; raises :class:`CodeRejected`."""
    return precheck_split(data, path, max_bytes=max_bytes)[0]


def precheck_split(data: bytes | str, path: str, *, max_bytes: int, depth: bool = True) -> tuple[str, str, list[str]]:
    """:func:`precheck`, returning ``(text, code, strings)``: the code has each
    string literal replaced by NUL and comments removed (see :mod:`.fastload`).

    ``depth=False`` leaves the bracket-depth check to the caller, which must
    run :func:`check_depth` before handing the text to any parser."""
    from .fastload import split_code

    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise reject(path, 0, f"file is {size:,} bytes; the limit is {max_bytes:,}")
    if isinstance(data, bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            raise reject(path, 1, "byte-order mark not allowed (plain UTF-8 only)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise reject(path, data.count(b"\n", 0, exc.start) + 1, f"not valid UTF-8 (byte {exc.start})") from None
    else:
        text = data
        if text.startswith("\ufeff"):
            raise reject(path, 1, "byte-order mark not allowed (plain UTF-8 only)")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise reject(path, _line_of(text, exc.start), "not encodable as UTF-8 (lone surrogate)") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise reject(path, _line_of(text, nul), "NUL character not allowed")
    coding = _CODING.search(text)
    if coding:
        raise reject(path, _line_of(text, coding.start()), "encoding declarations ('# coding:' / '-*- coding') are not allowed")
    code, strings = split_code(text)
    if not code.isascii():
        lined = _STRINGS_AND_COMMENTS.sub(_blank, text)  # keeps line numbers, for the message
        odd = _NON_ASCII.search(lined)
        assert odd is not None
        raise reject(
            path,
            _line_of(lined, odd.start()),
            f"non-ASCII character {odd.group()!r} (U+{ord(odd.group()):04X}) outside a string: identifiers must be ASCII",
        )
    if depth:
        check_depth(text, code, path)
    return text, code, strings


def check_depth(text: str, code: str, path: str) -> None:
    """The bracket-depth limit on ``code`` (line numbers of a failure from ``text``)."""
    try:
        _check_bracket_depth(code, path)
    except CodeRejected:
        _check_bracket_depth(_STRINGS_AND_COMMENTS.sub(_blank, text), path)
        raise


def _blank(match: re.Match[str]) -> str:
    # keep line numbers: a string or comment becomes its newlines only
    return '""' + "\n" * match.group().count("\n") if not match.group().startswith("#") else ""


def _check_bracket_depth(code: str, path: str) -> None:
    brackets = _NOT_BRACKETS.sub("", code)
    for _depth in range(limits.MAX_BRACKET_DEPTH + 1):
        if not brackets:
            return
        reduced = _INNERMOST.sub("", brackets)
        if reduced == brackets:
            raise reject(path, 0, "unbalanced or mismatched brackets")
        brackets = reduced
    if brackets:
        first = _first_deep_line(code)
        raise reject(path, first, f"brackets nested deeper than {limits.MAX_BRACKET_DEPTH} levels")


def _first_deep_line(code: str) -> int:
    depth = 0
    line = 1
    for char in code:
        if char == "\n":
            line += 1
        elif char in "([{":
            depth += 1
            if depth > limits.MAX_BRACKET_DEPTH:
                return line
        elif char in ")]}":
            depth -= 1
    return 0


# --- layer 2: the syntax tree ----------------------------------------------------


def parse_python(text: str, path: str) -> ast.Module:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of generated text are not ours to print
            return ast.parse(text, filename=path)
    except SyntaxError as exc:
        raise reject(path, exc.lineno or 0, f"syntax error: {exc.msg}") from None
    except (MemoryError, RecursionError):
        raise reject(path, 0, "source too deeply nested for the parser") from None


def check_tree_size(tree: ast.AST, path: str, *, max_depth: int, max_nodes: int) -> None:
    """Iterative depth and node-count check (no recursion on hostile trees)."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > max_nodes:
            raise reject(path, 0, f"more than {max_nodes:,} syntax nodes")
        if depth > max_depth:
            raise reject(path, getattr(node, "lineno", 0), f"syntax tree deeper than {max_depth} levels")
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1))


def check_identifier(name: str, path: str, line: int, what: str) -> Problem | None:
    if not name.isascii() or not name.isidentifier():
        return Problem(path, line, f"{what} {name!r} is not an ASCII identifier")
    if name.startswith("_"):
        return Problem(path, line, f"{what} {name!r} starts with an underscore")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return Problem(path, line, f"{what} {name!r} is a Python keyword")
    return None


# --- layer 3a: libcst allowlist for schema.py --------------------------------------


def _cst_problems(text: str, path: str) -> list[Problem]:
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError as exc:
        return [Problem(path, exc.raw_line, f"syntax error: {exc.message}")]
    positions = wrapper.resolve(PositionProvider)
    module = wrapper.module
    problems: list[Problem] = []

    def line(node: Any) -> int:
        pos = positions.get(node)
        return pos.start.line if pos is not None else 0

    def bad(node: Any, message: str) -> None:
        problems.append(Problem(path, line(node), message))

    def is_name(node: Any, value: str) -> bool:
        return isinstance(node, cst.Name) and node.value == value

    def literal(node: Any) -> bool:
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
            return not (isinstance(node, cst.SimpleString) and "f" in node.prefix.lower())
        if isinstance(node, cst.ConcatenatedString):
            return literal(node.left) and literal(node.right)
        if isinstance(node, cst.Name):
            return node.value in ("None", "True", "False")
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float))
        if isinstance(node, cst.Tuple):
            return all(not isinstance(e, cst.StarredElement) and literal(e.value) for e in node.elements)
        return False

    def check_default(node: Any) -> None:
        if literal(node):
            return
        if isinstance(node, cst.Call) and is_name(node.func, "field"):
            ok = (
                len(node.args) == 1
                and node.args[0].keyword is not None
                and node.args[0].keyword.value == "default_factory"
                and node.args[0].star == ""
                and isinstance(node.args[0].value, cst.Name)
                and node.args[0].value.value in ("list", "dict")
            )
            if not ok:
                bad(node, "field(...) is only allowed as field(default_factory=list) or field(default_factory=dict)")
            return
        if isinstance(node, cst.Lambda):
            bad(node, "lambdas are not allowed")
        elif isinstance(node, (cst.FormattedString,)):
            bad(node, "f-strings are not allowed")
        elif isinstance(node, cst.Call):
            bad(node, "calls are not allowed in defaults (only field(default_factory=list/dict))")
        elif isinstance(node, (cst.List, cst.Dict, cst.Set)):
            bad(node, "mutable defaults are not allowed; use field(default_factory=list) or field(default_factory=dict)")
        else:
            bad(node, f"default must be a literal, not {type(node).__name__}")

    def check_decorators(node: Any) -> None:
        if len(node.decorators) != 1:
            bad(node, f"class {node.name.value} needs exactly one decorator, a literal @dataclass")
            return
        deco = node.decorators[0].decorator
        if is_name(deco, "dataclass"):
            return
        if isinstance(deco, cst.Call) and is_name(deco.func, "dataclass"):
            args = deco.args
            if (
                len(args) == 1
                and args[0].keyword is not None
                and args[0].keyword.value == "frozen"
                and isinstance(args[0].value, cst.Name)
                and args[0].value.value == "True"
            ):
                return
        bad(deco, "only a literal @dataclass or @dataclass(frozen=True) decorator is allowed")

    def annotation_names(node: Any) -> None:
        # annotations may only contain names, subscripts, `|`, None and `...`
        allowed = (cst.Name, cst.Subscript, cst.SubscriptElement, cst.Index, cst.BinaryOperation, cst.BitOr, cst.Ellipsis)
        for child in _cst_walk(node, cst):
            if isinstance(child, cst.BinaryOperation) and not isinstance(child.operator, cst.BitOr):
                bad(child, "only `|` may combine types in an annotation")
            elif isinstance(child, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                bad(child, "string (forward-reference) annotations are not allowed; name the type directly")
            elif not isinstance(child, allowed) and not isinstance(child, (cst.LeftSquareBracket, cst.RightSquareBracket, cst.Comma, cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline, cst.Comment, cst.EmptyLine, cst.LeftParen, cst.RightParen)):
                bad(child, f"{type(child).__name__} is not allowed in an annotation")

    def check_class(node: Any) -> None:
        name = node.name.value
        problem = check_identifier(name, path, line(node), "class name")
        if problem:
            problems.append(problem)
        if node.keywords:
            bad(node, f"class {name}: keywords (metaclass=...) are not allowed")
        is_enum = len(node.bases) == 1 and is_name(node.bases[0].value, "Enum") and node.bases[0].keyword is None
        if node.bases and not is_enum:
            bad(node, f"class {name}: base classes are not allowed (only `class X(Enum)` for enums)")
        if is_enum:
            if node.decorators:
                bad(node, f"enum {name} must not be decorated")
        else:
            check_decorators(node)
        if not isinstance(node.body, cst.IndentedBlock):
            bad(node, f"class {name}: put each field on its own line")
            return
        for index, statement in enumerate(node.body.body):
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                what = type(statement).__name__
                if isinstance(statement, cst.FunctionDef):
                    what = f"method {statement.name.value}()"
                bad(statement, f"class {name}: only annotated fields are allowed in a class body, not {what}")
                continue
            small = statement.body[0]
            if index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
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
                    problem = check_identifier(member, path, line(small), f"enum member {name}.")
                    if problem:
                        problems.append(problem)
                    continue
                bad(small, f"enum {name}: members must be `NAME = \"literal\"` or `NAME = 123`")
                continue
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                bad(small, f"class {name}: only annotated fields (`name: type = default`) are allowed, not {type(small).__name__}")
                continue
            problem = check_identifier(small.target.value, path, line(small), f"field {name}.")
            if problem:
                problems.append(problem)
            annotation_names(small.annotation.annotation)
            if small.value is not None:
                check_default(small.value)

    for index, statement in enumerate(module.body):
        if isinstance(statement, cst.ClassDef):
            check_class(statement)
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            bad(statement, f"only imports and class definitions are allowed at module level, not {type(statement).__name__}")
            continue
        for small in statement.body:
            if index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue
            if isinstance(small, cst.ImportFrom):
                _cst_import_problems(small, bad, cst, allow_relative=False)
                continue
            if isinstance(small, cst.Import):
                bad(small, "`import module` is not allowed; use `from <allowed module> import <name>`")
                continue
            bad(small, f"only imports and class definitions are allowed at module level, not {type(small).__name__}")
    return problems


def _cst_walk(node: Any, cst: Any):
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _cst_import_problems(node: Any, bad: Any, cst: Any, *, allow_relative: bool) -> None:
    if node.relative:
        if not allow_relative:
            bad(node, "relative imports are not allowed in schema.py")
        return
    module = node.module
    name = module.value if isinstance(module, cst.Name) else None
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
            bad(node, f"`{cst.Module([]).code_for_node(alias.name)}` may not be imported from {name} (allowed: {', '.join(sorted(ALLOWED_IMPORTS[name]))})")


# --- layer 3b: extraction of the schema --------------------------------------------


def imported_names(statement: ast.ImportFrom, path: str, problems: list[Problem], *, schema_classes: set[str] | None = None) -> list[str]:
    """Check one ``from X import a, b`` (ast) and return the bound names."""
    if statement.level:
        if schema_classes is None or statement.level != 1 or statement.module != "schema":
            problems.append(Problem(path, statement.lineno, "the only relative import allowed is `from .schema import ...` in state.py"))
            return []
        allowed = schema_classes
        module = ".schema"
    else:
        module = statement.module or ""
        if module not in ALLOWED_IMPORTS:
            problems.append(Problem(path, statement.lineno, f"import from {module!r} is not allowed (allowed: {', '.join(sorted(ALLOWED_IMPORTS))})"))
            return []
        allowed = ALLOWED_IMPORTS[module]
    names = []
    for alias in statement.names:
        if alias.asname is not None:
            problems.append(Problem(path, statement.lineno, f"aliased import (`as`) is not allowed: {module}.{alias.name} as {alias.asname}"))
        elif alias.name not in allowed:
            problems.append(Problem(path, statement.lineno, f"`{alias.name}` may not be imported from {module}"))
        else:
            names.append(alias.name)
    return names


def _literal_default(node: ast.expr) -> tuple[bool, Any]:
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes) and node.value is not Ellipsis:
        return True, node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        if type(node.operand.value) in (int, float):
            return True, -node.operand.value
    if isinstance(node, ast.Tuple):
        items = [_literal_default(e) for e in node.elts]
        if all(ok for ok, _ in items):
            return True, tuple(v for _, v in items)
    return False, None


def validate_schema(data: bytes | str, path: str = "schema.py") -> SchemaSpec:
    """Validate a ``schema.py`` source and return its :class:`SchemaSpec`."""
    text = precheck(data, path, max_bytes=limits.MAX_SCHEMA_BYTES)
    tree = parse_python(text, path)
    check_tree_size(tree, path, max_depth=limits.MAX_TREE_DEPTH, max_nodes=limits.MAX_SCHEMA_NODES)
    problems = _cst_problems(text, path)
    if problems:
        raise CodeRejected(problems)
    return _extract_schema(tree, path)


def _extract_schema(tree: ast.Module, path: str) -> SchemaSpec:
    problems: list[Problem] = []
    body = list(tree.body)
    doc = ""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        doc = body.pop(0).value.value
    imports: list[str] = []
    class_nodes: list[ast.ClassDef] = []
    for statement in body:
        if isinstance(statement, ast.ImportFrom):
            imports.extend(imported_names(statement, path, problems))
        elif isinstance(statement, ast.ClassDef):
            class_nodes.append(statement)
        else:
            problems.append(Problem(path, statement.lineno, f"{type(statement).__name__} is not allowed at module level"))
    if len(class_nodes) > limits.MAX_CLASSES:
        problems.append(Problem(path, 0, f"more than {limits.MAX_CLASSES} classes"))
    future = "annotations" in imports
    class_names: set[str] = set()
    for node in class_nodes:
        if node.name in class_names:
            problems.append(Problem(path, node.lineno, f"class {node.name} is defined twice"))
        if node.name in RESERVED_NAMES:
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


def _extract_class(node: ast.ClassDef, path: str, problems: list[Problem], class_names: set[str], names: set[str], future: bool) -> ClassSpec:
    body = list(node.body)
    doc = ""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        doc = body.pop(0).value.value
    is_enum = len(node.bases) == 1 and isinstance(node.bases[0], ast.Name) and node.bases[0].id == "Enum"
    if is_enum:
        if "Enum" not in names:
            problems.append(Problem(path, node.lineno, "Enum is used but not imported from enum"))
        members: list[tuple[str, Any]] = []
        for statement in body:
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Constant) and type(statement.value.value) in (str, int)):
                problems.append(Problem(path, getattr(statement, "lineno", node.lineno), f"enum {node.name}: members must be `NAME = literal`"))
                continue
            member = statement.targets[0].id
            if any(m == member for m, _ in members):
                problems.append(Problem(path, statement.lineno, f"enum {node.name}: member {member} defined twice"))
            if any(v == statement.value.value for _, v in members):
                problems.append(Problem(path, statement.lineno, f"enum {node.name}: value {statement.value.value!r} used twice"))
            members.append((member, statement.value.value))
        if not members:
            problems.append(Problem(path, node.lineno, f"enum {node.name} has no members"))
        return ClassSpec(node.name, "enum", members=tuple(members), doc=doc)
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
    fields: list[FieldSpec] = []
    seen_default = None
    shadow = {"field", "dataclass", "Enum"} | class_names | (set() if future else RESERVED_NAMES)
    if len(body) > limits.MAX_FIELDS:
        problems.append(Problem(path, node.lineno, f"class {node.name} has more than {limits.MAX_FIELDS} fields"))
    for statement in body:
        if not (isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name)):
            problems.append(Problem(path, getattr(statement, "lineno", node.lineno), f"class {node.name}: only annotated fields are allowed"))
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
                problems.append(Problem(path, line, f"{node.name}.{name} has no default but follows {seen_default}, which has one"))
            fields.append(FieldSpec(name, spec))
            continue
        if seen_default is None:
            seen_default = f"{node.name}.{name}"
        if isinstance(value, ast.Call):
            factory = value.keywords[0].value.id if value.keywords and isinstance(value.keywords[0].value, ast.Name) else ""
            if factory not in ("list", "dict") or "field" not in names:
                problems.append(Problem(path, line, f"{node.name}.{name}: only field(default_factory=list/dict) is allowed"))
                continue
            if spec.kind != factory and not (spec.kind == "union" and any(a.kind == factory for a in spec.args)):
                problems.append(Problem(path, line, f"{node.name}.{name}: default_factory={factory} does not match {spec.source()}"))
            fields.append(FieldSpec(name, spec, factory))
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
            problems.append(Problem(path, line, f"{node.name}.{name}: default {default!r} does not match {spec.source()}"))
            continue
        fields.append(FieldSpec(name, spec, "value", default))
    return ClassSpec(node.name, "dataclass", tuple(fields), frozen=frozen, doc=doc)


def _check_references(spec: SchemaSpec, nodes: list[ast.ClassDef], path: str) -> None:
    """Classes may refer to classes defined before them (or themselves via Optional/list)."""
    problems = []
    order = {c.name: i for i, c in enumerate(spec.classes)}
    for index, cls in enumerate(spec.classes):
        for f in cls.fields:
            for ref in f.type.class_names():
                if order[ref] > index:
                    problems.append(Problem(path, nodes[index].lineno, f"{cls.name}.{f.name} refers to {ref}, which is defined later; define {ref} first"))
                elif order[ref] == index:
                    problems.append(Problem(path, nodes[index].lineno, f"{cls.name}.{f.name} refers to its own class"))
    if problems:
        raise CodeRejected(problems)


__all__ = [
    "ALLOWED_IMPORTS",
    "CodeRejected",
    "Problem",
    "RESERVED_NAMES",
    "check_identifier",
    "parse_python",
    "precheck",
    "validate_schema",
]
