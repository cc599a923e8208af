"""Attack class: any path from what agent code is given to a real module or host function.

The walk starts from every global agent code sees -- builtins and helpers, the
state (records, domains, facts, periods, enums), every allowed module's proxy
and so every name it exposes, and the results of calling the usual functions
(compiled regexes and their matches, partials, caches, decimal contexts,
caught exceptions, generators, agent classes...) -- and follows what agent code
can follow: every attribute name the policy lets through (native reads, and
``guarded_getattr`` for the guarded names) and the items of containers (through
``guarded_getiter``/``guarded_getitem``).  No object it reaches may be a real
module, a refused builtin, an object of ``os``/``sys``/``io``/... or a frame.

It runs in this process, in a namespace built by the worker's own code
(``Worker.load_state`` + ``Worker.run_globals``), with the seed code compiled
by the policy; so this process's much larger ``sys.modules`` only makes the
import fallback it guards against easier to hit.
"""

from __future__ import annotations

import builtins
import collections.abc
import datetime as dt
import io
import sys
import types
from dataclasses import dataclass

import pytest
from sandbox_support import DOMAINS, FACTS, submodule_candidates

from sandbox.builtins import FORBIDDEN_BUILTINS
from sandbox.codec import encode_state
from sandbox.guards import PrintCollector, guarded_getattr, guarded_getitem, guarded_getiter
from sandbox.limits import Limits
from sandbox.modules import ALLOWED_MODULES
from sandbox.period import Period
from sandbox.policy import CompileFailure, attribute_read, compile_agent_code
from sandbox.records import DomainNamespace
from sandbox.refs import Ref
from sandbox.worker import Worker

DEPTH = 6
ITEMS = 30  # items followed per container

# Modules whose functions, classes and containers agent code must never hold.
HOST_MODULES = (
    "os",
    "posix",
    "sys",
    "io",
    "_io",
    "subprocess",
    "socket",
    "_socket",
    "ctypes",
    "_ctypes",
    "importlib",
    "importlib._bootstrap",
    "importlib._bootstrap_external",
    "shutil",
    "pathlib",
    "gc",
    "marshal",
    "pickle",
    "_pickle",
    "signal",
    "_signal",
    "resource",
    "codecs",
    "_codecs",
    "threading",
    "_thread",
    "tempfile",
    "select",
    "mmap",
    "sandbox.process",
    "sandbox.jail",
    "sandbox.seccomp",
)


@dataclass
class Span:
    label: str
    when: Period


@dataclass
class Link:
    id: str
    target: Ref


SEED = """
import collections, datetime, decimal, fractions, functools, itertools, json, math, operator, re, statistics
from collections import Counter, defaultdict, OrderedDict, deque, ChainMap, namedtuple
P = namedtuple('P', 'x y', defaults=[0])
point = P(1, 2)
counter = Counter(t.city for t in trips)
common = counter.most_common(2)
groups = defaultdict(list)
groups['a'].append(trips[0])
ordered = OrderedDict(a=1)
queue = deque([1, 2], maxlen=3)
chain = ChainMap({'a': 1}, {'b': 2}).new_child()
parents = chain.parents
pattern = re.compile(r'(?P<word>[a-z]+) ([0-9]+)', re.I)
match = pattern.match('abc 12')
found = list(pattern.finditer('a 1 b 2'))
split = re.split(',', 'a,b')
scanner = pattern.scanner('a 1')
flag = re.IGNORECASE | re.MULTILINE
partial = functools.partial(json.dumps, indent=1)
partial_class = functools.partial(Counter)
cached = functools.lru_cache(maxsize=4)(lambda x: x)
cached(1)
info = cached.cache_info()
params = cached.cache_parameters()
cached_host = functools.cache(len)
key = functools.cmp_to_key(lambda a, b: a - b)(1)
total = functools.reduce(operator.add, [1, 2])
context = decimal.getcontext()
context_copy = context.copy()
local = decimal.localcontext()
number = decimal.Decimal('1.50')
as_tuple = number.as_tuple()
fraction = fractions.Fraction(1, 3)
normal = statistics.NormalDist(0, 1)
samples = normal.samples(2, seed=1)
now = datetime.datetime.now(datetime.timezone.utc)
parsed = datetime.datetime.strptime('2024-05-01', '%Y-%m-%d')
formatted = datetime.date(2024, 1, 1).strftime('%b %d')
zone = datetime.timezone(datetime.timedelta(hours=2), 'X')
iso = now.isocalendar()
chained = itertools.chain([1], [2])
grouped = [(k, list(g)) for k, g in itertools.groupby('aab')]
getter = operator.itemgetter(0)
generator = (x for x in [1])
def gen_func():
    yield 1
gen_object = gen_func()
class Mine:
    def __init__(self):
        self.value = 1
mine = Mine()
decoded = json.loads('{"a": [1, 2.5, null]}')
record = trips[0]
fields = record_fields(record)
as_dict = record_dict(record)
span = spans[0]
period = span.when
link = links[0].target
linked = link.resolve()
fact = facts[0]
members = list(Purpose)
names = repl_names()
errors = {}
attempts = [
    lambda: json.loads('{'), lambda: statistics.mean([]), lambda: re.compile('('),
    lambda: decimal.Decimal(1) / 0, lambda: json.nothing, lambda: trips[0].nothing, lambda: trips.append(1),
    lambda: 1 / 0, lambda: {}['x'], lambda: int('x'), lambda: datetime.datetime.strptime('x', '%Y'),
    lambda: next(iter([])), lambda: b'\\xff'.decode(), lambda: fractions.Fraction(1, 0),
    lambda: math.sqrt(-1), lambda: 'a'.format, lambda: int.mro(),
]
for i, attempt in enumerate(attempts):
    try:
        attempt()
    except Exception as e:
        errors[i] = e
try:
    import os
except ImportError as e:
    errors['import'] = e
"""


def submodule_imports() -> str:
    """Seed lines that try every import of a real module (bound if one succeeds)."""
    lines = []
    for module in ALLOWED_MODULES:
        for name in submodule_candidates(module):
            line = f"try:\n    from {module} import {name} as leak_{module}_{name.strip('_')}\nexcept ImportError:\n    pass\n"
            if not isinstance(compile_agent_code(line), CompileFailure):
                lines.append(line)
    return "".join(lines)


def build_agent_namespace():
    """A worker's agent namespace after the seed code ran: ``(worker, namespace)``."""
    state = encode_state(
        {
            **DOMAINS,
            "plans": {
                "spans": [Span("trip", Period(dt.date(2024, 5, 1), dt.date(2024, 5, 31)))],
                "links": [Link("link-1", Ref("plans/link-1"))],
            },
        },
        facts=[{**FACTS[0], "event_date": Period(dt.date(2024, 5, 4), dt.date(2024, 5, 5))}, FACTS[1]],
    )
    worker = Worker(Limits().to_wire(), -1, False)
    worker.load_state(state)
    namespace = worker.run_globals(PrintCollector(10**6))
    code = compile_agent_code(SEED + submodule_imports())
    assert not isinstance(code, CompileFailure), code
    exec(code, namespace)
    return worker, namespace


@pytest.fixture(scope="module")
def agent_namespace():
    return build_agent_namespace()


def _danger_index() -> tuple[dict[int, str], dict[int, str]]:
    """ids of the objects agent code must not reach, and of every module's namespace."""
    danger = {id(getattr(builtins, name)): f"builtins.{name}" for name in FORBIDDEN_BUILTINS if hasattr(builtins, name)}
    for name in HOST_MODULES:
        module = sys.modules.get(name)
        if module is None:
            continue
        for key, value in vars(module).items():
            if isinstance(value, (int, float, str, bytes, bool, type(None), types.ModuleType)):
                continue
            if isinstance(value, type) and issubclass(value, BaseException):
                continue  # OSError and friends are harmless
            if callable(value) and getattr(value, "__module__", None) != name:
                continue  # re-exported from elsewhere (judged where it is defined)
            danger.setdefault(id(value), f"{name}.{key}")
    # real modules only: vars() of a stand-in (typing.io is a class) is a fresh mappingproxy whose
    # id is free again at once, so a later object could take it and be reported by mistake
    namespaces = {
        id(vars(m)): f"the namespace of {name}"
        for name, m in list(sys.modules.items())
        if isinstance(m, types.ModuleType)
    }
    return danger, namespaces


def _forbidden(obj, danger, namespaces) -> str | None:
    if isinstance(obj, types.ModuleType):
        return f"a real module ({obj.__name__})"
    if id(obj) in danger:
        return danger[id(obj)]
    if id(obj) in namespaces:
        return namespaces[id(obj)]
    if isinstance(obj, (types.FrameType, types.CodeType, types.TracebackType, io.IOBase, Worker)):
        return type(obj).__name__
    if callable(obj):
        module = getattr(obj, "__module__", None)
        if isinstance(module, str) and module in HOST_MODULES:
            return f"a callable of {module}"
    return None


def _steps(obj):
    """What agent code can reach from ``obj`` in one step, with the same guards."""
    try:
        names = dir(obj)
    except Exception:
        names = []
    for name in names:
        if not isinstance(name, str):
            continue
        route = attribute_read(name)
        if route == "refused":
            continue
        try:
            value = guarded_getattr(obj, name) if route == "guarded" else getattr(obj, name)
        except Exception:
            continue
        yield f".{name}", value
    if isinstance(obj, (tuple, list, set, frozenset, collections.deque)):
        for i, value in enumerate(list(guarded_getiter(obj))[:ITEMS]):
            yield f"[{i}]", value
    elif isinstance(obj, collections.abc.Mapping) and not isinstance(obj, type):
        for key in list(guarded_getiter(obj))[:ITEMS]:
            yield f" key {key!r}", key
            try:
                yield f"[{key!r}]", guarded_getitem(obj, key)
            except Exception:
                continue


def walk(roots, depth=DEPTH):
    """Breadth-first from ``roots`` (``(path, object)`` pairs): ``(reached, findings)``."""
    danger, namespaces = _danger_index()
    seen: dict[int, object] = {}
    findings = []
    frontier = list(roots)
    for _ in range(depth):
        following = []
        for path, obj in frontier:
            if id(obj) in seen:
                continue
            seen[id(obj)] = obj  # keeps it alive: ids stay unique
            reason = _forbidden(obj, danger, namespaces)
            if reason:
                findings.append(f"{path}: {reason}")
                continue
            following.extend((path + step, value) for step, value in _steps(obj) if id(value) not in seen)
        frontier = following
    return seen, findings


def agent_roots(worker, namespace):
    """Every name agent code can write: its globals and builtins (not the `_` hooks)."""
    roots = [(name, value) for name, value in namespace.items() if not name.startswith("_")]
    roots += [(name, value) for name, value in worker.builtins.items() if not name.startswith("_")]
    return roots


@pytest.fixture(scope="module")
def walked(agent_namespace):
    worker, namespace = agent_namespace
    return walk(agent_roots(worker, namespace))


def test_nothing_agent_code_can_reach_is_a_module_or_a_host_function(walked):
    reached, findings = walked
    assert findings == []
    assert len(reached) > 3000  # the walk went somewhere


def test_the_walk_covers_what_it_claims(agent_namespace, walked):
    _, namespace = agent_namespace
    ids = set(walked[0])
    # every allowed module's exposed names, the state's objects and the call results
    for module in ALLOWED_MODULES:
        proxy = namespace[module]
        for name in dir(proxy):
            if not name.startswith("_"):
                assert id(getattr(proxy, name)) in ids, f"{module}.{name}"
    for name in (
        "record",
        "period",
        "link",
        "linked",
        "fact",
        "match",
        "partial",
        "context",
        "errors",
        "gen_object",
        "mine",
    ):
        assert id(namespace[name]) in ids
    assert id(namespace["fact"].event_date) in ids and id(namespace["partial"].func) in ids


def test_the_walk_finds_a_real_module_when_one_is_reachable(agent_namespace):
    # the walk is not blind: a module slipped into a reachable container is found
    worker, namespace = agent_namespace
    findings = walk([("planted", {"x": [namespace["record"], sys]}), ("open", builtins.open)], depth=4)[1]
    assert sorted(findings) == ["open: builtins.open", "planted['x'][1]: a real module (sys)"]


def test_guarded_reads_refuse_a_module_whatever_holds_it():
    domain = DomainNamespace("travel", {"format": sys, "mro": types, "register": io})
    for name in ("format", "mro", "register"):
        with pytest.raises(AttributeError, match="module"):
            guarded_getattr(domain, name)


def _imports_inside_functions(module_name: str) -> list[tuple[str, str]]:
    """``(qualified name of the function, module it imports)`` for every import
    statement inside a function of ``module_name``'s source."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(module_name)
    if spec is None or not (spec.origin or "").endswith(".py"):
        return []  # a C module: its lazy imports are listed in preload_modules by hand
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    found = []

    def visit(node, scope, in_function):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                function = in_function or not isinstance(child, ast.ClassDef)
                visit(child, (*scope, child.name), function)
            elif in_function and isinstance(child, ast.Import):
                found.extend((".".join(scope), alias.name) for alias in child.names)
            elif in_function and isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.append((".".join(scope), child.module))
            else:
                visit(child, scope, in_function)

    visit(tree, (), False)
    return found


def _can_run(module_name: str, qualname: str, reached: dict[int, object]) -> bool:
    """Whether agent code can run the function ``qualname`` of ``module_name``:
    it is reached by the walk, is nested in a function that is, or is private
    (a helper the public functions call)."""
    import importlib

    if any(part.startswith("_") for part in qualname.split(".")):
        return True
    obj = importlib.import_module(module_name)
    for part in qualname.split("."):
        inner = getattr(obj, part, None)
        if inner is None:
            break  # a function defined inside the previous one
        obj = inner
    return id(obj) in reached


def test_what_reachable_code_imports_lazily_is_loaded_before_the_hook(walked, breach_session):
    # The audit hook refuses to load modules: every import inside a function agent
    # code can run must already be done when the worker starts.
    reached = walked[0]
    modules = set()
    for obj in reached.values():
        obj = getattr(obj, "__func__", obj) if isinstance(obj, types.MethodType) else obj
        if isinstance(obj, (types.FunctionType, type)) and obj.__module__ not in (None, "agent", "state", "builtins"):
            modules.add(obj.__module__)
    assert {"collections", "datetime", "statistics", "sandbox.period"} <= modules
    needed = {
        (module, qualname, imported)
        for module in modules
        for qualname, imported in _imports_inside_functions(module)
        if _can_run(module, qualname, reached)
    }
    assert ("collections", "Counter.most_common", "heapq") in needed
    res = breach_session._run_unrestricted_for_tests("import sys\nresult = sorted(sys.modules)")
    assert res.ok, res.error
    missing = sorted(entry for entry in needed if entry[2] not in res.result)
    assert missing == []
