"""uac -- User as Code: a long-term memory compiler for AI agents.

``import uac`` is light: heavy parts (torch, chromadb, the sandbox) load only
when a feature needs them.

>>> from uac import UserMemory
>>> memory = UserMemory.create("user_projects/alice", user_name="Alice")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import UacError

if TYPE_CHECKING:
    from .memory import UserMemory

__all__ = ["UserMemory", "UacError", "__version__"]


def __getattr__(name: str) -> Any:
    if name == "UserMemory":
        from .memory import UserMemory

        return UserMemory
    raise AttributeError(f"module 'uac' has no attribute {name!r}")
