"""Sandboxed Python for analysis code written by language models.

Public API::

    sandbox.run(code, state=None, *, limits=None, require_jail=None) -> RunResult
    sandbox.Session(state=None, *, limits=None, require_jail=None)   # .run(code), .close()
    sandbox.RunResult, sandbox.Limits
    sandbox.detect_level() -> SandboxLevel
    sandbox.codec.encode_state(domains, facts=None) -> dict
    sandbox.tool.python_tool(payload=None, output_chars=8000) -> dict   # description from the policy
    sandbox.tool.PYTHON_TOOL, sandbox.tool.execute_tool_call(session, arguments, max_chars=8000) -> str
    sandbox.tool.cap_output(run_json, max_chars) -> str
    sandbox.catalog.catalog(payload) -> StateCatalog
    sandbox.SandboxError, sandbox.SandboxUnavailable

This package never imports ``uac``.  Names are loaded lazily so the worker
process, which imports ``sandbox.worker``, does not pay for the host side.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "run": "session",
    "Session": "session",
    "RunResult": "result",
    "Limits": "limits",
    "detect_level": "jail",
    "SandboxLevel": "jail",
    "SandboxError": "errors",
    "SandboxUnavailable": "errors",
    "encode_state": "codec",
}

__all__ = list(sorted(_EXPORTS))


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
