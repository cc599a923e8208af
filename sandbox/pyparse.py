"""``ast.parse`` and ``compile`` behind one process-wide lock.

CPython 3.11 keeps the AST converter's recursion depth in state shared by the
whole interpreter.  When a thread is switched out in the middle of a parse
(a finalizer run by the garbage collector is enough) and another thread
parses, either may fail with ``SystemError: AST constructor recursion depth
mismatch``.  uac parses generated files and agent code from several threads
at once (a compile writes domains side by side, a server answers several
requests), so every parse and compile of source text or a syntax tree, in
uac and in the sandbox, goes through here.

The lock is reentrant, so a finalizer that parses in the same thread cannot
deadlock it.
"""

from __future__ import annotations

import ast
import threading
from types import CodeType
from typing import Any, Callable, TypeVar

_LOCK = threading.RLock()

T = TypeVar("T")


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> Any:
    """``ast.parse(source, filename, mode)``, one thread at a time."""
    with _LOCK:
        return ast.parse(source, filename, mode)


def compile_code(
    source: "str | ast.Module | ast.Expression | ast.Interactive", filename: str, mode: str = "exec"
) -> CodeType:
    """``compile(source, filename, mode)``, one thread at a time."""
    with _LOCK:
        return compile(source, filename, mode)


def locked(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)`` under the parse lock (a library's own compile of a tree)."""
    with _LOCK:
        return call(*args, **kwargs)
