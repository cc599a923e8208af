"""No function in ``uac/`` or ``sandbox/`` is longer than :data:`MAX_LINES` lines.

A function that grew past it does several jobs: split it into pieces named for
what they do.  The allowlist below is for work in progress only: it must shrink
until it holds nothing but table or generated code.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: the most lines a function (its decorators left out, its docstring in) may span
MAX_LINES = 80
#: functions allowed to be longer: tables only (anything else over the limit is split)
LONG_FUNCTIONS: set[str] = {
    "uac/compile/kinds/job_mentions.py:_rules",  # a table of patterns built for one person's name
}


def function_lengths(root: Path, folders: tuple[str, ...] = ("uac", "sandbox")) -> dict[str, int]:
    """``path:Qualified.name`` -> lines, for every function and method below ``folders`` of ``root``."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                assert child.end_lineno is not None
                lengths[f"{path}:{name}"] = child.end_lineno - child.lineno + 1
                visit(child, path, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, path, prefix + child.name + ".")
            else:
                visit(child, path, prefix)

    for folder in folders:
        for file in sorted((root / folder).rglob("*.py")):
            path = file.relative_to(root).as_posix()
            visit(ast.parse(file.read_text("utf-8"), filename=path), path, "")
    return lengths


@functools.lru_cache(maxsize=1)
def repo_lengths() -> dict[str, int]:
    return function_lengths(REPO)


def allowed(name: str) -> bool:
    return name in LONG_FUNCTIONS


def too_long(lengths: dict[str, int]) -> list[str]:
    return [
        f"{name}: {count} lines (at most {MAX_LINES})"
        for name, count in sorted(lengths.items())
        if count > MAX_LINES and not allowed(name)
    ]


def test_no_function_is_too_long():
    wrong = too_long(repo_lengths())
    assert not wrong, "functions grown past their size (split them into pieces named for what they do):\n" + "\n".join(
        wrong
    )


def test_the_allowlist_only_shrinks():
    lengths = repo_lengths()
    stale = sorted(name for name in LONG_FUNCTIONS if lengths.get(name, 0) <= MAX_LINES)
    assert not stale, f"listed as too long but gone or short now (take them off LONG_FUNCTIONS): {stale}"


def test_the_measure_sees_what_it_must(tmp_path, monkeypatch):
    package = tmp_path / "uac" / "part"
    package.mkdir(parents=True)
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    (package / "long.py").write_text(
        "class Holder:\n"
        "    def short(self):\n        return 1\n\n"
        f"    def long(self):\n{'    ' + body.replace(chr(10), chr(10) + '    ').rstrip()}\n\n"
        f"def outer():\n    def inner():\n{'    ' + body.replace(chr(10), chr(10) + '    ').rstrip()}\n    return inner\n",
        "utf-8",
    )
    lengths = function_lengths(tmp_path, ("uac",))
    assert lengths["uac/part/long.py:Holder.short"] == 2
    assert lengths["uac/part/long.py:Holder.long"] == MAX_LINES + 1
    assert lengths["uac/part/long.py:outer.inner"] == MAX_LINES + 1
    assert too_long(lengths) == [
        f"uac/part/long.py:Holder.long: {MAX_LINES + 1} lines (at most {MAX_LINES})",
        f"uac/part/long.py:outer: {MAX_LINES + 3} lines (at most {MAX_LINES})",
        f"uac/part/long.py:outer.inner: {MAX_LINES + 1} lines (at most {MAX_LINES})",
    ]
    monkeypatch.setattr(sys.modules[__name__], "LONG_FUNCTIONS", {"uac/part/long.py:outer"})
    assert not allowed("uac/part/long.py:outer.inner") and allowed("uac/part/long.py:outer")
    assert [line.split(":")[1] for line in too_long(lengths)] == ["Holder.long", "outer.inner"]
