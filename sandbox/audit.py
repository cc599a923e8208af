"""The worker's audit hook: once agent code can run, the interpreter refuses to
open files, list directories, load modules, call C functions through ctypes,
use sockets, start processes, or hand out frames and objects
through ``gc``.

:func:`install` adds a :func:`sys.addaudithook` hook that lets through only the
audit events of the worker's own work (:data:`ALLOWED_EVENTS`) and raises
``PermissionError`` for every other one -- ``open`` (``open()``, ``os.open``,
``io.open_code``), ``os.listdir``, ``import`` of a module not loaded yet,
``ctypes.*``, ``socket.*``, ``subprocess.Popen``, ``os.system``, ``gc.*``,
``sys._getframe``, ``sys.addaudithook`` and the rest.  The worker installs it
after its own setup (every module agent code may use is loaded by then) and
before the first run.  So code that got past the policy to a real ``open`` or
``os.listdir`` still reads nothing, at every level.

An audit hook cannot be removed.  This one holds no state and looks nothing up
when it runs: the allowed events and the exception type are bound when it is
made, and nothing but the interpreter keeps a reference to it.  Like every
check inside the process it is a second line behind the policy: code that can
corrupt the interpreter's memory gets past it.  The jail is the boundary.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

#: Audit events the worker needs after its setup; every other event is refused.
ALLOWED_EVENTS = frozenset(
    {
        # the worker compiles and runs agent code; namedtuple builds its __new__ with eval
        "compile",
        "exec",
        # attribute audits (tb_frame for the line of an error, attributes of agent
        # classes): what agent code may read is the policy's decision
        "object.__getattr__",
        "object.__setattr__",
        "object.__delattr__",
        # id() in repl_names()
        "builtins.id",
        # the per-run CPU window (raising a hard limit needs root, which the worker is not)
        "resource.setrlimit",
        # an exception nobody caught, and the interpreter's shutdown
        "sys.excepthook",
        "sys.unraisablehook",
        "cpython._PySys_ClearAuditHooks",
    }
)

_installed = False


def _make_hook(allowed: frozenset[str] = ALLOWED_EVENTS) -> Callable[[str, Any], None]:
    def hook(event: str, args: Any, allowed: frozenset[str] = allowed, refused: type = PermissionError) -> None:
        if event not in allowed:
            raise refused(f"{event!r} is not allowed in the sandbox")

    return hook


def install() -> bool:
    """Install the hook in this process (once; it stays for the process's life)."""
    global _installed
    if not _installed:
        sys.addaudithook(_make_hook())
        _installed = True
    return True
