"""uac's public API is on purpose: the names in ``uac.__all__``, resolved lazily.

The benchmarks and harnesses (``analytical_bench/``, ``benchmarks/``) are the
library's first outside users: they may import ``uac`` and names from it,
never a module inside it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import uac

REPO = Path(__file__).resolve().parents[1]
HARNESS_FILES = sorted([*(REPO / "analytical_bench").rglob("*.py"), *(REPO / "benchmarks").glob("*.py")])
#: what ``import uac`` must not load
HEAVY = ("torch", "chromadb", "sentence_transformers", "openai", "libcst")


def private_uac_imports(source: str) -> list[str]:
    """Every import of a module inside uac in ``source`` (at any depth, in functions
    too), as ``line: module``: ``import uac.x``, ``from uac.x import y``,
    ``importlib.import_module("uac.x")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                modules = [node.args[0].value]
        found += [f"{node.lineno}: {m}" for m in modules if m.startswith("uac.")]
    return found


def test_the_checker_finds_private_imports_at_any_depth():
    source = (
        "import uac\nfrom uac import UserMemory\nimport uacx.thing\n"
        "def f():\n    from uac.index.embeddings import get_embedder\n"
        "    import uac.llm as llm\n    return importlib.import_module('uac.memory')\n"
        "class C:\n    def m(self):\n        from uac.sessions import dates\n"
    )
    assert private_uac_imports(source) == ["5: uac.index.embeddings", "6: uac.llm", "7: uac.memory", "10: uac.sessions"]


#: benchmarks of one internal mechanism, which no public call isolates (keep this short)
INTERNAL_BENCHMARKS = {
    "benchmarks/bench_index_catchup.py": "times the index coverage check itself (uac.index.catchup)",
    # a 100,000-fact project through ingest would take hours: written by the log and index writers
    "benchmarks/bench_cli.py": "generates its large project through the fact log and index writers",
    # 100,000 changes through compiles would take hours; the append share needs the log's off switch
    "benchmarks/bench_history.py": "writes its change log through the log's writer and turns the log off to time a compile without it",
    "benchmarks/bench_domain_selection.py": "scores the STATE domain selector against its baseline (uac.answer.state_view)",
}


def test_harnesses_and_benchmarks_use_only_the_public_api():
    assert len(HARNESS_FILES) > 30
    offenders = {
        str(path.relative_to(REPO)): found
        for path in HARNESS_FILES
        if str(path.relative_to(REPO)) not in INTERNAL_BENCHMARKS
        and (found := private_uac_imports(path.read_text("utf-8")))
    }
    assert offenders == {}, "import these through 'from uac import ...' (export them from uac/__init__.py on purpose)"


def _init_tree() -> ast.Module:
    return ast.parse(Path(uac.__file__).read_text("utf-8"))


def _type_checking_imports() -> dict[str, tuple[str, str]]:
    """public name -> (module, attribute) of the imports under ``if TYPE_CHECKING:``."""
    out = {}
    for node in _init_tree().body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom), ast.dump(stmt)
                # uac's own modules relatively, the standalone sandbox absolutely
                assert stmt.level == 1 or (stmt.level == 0 and stmt.module.split(".")[0] == "sandbox"), ast.dump(stmt)
                module = f"uac.{stmt.module}" if stmt.level == 1 else stmt.module
                for alias in stmt.names:
                    out[alias.asname or alias.name] = (module, alias.name)
    return out


def test_all_the_lazy_table_and_the_type_checking_imports_agree():
    lazy = uac._LAZY
    eager = set(uac.__all__) - set(lazy)
    assert len(uac.__all__) == len(set(uac.__all__))
    assert set(lazy) <= set(uac.__all__)
    # everything else in __all__ is imported at module level (the version and the exception tree)
    assert all(name in vars(uac) for name in eager)
    assert _type_checking_imports() == lazy


def _classes_in(annotation: object) -> set[type]:
    if isinstance(annotation, type):
        return {annotation}
    found: set[type] = set()
    for arg in typing.get_args(annotation):
        found |= _classes_in(arg)
    return found


def test_every_type_a_public_method_takes_or_returns_is_public():
    """What ``UserMemory`` (and ``AsyncUserMemory``) take and return can be named
    with ``from uac import ...``: reports, views, the inspector's pages, sandbox runs."""
    import uac.aio
    import uac.memory

    classes = [getattr(uac, name) for name in ("UserMemory", "AsyncUserMemory") if name in uac.__all__]
    # the facade is assembled from parts (uac/memory/): every class of its lineage, and its module
    lineage = [klass for cls in classes for klass in cls.__mro__ if klass.__module__.startswith("uac.")]
    assert len(lineage) > 3
    namespace: dict[str, object] = {}
    for module in dict.fromkeys(sys.modules[klass.__module__] for klass in lineage):
        namespace.update(vars(module))
        source = Path(module.__file__).read_text("utf-8")
        for node in ast.parse(source).body:  # the names a module imports for annotations only
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                exec(
                    compile(ast.Module(body=node.body, type_ignores=[]), module.__file__, "exec"),
                    {"__name__": module.__name__, "__package__": module.__package__},
                    namespace,
                )
    public = {id(getattr(uac, name)) for name in uac.__all__}
    missing = {}
    for cls in lineage:
        for name, member in vars(cls).items():
            if name.startswith("_"):
                continue
            function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
            if not callable(function):
                continue
            for where, annotation in typing.get_type_hints(function, globalns=namespace).items():
                for used in _classes_in(annotation):
                    if used.__module__.split(".")[0] in ("uac", "sandbox") and id(used) not in public:
                        missing.setdefault(f"{used.__module__}.{used.__qualname__}", []).append(
                            f"{cls.__name__}.{name}:{where}"
                        )
    assert missing == {}


def test_every_public_name_resolves():
    for name in uac.__all__:
        value = getattr(uac, name)
        assert value is not None, name
    for name, (module, attribute) in uac._LAZY.items():
        assert getattr(uac, name) is getattr(sys.modules[module], attribute)
    assert issubclass(uac.InputError, uac.UacError) and uac.require_llm.__name__ == "require"
    with pytest.raises(AttributeError, match="no attribute 'FactLog'"):
        uac.FactLog  # noqa: B018


def _fresh(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_import_uac_is_light():
    loaded = _fresh(f"import json, sys, uac; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert loaded == []


def test_resolving_the_public_names_loads_no_model_or_store():
    code = (
        "import json, sys, uac\n"
        "for name in uac.__all__: getattr(uac, name)\n"
        "print(json.dumps([m for m in ('torch', 'chromadb', 'sentence_transformers', 'openai') if m in sys.modules]))"
    )
    assert _fresh(code) == []
