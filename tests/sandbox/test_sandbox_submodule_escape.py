"""Attack class: a real module reached through an import.

For ``from M import S``, CPython reads ``S`` from what ``__import__`` returned
and, when that fails, falls back to ``sys.modules[M.__name__ + "." + S]``.  A
module proxy that answered ``__name__`` with the real name therefore handed out
real submodules (``from json import decoder``), and from a real module plain
attribute reads lead to ``sys``, ``os`` and the real builtins.  The cases here
are generated: every allowed module, every name under which it could reach a
real module on this host, every import form agent code can write.
"""

from __future__ import annotations

import textwrap
import unicodedata

import pytest
from sandbox_support import SECURITY_LIMITS, run_err, run_ok, submodule_candidates

from sandbox.modules import ALLOWED_MODULES, exposed_names, guarded_import, module_proxy
from sandbox.policy import CompileFailure, compile_agent_code

CANDIDATES = {module: submodule_candidates(module) for module in ALLOWED_MODULES}


def exposed(module: str) -> list[str]:
    """The names agent code may import from ``module`` (what its proxy holds)."""
    return sorted(name for name in dir(module_proxy(module)) if not name.startswith("_"))


def public_candidates(module: str) -> list[str]:
    return [name for name in CANDIDATES[module] if not name.startswith("_")]


def fullwidth(name: str) -> str:
    """``json`` -> ``ｊｓｏｎ`` (NFKC turns it back into ``json``)."""
    return "".join(chr(ord(c) - ord("a") + 0xFF41) if "a" <= c <= "z" else c for c in name)


def math_bold(name: str) -> str:
    """``json`` -> the mathematical bold letters of ``json`` (NFKC turns them back)."""
    return "".join(chr(ord(c) - ord("a") + 0x1D41A) if "a" <= c <= "z" else c for c in name)


# Each form binds `got` from module {m} and name {s}; {first} is a name {m} does offer.
FORMS = {
    "from": "from {m} import {s}\ngot = {s}",
    "from-as": "from {m} import {s} as got",
    "from-after-an-allowed-name": "from {m} import {first}, {s} as got",
    "from-parenthesised": "from {m} import ({first},\n    {s} as got)",
    "import-dotted": "import {m}.{s}\ngot = {m}.{s}",
    "import-dotted-as": "import {m}.{s} as got",
    "relative": "from . import {s} as got",
    "relative-module": "from .{m} import {s} as got",
    "relative-submodule": "from .{s} import {first} as got",
    "relative-parent": "from .. import {s} as got",
    "relative-dotted": "from .{m}.{s} import {first} as got",
    "in-a-function": "def f():\n    from {m} import {s} as inner\n    return inner\ngot = f()",
    "in-a-class": "class K:\n    from {m} import {s} as inner\ngot = K.inner",
    "fullwidth-from": "from {fw_m} import {fw_s} as got",
    "fullwidth-import": "import {fw_m}.{fw_s} as got",
    "math-bold-from": "from {bold_m} import {bold_s} as got",
}


def attempt(form: str, module: str, name: str) -> str:
    """Agent code that tries one import and records what came back."""
    first = exposed(module)[0]
    stmt = FORMS[form].format(
        m=module,
        s=name,
        first=first,
        fw_m=fullwidth(module),
        fw_s=fullwidth(name),
        bold_m=math_bold(module),
        bold_s=math_bold(name),
    )
    return (
        "try:\n" + textwrap.indent(stmt, "    ") + f"\n    imported.append([{module!r}, {name!r}, type_name(got)])\n"
        "except ImportError:\n    pass\n"
        f"except Exception as e:\n    odd.append([{module!r}, {name!r}, type_name(e)])\n"
    )


class TestTheReportedPayloads:
    @pytest.mark.parametrize(
        ("module", "name"), [("json", "decoder"), ("json", "encoder"), ("json", "scanner"), ("collections", "abc")]
    )
    def test_submodule_through_from_import_is_refused(self, session, module, name):
        code = f"from {module} import {name}\nresult = repr({name}.re.enum.sys.modules['os'].listdir('/'))"
        msg = run_err(session, code, "ImportError")
        assert f"cannot import '{name}' from '{module}' in the sandbox" in msg
        assert f"{module} offers: {', '.join(exposed(module))}" in msg

    def test_the_refusal_is_catchable_and_the_session_goes_on(self, session):
        code = "try:\n    from json import dumps, decoder\n    result = 'imported'\nexcept ImportError as e:\n    result = str(e)"
        assert run_ok(session, code).startswith("cannot import 'decoder' from 'json'")
        assert run_ok(session, "from json import dumps, loads\nresult = loads(dumps([1]))") == [1]


class TestEveryFormOfEverySubmodule:
    @pytest.mark.parametrize("form", sorted(FORMS))
    def test_no_form_hands_out_a_module(self, session, form):
        code = "imported = []\nodd = []\n"
        tried = 0
        for module in ALLOWED_MODULES:
            for name in CANDIDATES[module]:
                snippet = attempt(form, module, name)
                compiled = compile_agent_code(snippet)
                if isinstance(compiled, CompileFailure):
                    # refused before it runs (`_` names, names RestrictedPython reserves)
                    assert compiled.type == "PolicyError", (snippet, compiled)
                    continue
                code += snippet
                tried += 1
        code += "result = [imported, odd]"
        imported, odd = run_ok(session, code)
        # the only names that import are those the proxy offers (datetime.time is a class)
        assert [entry for entry in imported if entry[2] == "module" or entry[1] not in exposed(entry[0])] == []
        assert odd == []
        assert tried >= 20

    @pytest.mark.parametrize("module", ALLOWED_MODULES)
    def test_import_calls_and_loader_names_are_compile_errors(self, module):
        sources = [f"got = __import__('{module}.{name}')" for name in CANDIDATES[module]]
        sources += [f"got = __import__('{module}', fromlist=['{name}'])" for name in CANDIDATES[module]]
        sources += [f"got = __builtins__['__import__']('{module}')", f"got = {module}.__loader__", "got = __spec__"]
        for source in sources:
            compiled = compile_agent_code(source)
            assert isinstance(compiled, CompileFailure) and compiled.type == "PolicyError", source

    def test_the_worker_loads_no_submodule_the_candidates_miss(self, breach_session):
        res = breach_session._run_unrestricted_for_tests("import sys\nresult = sorted(sys.modules)")
        assert res.ok, res.error
        missing = [
            key
            for key in res.result
            for module in ALLOWED_MODULES
            if key.startswith(module + ".") and key.split(".")[1] not in CANDIDATES[module]
        ]
        assert missing == []

    @pytest.mark.parametrize(
        "code",
        [
            "import importlib",
            "from importlib import import_module",
            "import importlib.util",
            "import builtins",
            "from builtins import open",
            "from sys import modules",
            "import sys.monitoring",
            "from os import path",
        ],
    )
    def test_importlib_and_host_module_tricks(self, session, code):
        run_err(session, code, ("ImportError", "PolicyError"))

    def test_unicode_spellings_normalise_to_the_ascii_names(self):
        for module in ALLOWED_MODULES:
            for name in public_candidates(module):
                assert unicodedata.normalize("NFKC", fullwidth(name)) == name
                assert unicodedata.normalize("NFKC", math_bold(name)) == name


class TestGuardedImport:
    """The guard itself, called as CPython calls it for each import form."""

    @pytest.mark.parametrize("module", ALLOWED_MODULES)
    def test_every_name_of_fromlist_must_be_one_the_proxy_offers(self, module):
        first = exposed(module)[0]
        for name in CANDIDATES[module]:
            if name in exposed(module):
                continue
            for fromlist in ((name,), (first, name), [name], [first, name]):
                with pytest.raises(ImportError, match=f"cannot import '{name}' from '{module}'"):
                    guarded_import(module, None, None, fromlist, 0)
        assert guarded_import(module, None, None, (first,), 0) is module_proxy(module)
        assert guarded_import(module, None, None, None, 0) is module_proxy(module)
        assert exposed_names(module) == tuple(exposed(module))  # what the message lists

    @pytest.mark.parametrize("module", ALLOWED_MODULES)
    def test_dotted_relative_and_odd_requests_are_refused(self, module):
        first = exposed(module)[0]
        calls = [(f"{module}.{name}", None, 0) for name in CANDIDATES[module]]
        calls += [(module, ("*",), 0), (module, (1,), 0), (module, ([first],), 0), (module, "dumps", 0)]
        calls += [(module, (first,), 1), ("", (module,), 1)]
        calls += [(name, None, level) for name in CANDIDATES[module] for level in (1, 2)]
        for name, fromlist, level in calls:
            with pytest.raises(ImportError):
                guarded_import(name, None, None, fromlist, level)

    @pytest.mark.parametrize("module", ALLOWED_MODULES)
    def test_proxies_give_cpython_no_module_name_to_fall_back_on(self, module):
        proxy = module_proxy(module)
        for dunder in ("__name__", "__path__", "__package__", "__spec__", "__file__", "__loader__"):
            with pytest.raises(AttributeError):
                getattr(proxy, dunder)

    @pytest.mark.parametrize("module", ALLOWED_MODULES)
    def test_without_the_fromlist_check_the_fallback_still_finds_nothing(self, module):
        # An __import__ that returns the proxy whatever it is asked for: the
        # statement itself must not find a real module in sys.modules.
        def careless_import(name, globals=None, locals=None, fromlist=(), level=0):
            return module_proxy(module)

        for name in CANDIDATES[module]:
            if name in exposed(module):
                continue
            namespace = {"__builtins__": {"__import__": careless_import}}
            with pytest.raises(ImportError):
                exec(compile(f"from {module} import {name}", "<test>", "exec"), namespace)
            assert name not in namespace


class TestThroughTheWorkerAtProcessLevel:
    """Without bubblewrap the worker can read what its uid can read: the import
    class must not give one project's code another project's files."""

    PAYLOADS = [
        "from json import decoder\nresult = decoder.re.enum.sys.modules['builtins'].open({path!r}).read()",
        "from json import decoder as d\nresult = d.re.enum.sys.modules['builtins'].open({path!r}).read()",
        "from collections import abc\nresult = abc.sys.modules['builtins'].open({path!r}).read()",
        "from json import encoder\nresult = encoder.re.enum.sys.modules['io'].open({path!r}).read()",
        "from json import scanner\nresult = scanner.re.enum.sys.modules['builtins'].open({path!r}).read()",
        "from json import dumps, decoder\nos = decoder.re.enum.sys.modules['os']\n"
        "result = os.read(os.open({path!r}, 0), 4096).decode()",
    ]

    @pytest.fixture
    def process_level(self, monkeypatch):
        import sandbox.jail

        monkeypatch.setenv("UAC_SANDBOX_DISABLE_JAIL", "1")
        sandbox.jail.reset_detection()
        yield sandbox.detect_level()
        sandbox.jail.reset_detection()

    def test_a_project_cannot_read_another_projects_facts(self, process_level, other_tenant, tmp_path):
        from uac.memory import UserMemory

        assert process_level.level == "process"
        alice = UserMemory.create(tmp_path / "alice")
        try:
            first, *others = [payload.format(path=str(other_tenant)) for payload in self.PAYLOADS]
            results = [alice.run(first)]  # what `uac repl`, /repl, run_python and the console run
            with alice.sandbox_session() as session:
                results += [session.run(code) for code in others]
            for payload, res in zip(self.PAYLOADS, results):
                assert "bob-secret-7f3a" not in str(res.to_json()), payload
                assert not res.ok and res.error["type"] == "ImportError", (payload, res.error)
                assert res.level == "process"
        finally:
            alice.close()

    def test_the_file_is_readable_at_that_level_had_the_policy_let_it(self, process_level, other_tenant, state):
        # The unrestricted test entry shows what is at stake: layers 2 and 3 alone
        # do not stop this read when the worker's uid may read the file.
        import sandbox

        with sandbox.Session(state, limits=SECURITY_LIMITS, _unrestricted_for_tests=True) as s:
            res = s._run_unrestricted_for_tests(f"result = open({str(other_tenant)!r}).read()")
        assert res.ok and "bob-secret-7f3a" in res.result
