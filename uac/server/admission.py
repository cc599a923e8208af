"""Bounds on concurrent work, so that one tenant cannot stall the others.

A server runs library calls in a bounded thread pool.  Anything that has to
wait -- for its project's turn to write, for the project lock held by another
process, for a free sandbox worker or model slot -- waits in the event loop
(:meth:`Slots.hold_async`), holding no thread; a request that would wait too
long, or that finds too many others of its project already waiting, fails at
once with ``project_locked`` (423) or ``server_busy`` (503), both with a
``Retry-After``.  Inside a thread, the library's own sandbox and model calls
take their slots with :meth:`Slots.hold` (a request that was admitted with a
slot already holds it: holding is re-entrant within one call's context).

:class:`~uac.server.bounds.ServerLimits` holds the settings (``uac serve http|mcp`` flags).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from contextlib import asynccontextmanager, contextmanager
from dataclasses import KW_ONLY, dataclass, field
from typing import AsyncIterator, Callable, Iterator

from ..errors import UacError
from .bounds import ServerLimits

#: seconds a stopping server (SIGTERM) waits for open requests and event streams before it closes them
SHUTDOWN_SECONDS = 5


#: (id of a Slots, key) pairs the current call holds: nested holds of the same slot are free
_HELD: contextvars.ContextVar[frozenset[tuple[int, str]]] = contextvars.ContextVar(
    "uac_held_slots", default=frozenset()
)


class _Waiter:
    __slots__ = ("key", "granted", "wake")

    def __init__(self, key: str, wake: Callable[[], None]) -> None:
        self.key = key
        self.granted = False
        self.wake = wake


@dataclass(eq=False, repr=False)
class Slots:
    """At most ``total`` holders at once, at most ``per_key`` of them for one key.

    Waiters are served first come, first served among those that fit; at
    most ``max_waiting`` may wait for one key.  ``refuse(key, why)`` builds the
    error raised when a holder cannot get a slot (``why`` is ``"queue"`` or
    ``"timeout"``).
    """

    name: str
    _: KW_ONLY
    per_key: int
    total: int | None = None
    max_waiting: int | None = None
    refuse: Callable[[str, str], UacError]
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _used: dict[str, int] = field(default_factory=dict, init=False)
    _used_total: int = field(default=0, init=False)
    _waiters: list[_Waiter] = field(default_factory=list, init=False)
    peak_total: int = field(default=0, init=False)
    peak_per_key: int = field(default=0, init=False)

    # -- bookkeeping (under self._lock) -------------------------------------------------

    def _fits(self, key: str) -> bool:
        if self.total is not None and self._used_total >= self.total:
            return False
        return self._used.get(key, 0) < self.per_key

    def _take(self, key: str) -> None:
        self._used[key] = self._used.get(key, 0) + 1
        self._used_total += 1
        self.peak_total = max(self.peak_total, self._used_total)
        self.peak_per_key = max(self.peak_per_key, self._used[key])

    def _give_back(self, key: str) -> None:
        left = self._used[key] - 1
        if left:
            self._used[key] = left
        else:
            del self._used[key]
        self._used_total -= 1
        for waiter in list(self._waiters):
            if self._fits(waiter.key):
                self._take(waiter.key)
                waiter.granted = True
                self._waiters.remove(waiter)
                waiter.wake()

    def _enqueue(self, key: str, wake: Callable[[], None]) -> _Waiter | None:
        """Take a slot now (None) or queue a waiter; refuse if the key's queue is full."""
        if self._fits(key):
            self._take(key)
            return None
        if self.max_waiting is not None and sum(1 for w in self._waiters if w.key == key) >= self.max_waiting:
            raise self.refuse(key, "queue")
        waiter = _Waiter(key, wake)
        self._waiters.append(waiter)
        return waiter

    def _abandon(self, waiter: _Waiter) -> None:
        with self._lock:
            if waiter.granted:
                self._give_back(waiter.key)
            else:
                self._waiters.remove(waiter)

    def in_use(self, key: str | None = None) -> int:
        with self._lock:
            return self._used_total if key is None else self._used.get(key, 0)

    # -- holding ------------------------------------------------------------------------

    def _held(self, key: str) -> bool:
        return (id(self), key) in _HELD.get()

    @contextmanager
    def _mark(self, key: str) -> Iterator[None]:
        token = _HELD.set(_HELD.get() | {(id(self), key)})
        try:
            yield
        finally:
            _HELD.reset(token)
            with self._lock:
                self._give_back(key)

    @asynccontextmanager
    async def hold_async(self, key: str, wait: float) -> AsyncIterator[None]:
        """Hold a slot for ``key``, waiting up to ``wait`` seconds in the event loop."""
        if self._held(key):
            yield
            return
        loop = asyncio.get_running_loop()
        event = asyncio.Event()

        def wake() -> None:
            if not loop.is_closed():  # a waiter whose loop is gone gives its grant back in _abandon
                loop.call_soon_threadsafe(event.set)

        with self._lock:
            waiter = self._enqueue(key, wake)
        if waiter is not None:
            try:
                await asyncio.wait_for(event.wait(), timeout=wait)
            except asyncio.TimeoutError:
                self._abandon(waiter)
                raise self.refuse(key, "timeout") from None
            except BaseException:
                self._abandon(waiter)
                raise
        with self._mark(key):
            yield

    @contextmanager
    def hold(self, key: str, wait: float) -> Iterator[None]:
        """Hold a slot for ``key``, blocking this thread up to ``wait`` seconds."""
        if self._held(key):
            yield
            return
        event = threading.Event()
        with self._lock:
            waiter = self._enqueue(key, event.set)
        if waiter is not None and not event.wait(wait):
            with self._lock:
                granted = waiter.granted
                if not granted:
                    self._waiters.remove(waiter)
            if not granted:
                raise self.refuse(key, "timeout")
        with self._mark(key):
            yield


def _retry_after(wait: float) -> float:
    return max(1.0, min(wait, 5.0))


class _Claim:
    __slots__ = ("key", "size", "granted")

    def __init__(self, key: str, size: int) -> None:
        self.key = key
        self.size = size
        self.granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class ByteBudget:
    """At most ``total`` bytes reserved at once, at most ``per_key`` of them by one key.

    For request bodies held in memory: a request reserves its size before its body
    is read and gives it back when its response is done.  Claims are granted first
    come, first served among those that fit; at most ``max_waiting`` may wait for one
    key.  Used from the event loop only (no thread takes part), so it needs no lock.
    """

    def __init__(self, total: int, per_key: int, *, max_waiting: int, refuse: Callable[[str, str], UacError]) -> None:
        self.total = total
        self.per_key = min(per_key, total)
        self.max_waiting = max_waiting
        self._refuse = refuse
        self._used: dict[str, int] = {}
        self._used_total = 0
        self._waiting: list[_Claim] = []
        self.peak_total = 0

    def in_use(self, key: str | None = None) -> int:
        return self._used_total if key is None else self._used.get(key, 0)

    def _fits(self, key: str, size: int) -> bool:
        return self._used_total + size <= self.total and self._used.get(key, 0) + size <= self.per_key

    def _take(self, key: str, size: int) -> None:
        self._used[key] = self._used.get(key, 0) + size
        self._used_total += size
        self.peak_total = max(self.peak_total, self._used_total)

    def _give_back(self, key: str, size: int) -> None:
        left = self._used[key] - size
        if left:
            self._used[key] = left
        else:
            del self._used[key]
        self._used_total -= size
        for claim in list(self._waiting):
            if self._fits(claim.key, claim.size):
                self._waiting.remove(claim)
                self._take(claim.key, claim.size)
                claim.granted.set_result(None)

    @asynccontextmanager
    async def reserve(self, key: str, size: int, wait: float) -> AsyncIterator[None]:
        """Hold ``size`` bytes for ``key``, waiting up to ``wait`` seconds for room."""
        size = min(size, self.per_key)  # a body over the per-key share waits for the whole share
        if self._fits(key, size) and not any(c.key == key for c in self._waiting):
            self._take(key, size)
        else:
            if sum(1 for c in self._waiting if c.key == key) >= self.max_waiting:
                raise self._refuse(key, "queue")
            claim = _Claim(key, size)
            self._waiting.append(claim)
            try:
                await asyncio.wait_for(asyncio.shield(claim.granted), timeout=wait)
            except BaseException as exc:
                if claim.granted.done():  # granted just as the wait ended: give it back
                    self._give_back(key, size)
                else:
                    self._waiting.remove(claim)
                if isinstance(exc, asyncio.TimeoutError):
                    raise self._refuse(key, "timeout") from None
                raise
        try:
            yield
        finally:
            self._give_back(key, size)


class Admission:
    """The slots of one server: writes, searches, reads, health checks, sandbox workers, model
    calls and the memory for request bodies, per project."""

    def __init__(self, limits: ServerLimits) -> None:
        self.limits = limits
        queue = limits.queued_per_project
        self.writes = Slots("writes", per_key=1, total=limits.writes, max_waiting=queue, refuse=self._write_refused)
        self.searches = self._busy_slots("searches", "search index", per_key=1)
        self.reads = self._busy_slots("reads", "turn to read", per_key=limits.reads_per_project, total=limits.threads)
        self.checks = self._busy_slots("checks", "turn for a health check", per_key=1, total=limits.writes)
        self.sandbox = self._busy_slots(
            "sandbox workers",
            "sandbox worker",
            per_key=limits.sandbox_workers_per_project,
            total=limits.sandbox_workers,
        )
        self.model = self._busy_slots(
            "model calls", "model slot", per_key=limits.model_calls_per_project, total=limits.model_calls
        )
        self.bodies = ByteBudget(
            limits.body_buffer_bytes,
            max(limits.body_buffer_bytes // 4, 1),
            max_waiting=queue,
            refuse=self._busy("share of the memory for request bodies"),
        )

    def _busy_slots(self, name: str, what: str, *, per_key: int, total: int | None = None) -> Slots:
        """Slots whose waiters queue up to ``queued_per_project`` a project and are refused with
        ``server_busy`` naming ``what`` they waited for."""
        return Slots(
            name, per_key=per_key, total=total, max_waiting=self.limits.queued_per_project, refuse=self._busy(what)
        )

    def _write_refused(self, project: str, why: str) -> UacError:
        from ..errors import ProjectLocked

        wait = self.limits.lock_wait_seconds
        if why == "queue":
            return ProjectLocked(
                f"project {project!r} is busy: {self.limits.queued_per_project} writes are already waiting for it.",
                hint="Retry later, and send the writes to one project one after another.",
                retry_after=_retry_after(wait),
            )
        return ProjectLocked(
            f"project {project!r} waited {wait:g} s for its turn to write (another write of the project, "
            f"or {self.limits.writes} writes of the server, were still running).",
            hint="Retry later.",
            retry_after=_retry_after(wait),
        )

    def _busy(self, what: str) -> Callable[[str, str], UacError]:
        def refuse(project: str, why: str) -> UacError:
            from ..errors import ServerBusy

            wait = self.limits.busy_wait_seconds
            if why == "queue":
                message = f"too many requests of project {project!r} are already waiting for a {what}."
            else:
                message = f"no {what} became free for project {project!r} within {wait:g} s."
            return ServerBusy(message, hint="Retry later, with fewer calls at once.", retry_after=_retry_after(wait))

        return refuse
