"""Importing the optional server packages with an error that names the extra."""

from __future__ import annotations

from types import ModuleType

from ..extras import require as _require


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise a :class:`ConfigError` naming ``pip install 'user-as-code[extra]'``."""
    return _require(module, extra)


def require_http() -> None:
    """Check that FastAPI and uvicorn (the ``server`` extra) are importable."""
    require("fastapi", "server")
    require("uvicorn", "server")


def require_mcp() -> None:
    """Check that the ``mcp`` package (the ``mcp`` extra) is importable."""
    require("mcp.server.mcpserver", "mcp")
