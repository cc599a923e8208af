"""The builtins available to agent code."""

from __future__ import annotations

import builtins as _py
from typing import Any

from .modules import guarded_import

# Builtins passed through unchanged: pure functions and types without a way
# to reach frames, globals, code or the file system.
SAFE_BUILTINS = _SAFE_NAMES = (
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytes",
    "callable",
    "chr",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hash",
    "hex",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "oct",
    "ord",
    "pow",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "str",
    "sum",
    "tuple",
    "zip",
    # exceptions agent code may raise or catch
    "ArithmeticError",
    "AssertionError",
    "AttributeError",
    "Exception",
    "IndexError",
    "KeyError",
    "LookupError",
    "NameError",
    "NotImplementedError",
    "OverflowError",
    "RecursionError",
    "RuntimeError",
    "StopIteration",
    "TypeError",
    "ValueError",
    "ZeroDivisionError",
    "ImportError",
    "ModuleNotFoundError",
    "UnicodeError",
    # constants
    "True",
    "False",
    "None",
    "NotImplemented",
    "Ellipsis",
)

# Deliberately absent (a NameError names this list): they reach objects,
# frames or the outside world.
FORBIDDEN_BUILTINS = (
    "getattr",
    "setattr",
    "delattr",
    "hasattr",
    "type",
    "vars",
    "dir",
    "globals",
    "locals",
    "eval",
    "exec",
    "compile",
    "open",
    "__import__",
    "breakpoint",
    "input",
    "memoryview",
    "object",
    "super",
    "classmethod",
    "staticmethod",
    "property",
    "help",
    "exit",
    "quit",
    "id",
    "bytearray",
)


# What to write instead of each unavailable builtin (error messages and the
# tool description say it).
ALTERNATIVES = {
    "type": "isinstance(x, T) to test a type, type_name(x) for its name",
    "getattr": "record_dict(r)[name] to read a field by name",
    "hasattr": "name in record_fields(r)",
    "setattr": "a dict of your own (the state is read-only)",
    "delattr": "a dict of your own (the state is read-only)",
    "vars": "record_dict(r) for a record, repl_names() for the session",
    "dir": "repl_names() for what is defined, record_fields(r) for a record's fields",
    "globals": "repl_names()",
    "locals": "repl_names()",
    "help": "repl_names() and record_fields(r)",
    "eval": "plain code",
    "exec": "plain code",
    "compile": "plain code",
    "__import__": "an import statement of an allowed module",
    "open": "the collections in memory; there are no files",
    "input": "the collections in memory",
    "id": "== or is",
    "object": "a class of your own",
    "super": "a function or a class of your own",
}

#: Attribute names starting with ``_`` that agent code tends to reach for, and what to use.
ATTRIBUTE_ALTERNATIVES = {
    "__class__": "type_name(x), or isinstance(x, T)",
    "__name__": "type_name(x)",
    "__dict__": "record_dict(r)",
    "_asdict": "record_dict(r)",
    "_fields": "record_fields(r)",
    "__members__": "list(EnumType)",
}

#: The helpers the sandbox adds to Python's builtins.
HELPERS = {
    "repl_names": "repl_names() lists what is defined: the state's collections, your variables, modules and helpers",
    "record_fields": "record_fields(r) is the tuple of a record's field names",
    "record_dict": "record_dict(r) is a record's fields as a dict",
    "type_name": "type_name(x) is the name of x's type, e.g. 'Trip', 'date', 'str'",
}


def type_name(value: Any) -> str:
    """The name of a value's type (``type`` itself is not available)."""
    return type(value).__name__


def _record_of(value: Any, helper: str) -> Any:
    from .records import Record

    if not isinstance(value, Record):
        raise TypeError(f"{helper}() takes a state record, not {type(value).__name__!r}")
    return value


def record_fields(value: Any) -> tuple[str, ...]:
    """The field names of a state record."""
    return tuple(_record_of(value, "record_fields")._fields)


def record_dict(value: Any) -> dict[str, Any]:
    """A state record's fields as a new dict."""
    return dict(_record_of(value, "record_dict")._asdict())


def make_builtins(print_factory: Any, metaclass: type, names: Any = None) -> dict[str, Any]:
    """Builtins dict for one run (``print`` goes to the run's collector;
    ``names`` is the worker's ``repl_names`` function)."""
    table: dict[str, Any] = {name: getattr(_py, name) for name in _SAFE_NAMES if hasattr(_py, name)}
    table.update({"type_name": type_name, "record_fields": record_fields, "record_dict": record_dict})
    if names is not None:
        table["repl_names"] = names
    table["__import__"] = guarded_import
    table["__build_class__"] = _py.__build_class__
    table["_print_"] = print_factory
    table["__metaclass__"] = metaclass
    return table
