"""Background work queued per project and run in turns between projects.

:class:`FairQueue` keeps one first-in, first-out queue per key (a project) and a
fixed number of worker threads.  A key runs one item at a time (a project's
compiles take its lock anyway), and when a worker is free it takes the next
item of the key whose turn it is: keys take turns, round robin, so a project
with 200 queued jobs delays another project's first job by at most the time of
the jobs already running, never by its whole queue.  At most ``max_queued``
items wait for one key; more are refused at once (``refuse(key)`` builds the
error).  Every change happens under one lock; the workers sleep on a condition.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from typing import Callable

from ..errors import UacError

log = logging.getLogger(__name__)


class FairQueue:
    def __init__(
        self, workers: int, *, max_queued: int, refuse: Callable[[str], UacError], name: str = "uac-job"
    ) -> None:
        if workers < 1 or max_queued < 1:
            raise ValueError("workers and max_queued must be at least 1")
        self.max_queued = max_queued
        self._refuse = refuse
        self._lock = threading.Condition()
        self._queues: dict[str, deque[Callable[[], None]]] = {}
        self._turns: deque[str] = deque()  # keys with queued items and none running, in turn order
        self._running: set[str] = set()
        self._stopping = False
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{n}", daemon=True) for n in range(workers)]
        for thread in self._threads:
            thread.start()

    def put(self, key: str, item: Callable[[], None]) -> None:
        """Queue ``item`` for ``key``; raises the refusal if ``key`` has ``max_queued`` waiting."""
        with self._lock:
            if self._stopping:
                raise RuntimeError("the queue is stopping")
            queue = self._queues.setdefault(key, deque())
            if len(queue) >= self.max_queued:
                raise self._refuse(key)
            queue.append(item)
            if key not in self._running and key not in self._turns:
                self._turns.append(key)
                self._lock.notify()

    def refusal(self, key: str) -> UacError:
        """The error a full queue of ``key`` is refused with."""
        return self._refuse(key)

    def queued(self, key: str | None = None) -> int:
        with self._lock:
            if key is not None:
                return len(self._queues.get(key, ()))
            return sum(len(q) for q in self._queues.values())

    def _next(self) -> tuple[str, Callable[[], None]] | None:
        with self._lock:
            while not self._turns and not self._stopping:
                self._lock.wait()
            if self._stopping:
                return None
            key = self._turns.popleft()
            queue = self._queues[key]
            item = queue.popleft()
            if not queue:
                del self._queues[key]
            self._running.add(key)
            return key, item

    def _done(self, key: str) -> None:
        with self._lock:
            self._running.discard(key)
            if key in self._queues:  # its next item waits for its next turn, behind the others
                self._turns.append(key)
                self._lock.notify()

    def _work(self) -> None:
        while True:
            taken = self._next()
            if taken is None:
                return
            key, item = taken
            try:
                item()
            except Exception:  # an item reports its own failures; this keeps the worker alive
                log.exception("background work for %r failed", key)
            finally:
                self._done(key)

    def stop(self, wait: bool = True) -> list[Callable[[], None]]:
        """Stop taking items; returns the items never started.  ``wait``: until running ones end."""
        with self._lock:
            self._stopping = True
            left = [item for queue in self._queues.values() for item in queue]
            self._queues.clear()
            self._turns.clear()
            self._lock.notify_all()
        if wait:
            for thread in self._threads:
                thread.join()
        return left
