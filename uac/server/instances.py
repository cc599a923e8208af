"""The ``UserMemory`` instances a server works with: one warm instance per project,
shared by readers, and a fresh one for each write.

The warm instance is replaced when the project's files change on disk (a write by
this server or by another process) and dropped when its files turn out damaged or
gone.  Every instance's model calls and sandbox runs hold the server's slots
(:mod:`uac.server.admission`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, TypeVar

from ..errors import ConfigError, FormatVersionError, NotAProject, ProjectNotFound, StoreError
from ..llm import LLMClient
from ..memory import UserMemory
from ..project import Project, is_project
from .admission import Admission
from .warm import Sweeper, WarmProject, WarmSet

if TYPE_CHECKING:
    from ..llm.types import ChatRequest, ChatResponse

T = TypeVar("T")

#: errors that mean a project's files are damaged or gone: its warm instance is dropped
_BROKEN = (StoreError, NotAProject, ProjectNotFound, FormatVersionError, ConfigError)


def _stat_key(path: Path) -> tuple[int, int, int]:
    from ..filestamp import FileStamp

    return FileStamp.of(path)


def _signature(root: Path) -> tuple:
    """What changes when a project's files do (the warm instance is then replaced)."""
    return (
        _stat_key(root / "uac.toml"),
        _stat_key(root / "memory" / "facts.jsonl"),
        _stat_key(root / "MANIFEST.md"),
        _stat_key(root / ".uac" / "index" / "facts.jsonl"),
        _stat_key(root / ".uac" / "index" / "archive.jsonl"),
    )


class _BoundedProvider:
    """A model provider whose calls each hold one of the server's model slots."""

    def __init__(self, provider: Any, admission: Admission, project: str) -> None:
        self.inner = provider
        self.name = provider.name
        self.model = provider.model
        self._admission = admission
        self._project = project

    def complete(self, request: "ChatRequest") -> "ChatResponse":
        with self._admission.model.hold(self._project, self._admission.limits.model_wait_seconds):
            return self.inner.complete(request)


class _ProjectSlots:
    """The :class:`~uac.context.WorkSlots` of one served project."""

    def __init__(self, admission: Admission, project: str) -> None:
        self._admission = admission
        self._project = project

    def sandbox(self) -> AbstractContextManager[None]:
        return self._admission.sandbox.hold(self._project, self._admission.limits.busy_wait_seconds)

    def wrap_llm(self, client: LLMClient) -> LLMClient:
        if not isinstance(client.provider, _BoundedProvider):
            client.provider = _BoundedProvider(client.provider, self._admission, self._project)
        return client


class ProjectInstances:
    """The opened projects of a server: warm readers in the working set ``warm`` (at most
    ``warm_projects``, each dropped after ``idle_seconds`` by ``sweeper``), fresh writers
    on demand."""

    def __init__(
        self,
        path_of: Callable[[str], Path],
        admission: Admission,
        llm_factory: Callable[[Project], LLMClient | None] | None = None,
    ) -> None:
        self._path_of = path_of
        self._admission = admission
        self._llm_factory = llm_factory
        limits = admission.limits
        self.warm = WarmSet(limits.warm_projects, limits.idle_seconds or float("inf"))
        period = min(60.0, max(1.0, limits.idle_seconds / 4)) if limits.idle_seconds else 3600.0
        self.sweeper = Sweeper(self.warm, period)

    def _new(self, name: str, root: Path) -> UserMemory:
        project = Project.open(root)
        llm = self._llm_factory(project) if self._llm_factory is not None else None
        memory = UserMemory(project, llm=llm)
        memory.context.bind_work_slots(_ProjectSlots(self._admission, name))
        return memory

    def _root(self, name: str) -> Path:
        """The project's root; a project that is gone (or no longer a project) leaves the
        working set and raises the library's error."""
        root = self._path_of(name)
        if not is_project(root):
            self.warm.drop(name, "its directory is gone or is no longer a user project")
            Project.open(root)  # raises the library's not-found / not-a-project error
        return root

    @contextmanager
    def _using(self, name: str) -> Iterator[WarmProject]:
        root = self._root(name)
        signature = _signature(root)
        self.sweeper.start()
        with self.warm.use(name, signature, lambda: self._new(name, root)) as entry:
            try:
                yield entry
            except _BROKEN as exc:
                # a project damaged under a warm instance: never serve it from memory again
                self.warm.drop(name, f"{type(exc).__name__}: {exc}", expected=entry)
                raise

    def reader(self, name: str) -> UserMemory:
        """A warm ``UserMemory`` for reading project ``name``'s files (shared between
        requests).  Use it for file reads only: its search index may be closed at
        any time (:meth:`searching` holds it open)."""
        with self._using(name) as entry:
            return entry.memory

    def reading(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` on the warm instance of ``name``, for calls that only read files."""
        with self._using(name) as entry:
            return work(entry.memory)

    @contextmanager
    def searching(self, name: str) -> Iterator[UserMemory]:
        """The warm ``UserMemory`` of ``name``, held alone for a call that uses its search index."""
        with self._using(name) as entry:
            with entry.lock:
                try:
                    yield entry.memory
                finally:
                    memory = entry.memory
                    if memory.context.index_open and memory.index.client_open:
                        # embedded searches read the flat vector copy; a Chroma client opened
                        # for a fallback is closed again, so warm projects hold no threads
                        memory.index.release_client()

    def searched(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` on the warm instance of ``name``, alone on its search index."""
        with self.searching(name) as memory:
            return work(memory)

    def writer(self, name: str) -> UserMemory:
        """A fresh ``UserMemory`` for one write to project ``name`` (close it when done)."""
        memory = self._new(name, self._root(name))
        if memory.index.backend == "http":
            memory.index.client()  # reach the Chroma server now: fail here, not mid-write
        return memory


__all__ = ["ProjectInstances"]
