"""The working set of a server: the projects it keeps warm, bounded.

A warm project is an opened :class:`~uac.UserMemory` whose corpus tables and
BM25 indexes stay loaded between requests, so its next search skips reading
them.  :class:`WarmSet` keeps at most ``capacity`` of them, least recently
used first out, and lets go of any that no request used for ``idle_seconds``.
Letting go closes the project's index (its Chroma client, threads and files);
a project in use at that moment is closed when its last request ends.  A
project that is not warm costs the server nothing.

The set also counts what happened (opened, evicted for room, expired, dropped
because the project changed, vanished or failed), for the server's status
route and its log.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, Iterator

if TYPE_CHECKING:
    from ..memory import UserMemory

log = logging.getLogger(__name__)


class WarmProject:
    """One warm project: its ``UserMemory``, the file signature it was opened at,
    the lock of calls that use its search index, and who is using it."""

    __slots__ = ("name", "memory", "signature", "lock", "users", "last_used", "retired", "_guard", "_clock")

    def __init__(
        self, name: str, memory: "UserMemory", signature: tuple, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = name
        self.memory = memory
        self.signature = signature
        self.lock = threading.Lock()
        self.users = 0
        self._clock = clock
        self.last_used = clock()
        self.retired = False
        self._guard = threading.Lock()

    def _enter(self) -> bool:
        with self._guard:
            if self.retired:
                return False
            self.users += 1
            self.last_used = self._clock()
            return True

    def _leave(self) -> None:
        with self._guard:
            self.users -= 1
            self.last_used = self._clock()
            close = self.retired and self.users == 0
        if close:
            self._close()

    def retire(self) -> None:
        """Close now, or when the last request using it ends."""
        with self._guard:
            if self.retired:
                return
            self.retired = True
            close = self.users == 0
        if close:
            self._close()

    def _close(self) -> None:
        self.memory.close()


class WarmSet:
    """At most ``capacity`` warm projects, least recently used out first."""

    def __init__(self, capacity: int, idle_seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity!r}")
        self.capacity = capacity
        self.idle_seconds = idle_seconds
        self._clock = clock
        self._guard = threading.Lock()
        self._warm: OrderedDict[str, WarmProject] = OrderedDict()
        self.counts = {"opened": 0, "evicted": 0, "expired": 0, "dropped": 0}

    def __len__(self) -> int:
        with self._guard:
            return len(self._warm)

    def names(self) -> list[str]:
        """The warm projects, least recently used first."""
        with self._guard:
            return list(self._warm)

    @contextmanager
    def use(self, name: str, signature: tuple, open_project: Callable[[], "UserMemory"]) -> Iterator[WarmProject]:
        """The warm project ``name`` while the block runs: the one already warm if it
        was opened at ``signature``, else a new one from ``open_project()`` (the old
        one is dropped first, so a project that changed is never served stale)."""
        entry = self._acquire(name, signature, open_project)
        try:
            yield entry
        finally:
            entry._leave()

    def _acquire(self, name: str, signature: tuple, open_project: Callable[[], "UserMemory"]) -> WarmProject:
        while True:
            with self._guard:
                entry = self._warm.get(name)
                if entry is not None and entry.signature == signature:
                    self._warm.move_to_end(name)
                    if entry._enter():
                        return entry
                    continue  # retired between lookup and use: it is leaving the set
            if entry is not None:
                self.drop(name, "its files changed on disk", expected=entry, level=logging.DEBUG)
            memory = open_project()
            fresh = WarmProject(name, memory, signature, self._clock)
            fresh._enter()
            with self._guard:
                previous = self._warm.pop(name, None)
                self._warm[name] = fresh
                self.counts["opened"] += 1
                out = []
                while len(self._warm) > self.capacity:
                    _, oldest = self._warm.popitem(last=False)
                    out.append(oldest)
                self.counts["evicted"] += len(out)
            for old in ([previous] if previous is not None else []) + out:
                old.retire()
            return fresh

    def drop(self, name: str, why: str, *, expected: WarmProject | None = None, level: int = logging.WARNING) -> bool:
        """Let go of ``name`` (if warm, and if it is still ``expected`` when given); logs ``why``."""
        with self._guard:
            entry = self._warm.get(name)
            if entry is None or (expected is not None and entry is not expected):
                return False
            del self._warm[name]
            self.counts["dropped"] += 1
        log.log(level, "project %r left the working set: %s", name, why)
        entry.retire()
        return True

    def expire(self) -> int:
        """Let go of every project no request used for ``idle_seconds``; how many."""
        cutoff = self._clock() - self.idle_seconds
        out = []
        with self._guard:
            for name, entry in list(self._warm.items()):
                if entry.users == 0 and entry.last_used <= cutoff:
                    del self._warm[name]
                    out.append(entry)
            self.counts["expired"] += len(out)
        for entry in out:
            entry.retire()
        return len(out)

    def clear(self) -> None:
        """Let go of every warm project (at shutdown)."""
        with self._guard:
            out = list(self._warm.values())
            self._warm.clear()
        for entry in out:
            entry.retire()


class Sweeper:
    """A daemon thread that expires idle projects every ``period`` seconds."""

    def __init__(self, warm: WarmSet, period: float) -> None:
        self._warm = warm
        self._period = period
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._guard = threading.Lock()

    def start(self) -> None:
        with self._guard:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, name="uac-warm-sweeper", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self._warm.expire()

    def stop(self) -> None:
        self._stop.set()
        with self._guard:
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)
