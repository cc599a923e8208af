"""Runtime guards called by code compiled with :mod:`sandbox.policy`.

RestrictedPython rewrites agent code so that attribute writes, item access,
iteration, augmented assignment and ``print`` go through the hooks defined
here (``_write_``, ``_getitem_``, ``_getiter_``, ...).  Attribute *reads* of
names that are safe on every object are checked once, at compile time (see
``policy.py``); reads of names that are only safe on state records (e.g. a
record field called ``format``) go through :func:`guarded_getattr`.
"""

from __future__ import annotations

import collections
import decimal
import operator
import types
from typing import Any

from .modules import ModuleProxy
from .records import DomainCollection, DomainNamespace, FrozenMap, ReadOnlyError, ReadOnlyList, Record


class OutputLimitExceeded(BaseException):
    """Printed output went over the limit (not catchable with ``except Exception``)."""


class CPUTimeExceeded(BaseException):
    """The per-run CPU limit was hit (raised from the SIGXCPU handler)."""


class AgentClassMeta(type):
    """Metaclass of classes defined by agent code (RestrictedPython's ``__metaclass__``).

    Instances of these classes (and the classes themselves) belong to the
    agent, so the write guard lets it set their attributes.
    """


# Objects agent code may mutate in place: containers it creates itself.
_WRITABLE_TYPES = frozenset(
    {
        list,
        dict,
        set,
        bytearray,
        collections.Counter,
        collections.defaultdict,
        collections.OrderedDict,
        collections.deque,
        decimal.Context,
    }
)


def guarded_write(obj: Any) -> Any:
    """``_write_``: allow writes only to the agent's own objects."""
    cls = type(obj)
    if cls in _WRITABLE_TYPES or type(cls) is AgentClassMeta or cls is AgentClassMeta:
        return obj
    if isinstance(obj, ModuleProxy):
        raise ReadOnlyError(f"module '{obj._module_name}' is read-only in the sandbox")
    if isinstance(obj, (Record, DomainNamespace, ReadOnlyList, FrozenMap)):
        raise ReadOnlyError(
            f"cannot modify {cls.__name__!r} objects: the state is read-only (copy it first, e.g. list(...), dict(...))"
        )
    raise ReadOnlyError(f"cannot modify {cls.__name__!r} objects in the sandbox")


# Attribute names that are dangerous on some objects (str.format walks
# attributes of its arguments, type.mro reaches object) but may be legitimate
# record fields.  Code compiled by the policy reads them through this guard.
SENSITIVE_ATTRIBUTES = frozenset({"format", "format_map", "mro", "register", "with_traceback"})


def guarded_getattr(obj: Any, name: str, default: Any = None) -> Any:
    """``_getattr_``: only used for :data:`SENSITIVE_ATTRIBUTES` names.

    They are readable on state records (as fields) and domains, nowhere else.
    """
    if type(name) is not str or name.startswith("_"):
        raise AttributeError(f"attribute {name!r} is not allowed in the sandbox")
    if isinstance(obj, (Record, DomainNamespace, DomainCollection)):
        value = getattr(obj, name)
        if isinstance(value, types.ModuleType):
            # never hand out a real module, whatever holds it
            raise AttributeError(f"attribute '{name}' is a module, which the sandbox does not give out")
        return value
    raise AttributeError(
        f"attribute '{name}' of {type(obj).__name__!r} objects is not allowed in the sandbox"
        + (" (use f-strings instead of str.format)" if name in ("format", "format_map") else "")
    )


guarded_getitem = operator.getitem


def guarded_getiter(obj: Any) -> Any:
    """``_getiter_``: plain iteration (state items are read-only objects already)."""
    return iter(obj)


def guarded_iter_unpack_sequence(it: Any, spec: Any, _getiter_: Any) -> Any:
    """``_iter_unpack_sequence_``: ``for a, b in pairs`` — Python unpacks natively."""
    return iter(it)


def guarded_unpack_sequence(it: Any, spec: Any, _getiter_: Any) -> Any:
    """``_unpack_sequence_``: ``a, b = pair`` — Python unpacks natively."""
    return it


_INPLACE = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "&=": operator.iand,
    "|=": operator.ior,
    "^=": operator.ixor,
    "@=": operator.imatmul,
}


def guarded_inplacevar(op: str, target: Any, value: Any) -> Any:
    """``_inplacevar_``: ``x += y`` on a plain name."""
    return _INPLACE[op](target, value)


def guarded_apply(func: Any, *args: Any, **kwargs: Any) -> Any:
    """``_apply_``: calls written with ``*args``/``**kwargs``."""
    return func(*args, **kwargs)


class PrintCollector:
    """Collects ``print`` output of one run, up to a character limit.

    RestrictedPython creates ``_print = _print_(_getattr_)`` in every scope;
    :meth:`factory` returns this shared collector so all scopes write to the
    same buffer.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.exceeded = False

    def factory(self, _getattr_: Any = None) -> "PrintCollector":
        return self

    def _call_print(
        self, *objects: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False
    ) -> None:
        if self.exceeded:
            # already over the limit: refuse at once, before building any text
            raise OutputLimitExceeded(f"printed output exceeded {self.limit} characters")
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if not isinstance(sep, str) or not isinstance(end, str):
            raise TypeError("sep and end must be strings")
        text = sep.join(str(o) for o in objects) + end
        if self.size + len(text) > self.limit:
            room = max(0, self.limit - self.size)
            if room:
                self.parts.append(text[:room])
                self.size += room
            self.exceeded = True
            raise OutputLimitExceeded(f"printed output exceeded {self.limit} characters")
        self.parts.append(text)
        self.size += len(text)

    def __call__(self) -> str:
        return "".join(self.parts)

    def text(self) -> str:
        return "".join(self.parts)
