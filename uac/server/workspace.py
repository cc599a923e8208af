"""The projects a server serves: every user project directly under one root.

:class:`ServedWorkspace` turns a project name from a request into an opened
:class:`~uac.UserMemory`, checks bearer tokens against the project's token
store, keeps one warm ``UserMemory`` per project for readers (its
``instances``, :class:`~uac.server.instances.ProjectInstances`), and admits work
within the server's bounds (:mod:`uac.server.admission`).

Readers (search, ask, run, manifest) share the cached instance; it is replaced
when the project's files change on disk (a write by this server or by another
process).  Calls that use the in-memory search index (search, ask) hold the
instance's lock (:meth:`ProjectInstances.searching
<uac.server.instances.ProjectInstances.searching>`), because the index reloads
itself when it notices a change; other reads (run, facts, manifest, domain
code) read files and need no lock.  Writers (add session, import, compile,
forget) work on a fresh instance each and are serialised by the project lock
the library takes for every write.

The ``async`` methods are what the adapters call: :meth:`write`,
:meth:`search`, :meth:`ask`, :meth:`run_sandbox`, :meth:`fresh` (doctor),
:meth:`read` and :meth:`peek` wait for their project's turn in the event loop
and only then take a thread, so requests that queue up for one project never
hold the threads other projects need.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..errors import ProjectLocked, ProjectNotFound
from ..llm import LLMClient
from ..memory import UserMemory
from ..project import Project, is_project
from ..workspace import validate_project_name
from .admission import SHUTDOWN_SECONDS, Admission, ServerLimits
from .capacity import open_file_limit
from .follow import ViewFollower
from .instances import ProjectInstances
from .tokens import TokenStore, admin_token_valid, well_formed
from .warm import Sweeper, WarmSet

T = TypeVar("T")


async def _in_thread(work: Callable[[], T], threads: int) -> T:
    import anyio.to_thread

    limiter = anyio.to_thread.current_default_thread_limiter()
    if limiter.total_tokens != threads:  # the event loop's pool, shared with the framework's sync routes
        limiter.total_tokens = threads
    return await anyio.to_thread.run_sync(work, limiter=limiter)


class ServedWorkspace:
    """All user projects under ``root`` (each a direct child directory)."""

    def __init__(
        self,
        root: str | Path,
        *,
        llm_factory: Callable[[Project], LLMClient | None] | None = None,
        limits: ServerLimits | None = None,
    ) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise ProjectNotFound(
                f"the server root {self.root} is not a directory.",
                hint="Create it (mkdir) or name the directory that holds the user projects.",
            )
        self.limits = limits or ServerLimits()
        self.admission = Admission(self.limits)
        #: the projects' UserMemory instances: warm readers (the working set), fresh writers
        self.instances = ProjectInstances(self.path_of, self.admission, llm_factory)
        self.warm: WarmSet = self.instances.warm
        self.sweeper: Sweeper = self.instances.sweeper
        #: the view's catch-up after an ingest, in the background (uac.server.follow)
        self.follower = ViewFollower(self.instances.writer, self.path_of)

    # -- names and paths --------------------------------------------------------

    def path_of(self, name: str) -> Path:
        """The directory of project ``name`` (validated: no separators, no ``..``)."""
        return self.root / validate_project_name(name)

    def exists(self, name: str) -> bool:
        return is_project(self.path_of(name))

    def names(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir() if p.is_dir() and is_project(p))

    # -- tokens -------------------------------------------------------------------

    def tokens(self, name: str) -> TokenStore:
        return TokenStore.for_project(self.path_of(name))

    def token_grants(self, name: str, token: str | None) -> bool:
        """True if ``token`` is one of project ``name``'s tokens (False for unknown projects).

        A token that is not even well formed is refused before the disk is touched."""
        path = self.path_of(name)
        if not well_formed(token) or not is_project(path):
            return False
        return TokenStore.for_project(path).verify(token) is not None

    def is_admin(self, token: str | None) -> bool:
        return admin_token_valid(self.root, token)

    # -- new projects and the working set ------------------------------------------

    def create(self, name: str, *, user_name: str | None = None, timezone: str = "UTC") -> UserMemory:
        root = self.path_of(name)
        return UserMemory.create(root, user_name=user_name, timezone=timezone)  # private to its owner, as every project

    def status(self) -> dict[str, Any]:
        """The working set and the bounds in force (``GET /v1/server``)."""
        return {
            "warm": len(self.warm),
            "warm_limit": self.limits.warm_projects,
            "idle_seconds": self.limits.idle_seconds,
            "threads": self.limits.threads,
            "writes": self.limits.writes,
            "open_files_limit": open_file_limit(),
            **self.warm.counts,
        }

    def close(self) -> None:
        """Release the warm projects' index clients and the shared Chroma clients (at shutdown),
        once the running catch-ups of the view are done or abandoned."""
        self.follower.shutdown(SHUTDOWN_SECONDS)
        self.sweeper.stop()
        self.warm.clear()
        from ..index.client import close_shared_clients

        close_shared_clients()

    # -- admitted work (adapters) ------------------------------------------------------

    async def _thread(self, work: Callable[[], T]) -> T:
        return await _in_thread(work, self.limits.threads)

    async def read(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` on the warm instance, for calls that only read files (one of the
        project's ``reads_per_project`` turns, waited for in the event loop)."""
        async with self.admission.reads.hold_async(name, self.limits.busy_wait_seconds):
            return await self._thread(lambda: self.instances.reading(name, work))

    async def peek(self, name: str, work: Callable[[], T]) -> T:
        """``work`` on a few small files of project ``name`` (reading or queueing a job's
        record), within the project's turns to read."""
        async with self.admission.reads.hold_async(name, self.limits.busy_wait_seconds):
            return await self._thread(work)

    async def fresh(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` on a fresh instance (doctor), without the project lock: one at a time
        per project, at most ``writes`` over all projects (each opens its vector store)."""

        def run() -> T:
            memory = self.instances.writer(name)
            try:
                return work(memory)
            finally:
                memory.close()

        async with self.admission.checks.hold_async(name, self.limits.busy_wait_seconds):
            return await self._thread(run)

    async def search(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` on the warm instance, alone on its search index."""
        async with self.admission.searches.hold_async(name, self.limits.busy_wait_seconds):
            return await self._thread(lambda: self.instances.searched(name, work))

    async def ask(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` with a model slot (its model calls use it) and the search index."""
        async with self.admission.model.hold_async(name, self.limits.busy_wait_seconds):
            async with self.admission.searches.hold_async(name, self.limits.busy_wait_seconds):
                return await self._thread(lambda: self.instances.searched(name, work))

    async def run_sandbox(self, name: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` (one sandbox run) once a sandbox worker is free for the project."""
        async with self.admission.sandbox.hold_async(name, self.limits.busy_wait_seconds):
            return await self._thread(lambda: self.instances.reading(name, work))

    async def write(self, name: str, purpose: str, work: Callable[[UserMemory], T]) -> T:
        """``work`` on a fresh instance, holding project ``name``'s lock.

        Writes of this server to one project take turns in the event loop; a
        lock held by another process (a CLI ``uac ingest``) is retried from the
        event loop too.  After ``lock_wait_seconds`` the write fails with
        ``ProjectLocked`` (and a ``Retry-After``).
        """
        wait = self.limits.lock_wait_seconds
        deadline = time.monotonic() + wait
        async with self.admission.writes.hold_async(name, wait):
            memory = await self._thread(lambda: self.instances.writer(name))
            try:
                pause = 0.05
                while True:
                    done, value = await self._thread(lambda: _write_if_free(memory, purpose, work))
                    if done:
                        return value
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:  # the last try was at the deadline: wait the whole lock_wait, no less
                        assert isinstance(value, ProjectLocked)
                        value.retry_after = max(1.0, min(wait, 5.0))
                        raise value
                    import anyio

                    await anyio.sleep(min(pause, remaining))
                    pause = min(pause * 2, 0.5)
            finally:
                memory.close()


def _write_if_free(memory: UserMemory, purpose: str, work: Callable[[UserMemory], T]) -> tuple[bool, Any]:
    """(True, result) -- or (False, the ProjectLocked) if another process holds the lock."""
    with ExitStack() as stack:
        try:
            stack.enter_context(memory.project.lock(purpose, timeout=0))
        except ProjectLocked as exc:
            return False, exc
        return True, work(memory)
