"""The optional parts of uac, the extras that install them, and one error for a missing one.

``pip install user-as-code`` is the core (ingest, compile, search, ask, the sandbox,
the CLI).  Everything else comes with an extra; code that needs one imports it
through :func:`require`, so a missing package is one line that says what to install.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import ConfigError

#: the name on the package index (the import name and the command are ``uac``)
DISTRIBUTION = "user-as-code"

#: extra -> what it adds
EXTRAS = {
    "server": "the HTTP API and the web inspector (FastAPI, uvicorn)",
    "inspector": "the web inspector (the same packages as server)",
    "mcp": "the MCP server",
    "chroma": "Chroma: an embedded Chroma store beside the flat vector copies, or a Chroma server",
    "plots": "plots in benchmark reports (matplotlib)",
    "bench": "the benchmark harnesses' scoring (nltk's Porter stemmer for LoCoMo's token F1)",
    "openai-agents": "memory tools for the OpenAI Agents SDK (uac.integrations.openai_agents)",
    "pydantic-ai": "the memory toolset for pydantic-ai (uac.integrations.pydantic_ai)",
    "langgraph": "LangChain memory tools and a LangGraph store (uac.integrations.langgraph)",
    "reference": "the reference embedder, sentence-transformers on torch (UAC_EMBEDDINGS=torch)",
    "dev": "the test suite's tools",
}


def install_command(extra: str) -> str:
    """The pip command that installs ``extra``."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def require(module: str, extra: str, *, what: str | None = None) -> ModuleType:
    """Import ``module``, or raise a :class:`ConfigError` naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        needed = what or EXTRAS.get(extra, module)
        raise ConfigError(
            f"{needed} needs the {module.split('.')[0]} package, which is not installed ({exc}).",
            hint=f"Install the {extra} extra: {install_command(extra)}.",
        ) from None
