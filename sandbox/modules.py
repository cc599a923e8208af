"""The modules agent code may import, exposed through read-only proxies."""

from __future__ import annotations

import collections
import keyword
import types
from typing import Any, Callable, Iterable

from .records import ReadOnlyError

ALLOWED_MODULES = (
    "collections",
    "datetime",
    "decimal",
    "fractions",
    "functools",
    "itertools",
    "json",
    "math",
    "operator",
    "re",
    "statistics",
)

# Names removed from otherwise fully exposed modules, with the reason.
REMOVED = {
    "operator": {"attrgetter": "reads attributes by name", "methodcaller": "calls methods by name"},
}

# Modules exposed through an explicit list of names only.
ONLY = {
    "collections": ("Counter", "defaultdict", "OrderedDict", "deque", "namedtuple", "ChainMap"),
    "functools": ("reduce", "partial", "lru_cache", "cache", "cmp_to_key"),
    "json": ("dumps", "loads", "JSONDecodeError"),
    "datetime": ("date", "datetime", "time", "timedelta", "timezone", "tzinfo", "MINYEAR", "MAXYEAR", "UTC"),
    "fractions": ("Fraction",),
}


class ModuleProxy:
    """Base class of the read-only module proxies."""

    __slots__ = ()
    _module_name = "?"
    _exposed: tuple[str, ...] = ()  # the names agent code may read and import

    def __init_subclass__(cls, **kwargs: Any) -> None:
        if cls.__dict__.get("_sealed") is not True:
            raise TypeError("modules cannot be subclassed")

    def __setattr__(self, name: str, value: object) -> None:
        raise ReadOnlyError(f"module '{self._module_name}' is read-only in the sandbox")

    def __delattr__(self, name: str) -> None:
        raise ReadOnlyError(f"module '{self._module_name}' is read-only in the sandbox")

    def __getattr__(self, name: str) -> Any:
        removed = REMOVED.get(self._module_name, {})
        if name in removed:
            raise AttributeError(f"'{self._module_name}.{name}' is not available in the sandbox ({removed[name]})")
        raise AttributeError(f"module '{self._module_name}' has no attribute '{name}' in the sandbox")

    def __repr__(self) -> str:
        return f"<module '{self._module_name}' (sandbox)>"

    def __reduce__(self) -> Any:
        raise TypeError("modules cannot be pickled")


def _json_dumps(obj: Any, **kwargs: Any) -> str:
    import json

    if "cls" in kwargs:
        raise TypeError("json.dumps(cls=...) is not allowed in the sandbox")
    return json.dumps(obj, **kwargs)


def _json_loads(s: Any, **kwargs: Any) -> Any:
    import json

    if "cls" in kwargs:
        raise TypeError("json.loads(cls=...) is not allowed in the sandbox")
    return json.loads(s, **kwargs)


def _check_nt_name(kind: str, name: Any) -> str:
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError(f"namedtuple {kind} must be an identifier without a leading underscore, got {name!r}")
    return name


def _namedtuple(typename: Any, field_names: Any, *, defaults: Any = None) -> type:
    """``collections.namedtuple`` with validated names (it builds code from them)."""
    _check_nt_name("type name", typename)
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    names = [_check_nt_name("field name", f) for f in list(field_names)]
    if len(set(names)) != len(names):
        raise ValueError("namedtuple field names must be unique")
    if defaults is not None:
        defaults = tuple(defaults)
    return collections.namedtuple(typename, names, defaults=defaults, module="agent")


_WRAPPED: dict[str, dict[str, Callable[..., Any]]] = {
    "json": {"dumps": _json_dumps, "loads": _json_loads},
    "collections": {"namedtuple": _namedtuple},
}


def _public_names(module: types.ModuleType) -> Iterable[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return names


def _exposable(value: Any) -> bool:
    if isinstance(value, types.ModuleType):
        return False
    return isinstance(value, (type, int, float, str, tuple, frozenset, types.BuiltinFunctionType)) or callable(value)


def _build_proxy(name: str) -> ModuleProxy:
    import importlib

    module = importlib.import_module(name)
    wrapped = _WRAPPED.get(name, {})
    names = ONLY.get(name) or _public_names(module)
    removed = REMOVED.get(name, {})
    attrs: dict[str, Any] = {}
    for attr in names:
        if attr.startswith("_") or attr in removed:
            continue
        if attr in wrapped:
            value = wrapped[attr]
        elif hasattr(module, attr):
            value = getattr(module, attr)
        else:
            continue
        if not _exposable(value):
            continue
        # Class attributes that are descriptors would bind to the proxy.
        if not isinstance(value, type) and hasattr(type(value), "__get__"):
            value = staticmethod(value)
        attrs[attr] = value
    exposed = tuple(sorted(attrs))
    # No ``__name__`` (nor ``__path__``, ``__spec__``...): for ``from M import S``
    # CPython falls back to ``sys.modules[M.__name__ + "." + S]`` when ``S`` is
    # not an attribute, so a proxy that answered with the real name would hand
    # out the real submodules (``from json import decoder``).
    attrs.update({"__slots__": (), "_module_name": name, "_sealed": True, "_exposed": exposed})
    cls = type(f"module_{name}", (ModuleProxy,), attrs)
    return cls()


_PROXIES: dict[str, ModuleProxy] = {}


def module_proxy(name: str) -> ModuleProxy:
    proxy = _PROXIES.get(name)
    if proxy is None:
        proxy = _PROXIES[name] = _build_proxy(name)
    return proxy


# Modules that C code of allowed types imports on its own (``date.strftime``
# imports ``time``, ``datetime.strptime`` imports ``_strptime``).  CPython's
# ``PyImport_Import`` calls the current ``__import__`` with an empty *list* as
# ``fromlist`` (import statements pass ``None`` or a tuple, so agent code
# cannot produce this call) and then takes the module from ``sys.modules``
# for C code only.
_INTERNAL_IMPORTS = frozenset({"time", "_strptime"})


def exposed_names(name: str) -> tuple[str, ...]:
    """The names agent code may read from (and import from) the allowed module ``name``."""
    return module_proxy(name)._exposed


def _import_refused(text: str) -> ImportError:
    return ImportError(f"{text}; allowed modules: {', '.join(ALLOWED_MODULES)}")


def _check_fromlist(proxy: ModuleProxy, fromlist: Any) -> None:
    """Every name of ``from M import a, b`` must be one the proxy holds.

    Then CPython's ``from`` import finds each name as an attribute and never
    reaches its ``sys.modules`` fallback.
    """
    name = proxy._module_name
    if type(fromlist) not in (tuple, list):
        raise ImportError(f"cannot import from {name!r} in the sandbox: bad name list {fromlist!r}")
    for attr in fromlist:
        if type(attr) is str and attr in proxy._exposed:
            continue
        removed = REMOVED.get(name, {})
        if type(attr) is str and attr in removed:
            raise ImportError(f"'{name}.{attr}' is not available in the sandbox ({removed[attr]})", name=name)
        raise ImportError(
            f"cannot import {attr!r} from {name!r} in the sandbox; {name} offers: {', '.join(proxy._exposed)}",
            name=name,
        )


def guarded_import(name: Any, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
    """``__import__`` of the sandbox: allowlisted top-level modules only, as their
    proxies, and from them only the names they hold."""
    if name in _INTERNAL_IMPORTS and level == 0 and type(fromlist) is list and not fromlist:
        import importlib

        return importlib.import_module(name)
    if level != 0:
        raise _import_refused("relative imports are not allowed in the sandbox (import a module by its name)")
    if type(name) is not str or name not in ALLOWED_MODULES:
        if type(name) is str and name.partition(".")[0] in ALLOWED_MODULES:
            raise _import_refused(f"import of {name!r} is not allowed in the sandbox (submodules cannot be imported)")
        raise _import_refused(f"import of {name!r} is not allowed in the sandbox")
    proxy = module_proxy(name)
    if fromlist:
        _check_fromlist(proxy, fromlist)
    return proxy
