"""The layering of Phase 2: dialect <- view <- compile, with no import circles.

The graph is read from the source with ``ast`` and counts every import:
module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import uac

ROOT = Path(uac.__file__).resolve().parent
LAYERED = ("uac.dialect", "uac.view", "uac.compile")
#: what the dialect may import from the rest of uac
DIALECT_MAY_USE = ("uac.errors", "uac.fsutil", "uac.templating")


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ["uac", *path.relative_to(ROOT).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        package = name.split(".") if is_package else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package[: len(package) - node.level + 1] + [node.module or ""]).strip(".") if node.level else node.module or ""
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def _in(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_the_graph_sees_function_level_imports():
    graph = import_graph()
    # uac.memory imports the compile dispatcher inside a method only
    assert "uac.compile.dispatch" in graph["uac.memory"]
    assert "uac.dialect.render" in graph["uac.answer.state_view"]


def test_no_import_circle_through_the_layered_packages():
    graph = import_graph()
    circles = []
    for start in sorted(m for m in graph if _in(m, LAYERED)):
        seen: set[str] = set()
        stack = list(graph[start])
        while stack:
            current = stack.pop()
            if current == start:
                circles.append(start)
                break
            if current not in seen:
                seen.add(current)
                stack.extend(graph[current])
    assert circles == []


def test_the_dialect_imports_no_pipeline_project_or_capability():
    graph = import_graph()
    outside = {
        f"{name} -> {target}"
        for name, targets in graph.items()
        if _in(name, ("uac.dialect",))
        for target in targets
        if not _in(target, ("uac.dialect", *DIALECT_MAY_USE))
    }
    assert outside == set()


def test_the_view_never_imports_the_pipelines():
    graph = import_graph()
    assert {f"{n} -> {t}" for n, ts in graph.items() if _in(n, ("uac.view",)) for t in ts if _in(t, ("uac.compile",))} == set()
