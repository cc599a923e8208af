"""The projects a server serves: every user project directly under one root.

:class:`ServedWorkspace` turns a project name from a request into an opened
:class:`~uac.UserMemory`, checks bearer tokens against the project's token
store, and keeps one warm ``UserMemory`` per project for readers.

Readers (search, ask, run, manifest) share the cached instance; it is replaced
when the project's files change on disk (a write by this server or by another
process).  Calls that use the in-memory search index (search, ask) hold the
instance's lock (:meth:`ServedWorkspace.searching`), because the index reloads
itself when it notices a change; other reads (run, facts, manifest, domain
code) read files and need no lock.  Writers
(add session, import, compile, forget) work on a fresh instance each and are
serialised by the project lock the library takes for every write.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from ..errors import ProjectNotFound
from ..llm import LLMClient
from ..memory import UserMemory
from ..project import Project, is_project
from ..workspace import validate_project_name
from .tokens import TokenStore, admin_token_valid

#: how many warm projects a server keeps open
CACHE_SIZE = 64


def _stat_key(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return (0, -1)
    return (stat.st_mtime_ns, stat.st_size)


class ServedWorkspace:
    """All user projects under ``root`` (each a direct child directory)."""

    def __init__(self, root: str | Path, *, llm_factory: Callable[[Project], LLMClient | None] | None = None) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise ProjectNotFound(
                f"the server root {self.root} is not a directory.",
                hint="Create it (mkdir) or pass the directory that holds the user projects with --root.",
            )
        self._llm_factory = llm_factory
        self._guard = threading.Lock()
        self._warm: OrderedDict[str, tuple[tuple, UserMemory, threading.Lock]] = OrderedDict()

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
        """True if ``token`` is one of project ``name``'s tokens (False for unknown projects)."""
        path = self.path_of(name)
        if not is_project(path):
            return False
        return TokenStore.for_project(path).verify(token) is not None

    def is_admin(self, token: str | None) -> bool:
        return admin_token_valid(self.root, token)

    # -- opening --------------------------------------------------------------------

    def _signature(self, root: Path) -> tuple:
        return (
            _stat_key(root / "uac.toml"),
            _stat_key(root / "memory" / "facts.jsonl"),
            _stat_key(root / "MANIFEST.md"),
            _stat_key(root / ".uac" / "index" / "facts.jsonl"),
            _stat_key(root / ".uac" / "index" / "archive.jsonl"),
        )

    def _new(self, root: Path) -> UserMemory:
        project = Project.open(root)
        llm = self._llm_factory(project) if self._llm_factory is not None else None
        memory = UserMemory(project, llm=llm)
        memory.index.client()  # open the vector store now: fail here, not mid-request
        return memory

    def _warm_entry(self, name: str) -> tuple[UserMemory, threading.Lock]:
        root = self.path_of(name)
        if not is_project(root):
            Project.open(root)  # raises the library's not-found / not-a-project error
        signature = self._signature(root)
        with self._guard:
            cached = self._warm.get(name)
            if cached is not None and cached[0] == signature:
                self._warm.move_to_end(name)
                return cached[1], cached[2]
        memory, lock = self._new(root), threading.Lock()
        with self._guard:
            self._warm[name] = (signature, memory, lock)
            self._warm.move_to_end(name)
            while len(self._warm) > CACHE_SIZE:
                self._warm.popitem(last=False)
        return memory, lock

    def reader(self, name: str) -> UserMemory:
        """A warm ``UserMemory`` for reading project ``name``'s files (shared between requests)."""
        return self._warm_entry(name)[0]

    @contextmanager
    def searching(self, name: str) -> Iterator[UserMemory]:
        """The warm ``UserMemory`` of ``name``, held alone for a call that uses its search index."""
        memory, lock = self._warm_entry(name)
        with lock:
            yield memory

    def writer(self, name: str) -> UserMemory:
        """A fresh ``UserMemory`` for one write to project ``name``."""
        root = self.path_of(name)
        if not is_project(root):
            Project.open(root)
        return self._new(root)

    def create(self, name: str, *, user_name: str | None = None, timezone: str = "UTC") -> UserMemory:
        root = self.path_of(name)
        memory = UserMemory.create(root, user_name=user_name, timezone=timezone)
        os.chmod(root, 0o700)
        return memory
