"""``AsyncUserMemory``: the Python API for asyncio programs (servers, agent frameworks).

Every method is the :class:`~uac.UserMemory` method of the same name, run in a
worker thread (:func:`asyncio.to_thread`), so a slow call -- an ingest, a compile,
an answer waiting for a model -- never blocks the event loop.  The calls of one
``AsyncUserMemory`` run one at a time, in the order they were made: a project's
in-memory indexes and view caches are then never used by two threads at once.
Different projects (one ``AsyncUserMemory`` each) run side by side.

>>> async with await AsyncUserMemory.open("user_projects/maya") as memory:  # doctest: +SKIP
...     hits = await memory.search("Who went to Kyoto?", k=5)

The sync object is :attr:`AsyncUserMemory.memory` for anything not offloaded
(for example :meth:`UserMemory.sandbox_session`, an interactive sandbox).
"""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from .memory import UserMemory

if TYPE_CHECKING:
    from .llm import LLMClient

T = TypeVar("T")

#: the UserMemory methods offered as coroutines (everything but the properties -- the
#: view is `await memory.load_state()` --
#: the interactive sandbox session and close, which AsyncUserMemory has its own of)
OFFLOADED = (
    "doctor",
    "compile",
    "import_records",
    "load_state",
    "sandbox_state",
    "ingest",
    "add_session",
    "search",
    "search_many",
    "facts",
    "sessions",
    "session",
    "forget",
    "correct",
    "overview",
    "domain_tables",
    "record",
    "fact",
    "records_citing",
    "turn",
    "history",
    "changed_domains",
    "diff",
    "view_at",
    "export",
    "ask",
    "run",
    "view_lag",
)


def _offloaded(name: str) -> Callable[..., Any]:
    sync = getattr(UserMemory, name)

    @functools.wraps(sync)
    async def method(self: "AsyncUserMemory", *args: Any, **kwargs: Any) -> Any:
        return await self._call(getattr(self.memory, name), *args, **kwargs)

    method.__doc__ = f"Async :meth:`UserMemory.{name}` (run in a worker thread).\n\n{sync.__doc__ or ''}"
    return method


class AsyncUserMemory:
    """A :class:`~uac.UserMemory` whose methods are coroutines (see the module docstring)."""

    def __init__(self, memory: UserMemory) -> None:
        if not isinstance(memory, UserMemory):
            raise TypeError(f"AsyncUserMemory wraps a UserMemory, not {type(memory).__name__}")
        self.memory = memory
        self._turn: asyncio.Lock | None = None

    @classmethod
    async def open(cls, spec: str | Path, *, llm: "LLMClient | None" = None) -> "AsyncUserMemory":
        """Open an existing project (:meth:`UserMemory.open`), off the event loop."""
        return cls(await asyncio.to_thread(UserMemory.open, spec, llm=llm))

    @classmethod
    async def create(
        cls, spec: str | Path, *, user_name: str | None = None, timezone: str = "UTC", llm: "LLMClient | None" = None
    ) -> "AsyncUserMemory":
        """Create a new project (:meth:`UserMemory.create`), off the event loop."""
        return cls(await asyncio.to_thread(UserMemory.create, spec, user_name=user_name, timezone=timezone, llm=llm))

    @classmethod
    async def open_or_create(
        cls, spec: str | Path, *, user_name: str | None = None, timezone: str = "UTC", llm: "LLMClient | None" = None
    ) -> "AsyncUserMemory":
        """Open the project, or create it when nothing is there (:meth:`UserMemory.open_or_create`)."""
        return cls(
            await asyncio.to_thread(UserMemory.open_or_create, spec, user_name=user_name, timezone=timezone, llm=llm)
        )

    @property
    def root(self) -> Path:
        return self.memory.root

    def __repr__(self) -> str:
        return f"AsyncUserMemory({str(self.root)!r})"

    async def _call(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._turn is None:  # made on first use, inside the running loop
            self._turn = asyncio.Lock()
        async with self._turn:
            return await asyncio.to_thread(function, *args, **kwargs)

    async def close(self) -> None:
        """Release index clients and files, after the calls already made have finished."""
        await self._call(self.memory.close)

    async def __aenter__(self) -> "AsyncUserMemory":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    for _name in OFFLOADED:
        locals()[_name] = _offloaded(_name)
    del _name
