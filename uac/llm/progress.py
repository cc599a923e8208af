"""Progress of model work running side by side: units done, calls in flight, tokens.

Ingest and compile take an optional ``progress`` callback; a :class:`Tracker`
calls it with a :class:`Progress` when a unit of work (a session, a domain) is
done and, while calls are running, about once per ``interval`` seconds, so a
long ingest against a slow endpoint shows that calls are in flight even
before the first session is done.  The callback is called from a worker
thread: it must be quick and thread-safe (printing a line is).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..fieldjson import fields_json
from ..progress import current_listener

if TYPE_CHECKING:
    from .client import LLMClient


@dataclass(frozen=True)
class Progress:
    #: what is running: ``extract`` (ingest) or ``compile``
    stage: str
    #: what a unit is: ``sessions`` or ``domains``
    unit: str
    done: int
    total: int
    #: model requests in flight right now
    in_flight: int
    #: model calls answered and tokens spent since the stage began
    calls: int
    tokens: int

    def line(self) -> str:
        return (
            f"{self.stage}: {self.done}/{self.total} {self.unit}, {self.in_flight} call(s) in flight, "
            f"{self.calls} call(s), {self.tokens:,} tokens"
        )

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


ProgressCallback = Callable[[Progress], None]


class Tracker:
    """Reports one stage's progress to ``callback`` (nothing at all when it is ``None``)."""

    def __init__(
        self,
        callback: ProgressCallback | None,
        client: "LLMClient | None",
        *,
        stage: str,
        unit: str,
        total: int,
        interval: float = 1.0,
    ) -> None:
        self.callback = callback
        self.client = client
        self.stage, self.unit, self.total = stage, unit, total
        self.interval = interval
        self.done = 0
        self._lock = threading.RLock()
        self._stop = threading.Event()
        # the listener of uac.progress in the caller's context (worker threads do not inherit it)
        self._steps = current_listener()
        self._thread: threading.Thread | None = None
        state = client.throttle.state() if client is not None else None
        self._calls0 = state.calls if state else 0
        self._tokens0 = state.tokens if state else 0

    def snapshot(self) -> Progress:
        state = self.client.throttle.state() if self.client is not None else None
        return Progress(
            self.stage,
            self.unit,
            self.done,
            self.total,
            state.in_flight if state else 0,
            (state.calls - self._calls0) if state else 0,
            (state.tokens - self._tokens0) if state else 0,
        )

    def emit(self) -> None:
        if self.callback is not None:
            with self._lock:
                self.callback(self.snapshot())

    def advance(self, count: int = 1) -> None:
        """``count`` more units are done (any thread)."""
        with self._lock:
            self.done += count
            self.emit()
            if self._steps is not None:
                self._steps(self.done, self.total, self.unit)

    def __enter__(self) -> "Tracker":
        if self._steps is not None:
            self._steps(self.done, self.total, self.unit)
        if self.callback is not None and self.client is not None and self.total:
            self.emit()
            self._thread = threading.Thread(target=self._tick, name=f"uac-progress-{self.stage}", daemon=True)
            self._thread.start()
        return self

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            self.emit()

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


__all__ = ["Progress", "ProgressCallback", "Tracker"]
