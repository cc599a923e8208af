"""The builtins available to agent code."""

from __future__ import annotations

import builtins as _py
from typing import Any

from .modules import guarded_import

# Builtins passed through unchanged: pure functions and types without a way
# to reach frames, globals, code or the file system.
_SAFE_NAMES = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex",
    "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex",
    "int", "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next",
    "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "str", "sum", "tuple", "zip",
    # exceptions agent code may raise or catch
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "IndexError",
    "KeyError", "LookupError", "NameError", "NotImplementedError", "OverflowError",
    "RecursionError", "RuntimeError", "StopIteration", "TypeError", "ValueError",
    "ZeroDivisionError", "ImportError", "ModuleNotFoundError", "UnicodeError",
    # constants
    "True", "False", "None", "NotImplemented", "Ellipsis",
)

# Deliberately absent (a NameError names this list): they reach objects,
# frames or the outside world.
FORBIDDEN_BUILTINS = (
    "getattr", "setattr", "delattr", "hasattr", "type", "vars", "dir", "globals", "locals",
    "eval", "exec", "compile", "open", "__import__", "breakpoint", "input", "memoryview",
    "object", "super", "classmethod", "staticmethod", "property", "help", "exit", "quit",
    "id", "bytearray",
)


def make_builtins(print_factory: Any, metaclass: type) -> dict[str, Any]:
    """Builtins dict for one run (``print`` goes to the run's collector)."""
    table: dict[str, Any] = {name: getattr(_py, name) for name in _SAFE_NAMES if hasattr(_py, name)}
    table["__import__"] = guarded_import
    table["__build_class__"] = _py.__build_class__
    table["_print_"] = print_factory
    table["__metaclass__"] = metaclass
    return table
