"""The heavy third-party packages, imported one stack at a time.

uac imports numpy, onnxruntime, tokenizers and chromadb inside the functions
that need them, so ``import uac`` stays light.  In a process that serves many
requests at once, the first requests may reach those imports from several
threads at the same moment, and CPython (before 3.15) does not make that safe:
it takes one lock per module, and a thread that imports ``numpy`` while another
reaches straight into a numpy submodule (chromadb's ``from numpy.typing import
NDArray``; onnxruntime's extension importing numpy's core) takes the same locks
in the opposite order.  The import system's deadlock detector then raises in
one thread or hands it a half-initialised module.  A package that bound such a
module at import keeps it, and a C extension that was initialised once cannot
be initialised again, so the process can stay broken until it restarts.

:func:`load` imports a named stack -- numpy first, then the packages built on
it -- under one process-wide lock, so two of these imports never overlap; once
numpy is fully imported, a plain ``import numpy`` anywhere else is a lookup.
A stack that fails to import is not recorded as loaded: the next call tries
again and raises again, with a :class:`~uac.errors.StoreError` that names the
package and the cause.  :func:`load` is cheap once a stack is loaded.
"""

from __future__ import annotations

import importlib
import sys
import threading

from .errors import StoreError

_NUMPY = ("numpy", "numpy.typing", "numpy.linalg")

#: stack name -> the modules it imports, in this order
STACKS: dict[str, tuple[str, ...]] = {
    "numpy": _NUMPY,
    "embeddings": (*_NUMPY, "tokenizers", "onnxruntime"),
    "torch": (*_NUMPY, "torch", "sentence_transformers"),
    "chroma": (*_NUMPY, "chromadb", "chromadb.config", "chromadb.errors", "chromadb.api.shared_system_client"),
}

#: what each stack needs installed, for the error's hint
_HINTS = {
    "torch": "Install the reference extra (pip install 'user-as-code[reference]'), or unset UAC_EMBEDDINGS.",
    "chroma": "Install the chroma extra (pip install 'user-as-code[chroma]'); if it was imported before in "
    "this process, restart the process.",
}

_lock = threading.RLock()
_loaded: set[str] = set()


def load(stack: str) -> None:
    """Import every module of ``stack`` (a key of :data:`STACKS`), serialised with
    every other stack's import; raises :class:`StoreError` if one cannot be imported."""
    if stack in _loaded:
        return
    modules = STACKS[stack]
    with _lock:
        if stack in _loaded:
            return
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception as exc:  # an import may fail with anything its module body raises
                raise StoreError(
                    f"this process cannot import {name} ({type(exc).__name__}: {exc}).",
                    hint=_HINTS.get(
                        stack,
                        "Reinstall uac with its dependencies (pip install user-as-code); if it "
                        "was imported before in this process, restart the process.",
                    ),
                ) from exc
        _loaded.add(stack)


def loaded(stack: str) -> bool:
    """Has ``stack`` been imported completely in this process?"""
    return stack in _loaded and all(_complete(name) for name in STACKS[stack])


def _complete(name: str) -> bool:
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and not getattr(spec, "_initializing", False)
