"""The names of the dialect: what generated code may import and bind.

Shared by the ``schema.py`` validator (:mod:`.validate`) and the ``state.py``
literal interpreter (:mod:`.interpret`): the import allowlist, the reserved
names, the identifier rule (ASCII, no leading underscore, no keyword) and the
check of one ``from X import a, b`` statement.
"""

from __future__ import annotations

import ast
import keyword
from collections.abc import Set as AbstractSet

from .problems import Problem
from .types import PERIOD_MODULE, PERIOD_NAME, REF_MODULE, REF_NAME, SCALARS, TEMPORAL

#: module -> names that may be imported from it (never with ``as``)
ALLOWED_IMPORTS: dict[str, frozenset[str]] = {
    "__future__": frozenset({"annotations"}),
    "dataclasses": frozenset({"dataclass", "field"}),
    "datetime": frozenset(TEMPORAL),
    "typing": frozenset({"Optional", "Any", "Union", "List", "Dict", "Tuple", "Set"}),
    "enum": frozenset({"Enum"}),
    PERIOD_MODULE: frozenset({PERIOD_NAME}),
    REF_MODULE: frozenset({REF_NAME}),
}
#: names generated code may never bind (imports, builtins used in annotations);
#: ``Period`` is not among them, so a schema written before it was a type, with
#: its own class ``Period``, still loads (it cannot also import the type); ``Ref`` likewise
RESERVED_NAMES = (
    frozenset().union(
        *(names for module, names in ALLOWED_IMPORTS.items() if module not in (PERIOD_MODULE, REF_MODULE))
    )
    | frozenset(SCALARS)
    | frozenset({"list", "dict", "tuple", "set", "None", "True", "False", "object", "type"})
)


def check_identifier(name: str, path: str, line: int, what: str) -> Problem | None:
    if not name.isascii() or not name.isidentifier():
        return Problem(path, line, f"{what} {name!r} is not an ASCII identifier")
    if name.startswith("_"):
        return Problem(path, line, f"{what} {name!r} starts with an underscore")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        return Problem(path, line, f"{what} {name!r} is a Python keyword")
    return None


def imported_names(
    statement: ast.ImportFrom, path: str, problems: list[Problem], *, schema_classes: set[str] | None = None
) -> list[str]:
    """Check one ``from X import a, b`` (ast) and return the bound names."""
    if statement.level:
        if schema_classes is None or statement.level != 1 or statement.module != "schema":
            problems.append(
                Problem(
                    path, statement.lineno, "the only relative import allowed is `from .schema import ...` in state.py"
                )
            )
            return []
        allowed: AbstractSet[str] = schema_classes
        module = ".schema"
    else:
        module = statement.module or ""
        if module not in ALLOWED_IMPORTS:
            problems.append(
                Problem(
                    path,
                    statement.lineno,
                    f"import from {module!r} is not allowed (allowed: {', '.join(sorted(ALLOWED_IMPORTS))})",
                )
            )
            return []
        allowed = ALLOWED_IMPORTS[module]
    names = []
    for alias in statement.names:
        if alias.asname is not None:
            problems.append(
                Problem(
                    path,
                    statement.lineno,
                    f"aliased import (`as`) is not allowed: {module}.{alias.name} as {alias.asname}",
                )
            )
        elif alias.name not in allowed:
            problems.append(Problem(path, statement.lineno, f"`{alias.name}` may not be imported from {module}"))
        else:
            names.append(alias.name)
    return names


__all__ = ["ALLOWED_IMPORTS", "RESERVED_NAMES", "check_identifier", "imported_names"]
