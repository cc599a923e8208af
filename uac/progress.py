"""Progress of long work, reported to whoever is listening (a terminal bar, an HTTP job).

Long operations (ingest, compile, import-records, doctor --repair) call
:func:`step` at their checkpoints with ``(done, total, unit)``.  Nothing
listens by default, so a step costs a context-variable lookup.  An adapter
listens for the duration of one call with :func:`reporting`::

    with reporting(lambda done, total, unit: print(done, total, unit)):
        memory.compile()

The listener is a context variable, so concurrent calls in other threads (the
HTTP server's jobs) each report to their own listener.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

#: ``listener(done, total, unit)``: ``done`` of ``total`` units (e.g. "sessions", "domains") finished
Listener = Callable[[int, int, str], None]

_listener: ContextVar[Listener | None] = ContextVar("uac_progress", default=None)


def step(done: int, total: int, unit: str) -> None:
    """Report that ``done`` of ``total`` ``unit`` are finished (no-op when nobody listens)."""
    listener = _listener.get()
    if listener is not None:
        listener(done, total, unit)


def current_listener() -> Listener | None:
    """The listener of the calling context (for work handed to other threads)."""
    return _listener.get()


@contextmanager
def reporting(listener: Listener | None) -> Iterator[None]:
    """Send the steps of the work done inside the block to ``listener`` (``None``: to nobody)."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


__all__ = ["Listener", "current_listener", "reporting", "step"]
