"""Importing the optional server packages with an error that names the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import ConfigError


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise a :class:`ConfigError` naming ``pip install 'uac[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ConfigError(
            f"the {module.split('.')[0]} package is not installed ({exc}).",
            hint=f"Install the extra: pip install 'uac[{extra}]'.",
        ) from None


def require_http() -> None:
    """Check that FastAPI and uvicorn (the ``server`` extra) are importable."""
    require("fastapi", "server")
    require("uvicorn", "server")


def require_mcp() -> None:
    """Check that the ``mcp`` package (the ``mcp`` extra) is importable."""
    require("mcp.server.mcpserver", "mcp")
