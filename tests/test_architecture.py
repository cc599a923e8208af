"""The layers of the house, as ``docs/architecture.md`` draws them, checked on the source.

The import graph is read with ``ast`` and counts every import: module level,
inside functions and under ``TYPE_CHECKING``.  A module may import modules of
its own layer or of lower layers only; a few packages have stricter rules; no
import circle may span more than one package; ``sandbox/`` never imports uac.
Classes stay small, and ``tests/`` mirrors the package tree (``tests/README.md``).
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: low to high; a module belongs to the first entry whose name is it or its package
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "uac._version",
            "uac.errors",
            "uac.dates",
            "uac.refs",
            "uac.fsutil",
            "uac.filestamp",
            "uac.fieldjson",
            "uac.lookup",
            "uac.templating",
            "uac.names",
            "uac.failpoints",
            "uac.safejson",
            "uac.progress",
            "uac.packed",
            "uac.extras",
            "uac.heavy",
            "uac.caches",
        ),
    ),
    ("project", ("uac.config", "uac.lock", "uac.migrations", "uac.workspace", "uac.project", "uac.llm")),
    ("data", ("uac.sessions", "uac.facts", "uac.extract", "uac.index", "uac.dialect", "uac.view")),
    ("context", ("uac.context",)),
    (
        "capabilities",
        (
            "uac.memorize",
            "uac.recall",
            "uac.compile",
            "uac.records",
            "uac.answer",
            "uac.sandbox_bridge",
            "uac.doctor",
            "uac.export",
            "uac.browse",
            "uac.changelog",
        ),
    ),
    ("facade", ("uac.memory", "uac.aio")),
    ("adapters", ("uac.cli", "uac.server", "uac.integrations", "uac.demo", "uac.__main__", "uac")),
]

#: packages that may use only these parts of uac (besides themselves)
ONLY_USES: dict[str, tuple[str, ...]] = {
    # the generated-code dialect: the language, never the pipelines or the data
    "uac.dialect": ("uac.errors", "uac.fsutil", "uac.templating", "uac.names", "uac.dates", "uac.refs"),
    # the view on disk: the dialect and the project, never the compile pipelines
    "uac.view": (
        "uac.dialect",
        "uac.errors",
        "uac.fsutil",
        "uac.names",
        "uac.templating",
        "uac.project",
        "uac.config",
        "uac.lock",
        "uac.failpoints",
    ),
    # the fact log and the archive know nothing above them
    "uac.facts": (
        "uac.errors",
        "uac.fsutil",
        "uac.filestamp",
        "uac.dates",
        "uac.lock",
        "uac.names",
        "uac.failpoints",
        "uac.packed",
        "uac.caches",
    ),
    "uac.sessions": (
        "uac.errors",
        "uac.fsutil",
        "uac.dates",
        "uac.names",
        "uac.failpoints",
        "uac.safejson",
        "uac.lookup",
    ),
}


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def modules_of(package_dir: Path) -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in package_dir.rglob("*.py"):
        parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return out


@functools.lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    """The syntax tree of a source file (parsed once for every check)."""
    return ast.parse(path.read_text("utf-8"))


def imports_of(name: str, path: Path, is_package: bool, known: set[str] = frozenset()) -> set[str]:
    """Every module imported by the file, absolute.  ``from P import m`` counts as
    ``P.m`` when that is one of the ``known`` modules, else as ``P``."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return found


def uac_graph() -> dict[str, set[str]]:
    modules = modules_of(REPO / "uac")
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        for target in imports_of(name, path, is_package, set(modules)):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def layer_of(name: str) -> int:
    for number, (_, prefixes) in enumerate(LAYERS):
        if any(_within(name, p) for p in prefixes if p != "uac"):
            return number
    if name == "uac":
        return len(LAYERS) - 1
    raise AssertionError(f"{name} is in no layer of tests/test_architecture.py: add it (and to docs/architecture.md)")


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return uac_graph()


def test_every_module_has_a_layer(graph):
    for name in graph:
        layer_of(name)


def test_no_module_imports_a_higher_layer(graph):
    wrong = [
        f"{name} ({LAYERS[layer_of(name)][0]}) imports {target} ({LAYERS[layer_of(target)][0]})"
        for name, targets in graph.items()
        for target in targets
        if name != "uac" and layer_of(target) > layer_of(name)
    ]
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(wrong))


@pytest.mark.parametrize("package", sorted(ONLY_USES))
def test_restricted_packages_use_only_what_they_may(graph, package):
    allowed = ONLY_USES[package]
    wrong = [
        f"{name} imports {target}"
        for name, targets in graph.items()
        if _within(name, package)
        for target in targets
        if not _within(target, package) and not any(_within(target, a) for a in allowed)
    ]
    assert not wrong, f"{package} may use only {', '.join(allowed)}:\n" + "\n".join(sorted(wrong))


def test_no_circle_spans_packages(graph):
    def package(name: str) -> str:
        return name.rsplit(".", 1)[0] if name.count(".") >= 2 else name

    spanning = [c for c in strongly_connected(graph) if len({package(n) for n in c}) > 1]
    assert not spanning, f"import circles across packages: {spanning}"


def test_sandbox_never_imports_uac():
    modules = modules_of(REPO / "sandbox")
    wrong = [
        f"{name} imports {target}"
        for name, (path, is_package) in modules.items()
        for target in imports_of(name, path, is_package)
        if _within(target, "uac")
    ]
    assert not wrong, "\n".join(wrong)


def test_the_checker_sees_what_it_must(graph, tmp_path):
    """The graph counts imports inside functions, and the layer check fails on a back arrow."""
    assert "uac.index.embeddings" in graph["uac.index.maintain"]  # imported inside a function
    fake = dict(graph)
    fake["uac.errors"] = graph["uac.errors"] | {"uac.memory"}
    wrong = [t for t in fake["uac.errors"] if layer_of(t) > layer_of("uac.errors")]
    assert wrong == ["uac.memory"]
    fake["uac.context"] = graph["uac.context"] | {"uac.memory"}
    fake["uac.memory"] = graph["uac.memory"] | {"uac.context"}
    assert any("uac.memory" in c for c in strongly_connected(fake))


#: the most methods a class in uac/ may have
MAX_METHODS = 20
#: the classes that have more and are still to be split (none now; no class may join them)
LARGE_CLASSES: set[str] = set()


def class_sizes(package_dir: Path) -> dict[str, int]:
    """Module.Class -> the functions defined in its body (methods and properties)."""
    sizes = {}
    for name, (path, _is_package) in modules_of(package_dir).items():
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef):
                count = sum(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body)
                sizes[f"{name}.{node.name}"] = count
    return sizes


def test_classes_stay_small():
    sizes = class_sizes(REPO / "uac")
    wrong = [
        f"{name}: {count} methods (at most {MAX_METHODS})"
        for name, count in sorted(sizes.items())
        if count > MAX_METHODS and name not in LARGE_CLASSES
    ]
    assert not wrong, "classes grown past their size (split them into pieces of their own):\n" + "\n".join(wrong)
    assert LARGE_CLASSES <= set(sizes), f"listed but gone: {sorted(LARGE_CLASSES - set(sizes))}"


def test_the_class_check_counts_the_methods_of_every_class(tmp_path):
    package = tmp_path / "uac"
    (package / "sub").mkdir(parents=True)
    methods = "".join(f"    def m{n}(self):\n        pass\n" for n in range(MAX_METHODS + 1))
    (package / "sub" / "big.py").write_text(f"class Big:\n{methods}\n    class Inner:\n        def one(self): pass\n")
    (package / "sub" / "__init__.py").write_text("class Part:\n    @property\n    def a(self): pass\n")
    sizes = class_sizes(package)
    parsed.cache_clear()
    assert sizes == {"uac.sub.big.Big": MAX_METHODS + 1, "uac.sub.big.Inner": 1, "uac.sub.Part": 1}


#: directories of tests/ named for what they hold rather than for a package (tests/README.md):
#: the top-level modules of uac, the tests that cross packages, the shared data
TEST_DIRS_OF_THEIR_OWN = ("core", "e2e", "fixtures")
#: the packages besides uac whose tree tests/ mirrors
MIRRORED_ROOTS = ("sandbox", "analytical_bench")


def _holds_python(directory: Path) -> bool:
    return any(directory.glob("*.py"))


def misplaced_test_dirs(tests: Path, repo: Path) -> list[str]:
    """The directories under ``tests`` holding Python files that mirror no package directory:
    ``tests/x/y`` must be ``uac/x/y`` (or ``sandbox/...``, ``analytical_bench/...``) or lie in
    one of TEST_DIRS_OF_THEIR_OWN.  Directories of data alone (no ``.py``) are free."""
    wrong = []
    for directory in sorted(path for path in tests.rglob("*") if path.is_dir()):
        parts = directory.relative_to(tests).parts
        if "__pycache__" in parts or parts[0] in TEST_DIRS_OF_THEIR_OWN or not _holds_python(directory):
            continue
        source = repo.joinpath(*parts) if parts[0] in MIRRORED_ROOTS else repo.joinpath("uac", *parts)
        if not (source.is_dir() and _holds_python(source)):
            wrong.append(f"tests/{'/'.join(parts)} (no {source.relative_to(repo)}/)")
    return wrong


def test_tests_mirror_the_package_tree():
    wrong = misplaced_test_dirs(REPO / "tests", REPO)
    assert not wrong, (
        "test directories named for no package: put each test file in tests/<package>/ for the module "
        f"it tests, or in one of {', '.join(TEST_DIRS_OF_THEIR_OWN)} (tests/README.md):\n" + "\n".join(wrong)
    )


def test_the_mirror_check_names_a_directory_of_no_package(tmp_path):
    for source in ("uac/index", "uac/compile/kinds", "sandbox", "analytical_bench/conv", "uac/prompts"):
        (tmp_path / source).mkdir(parents=True)
        if source != "uac/prompts":  # templates only: no package to mirror
            (tmp_path / source / "__init__.py").write_text("")
    mirrors = ("index", "compile/kinds", "sandbox", "analytical_bench/conv", "core", "e2e/zoo")
    for test_dir in (*mirrors, "memory", "compile/helpers_dir", "prompts", "index/data"):
        (tmp_path / "tests" / test_dir).mkdir(parents=True, exist_ok=True)
        if test_dir != "index/data":
            (tmp_path / "tests" / test_dir / "test_x.py").write_text("")
    assert misplaced_test_dirs(tmp_path / "tests", tmp_path) == [
        "tests/compile/helpers_dir (no uac/compile/helpers_dir/)",
        "tests/memory (no uac/memory/)",
        "tests/prompts (no uac/prompts/)",
    ]
