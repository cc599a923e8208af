"""Units of model work side by side: :func:`map_ordered`.

Extraction windows of a session and the domains of a compile are independent
units; they run on worker threads, at most the client's ``concurrency`` at a
time (the :class:`~.throttle.Throttle` bounds the requests in flight on top),
and their results come back in the order of the units -- whatever order the
endpoint answered in -- so what is written next is the same at every
concurrency.  The calls of each worker are metered into the caller's meters
(:meth:`~.client.LLMClient.carry`).

With one worker (``concurrency = 1``) the units run one after another on the
calling thread, exactly as a plain loop.

A unit may have to wait for others (``after``: a domain whose side of a thing
refers to the record its main domain makes): it starts once they have
finished, whether they succeeded or not.
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Callable, Collection, Mapping, Sequence, TypeVar

if TYPE_CHECKING:
    from .client import LLMClient

T = TypeVar("T")
R = TypeVar("R")


def map_ordered(
    client: "LLMClient | None",
    function: Callable[[T], R],
    items: Sequence[T],
    *,
    workers: int | None = None,
    name: str = "uac-llm",
    after: Mapping[int, Collection[int]] | None = None,
) -> list[R]:
    """``[function(item) for item in items]``, up to ``workers`` at once (default: the
    client's concurrency).

    ``after``: item index -> the indexes of earlier items it starts after (each must be
    smaller than its own: the items come in an order that runs them).

    When a unit raises, units not started yet are not started, the running ones
    finish, and the error of the first failed unit (in the items' order) is raised.
    """
    for number, earlier in (after or {}).items():
        if any(e >= number for e in earlier):
            raise ValueError(f"item {number} cannot start after items {sorted(earlier)}: list those first")
    if workers is None:
        workers = client.concurrency if client is not None else 1
    workers = max(1, min(workers, len(items)))
    if workers == 1:
        return [function(item) for item in items]
    finished = [threading.Event() for _ in items]
    futures: list[Future[R]] = []

    def unit(number: int) -> R:
        try:
            for earlier in (after or {}).get(number, ()):
                # an earlier unit cancelled before it ran (another failed) will never finish
                while not finished[earlier].wait(0.05) and not futures[earlier].cancelled():
                    pass
            return function(items[number])
        finally:
            finished[number].set()

    run = client.carry(unit) if client is not None else unit
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name) as pool:
        for number in range(len(items)):  # the pool starts them in this order: a unit waits only for started ones
            futures.append(pool.submit(run, number))
        done, _pending = wait(futures, return_when=FIRST_EXCEPTION)
        if any(f.exception() is not None for f in done):
            for future in futures:
                future.cancel()
            wait(futures)
        for future in futures:
            error = None if future.cancelled() else future.exception()
            if error is not None:
                raise error
        return [future.result() for future in futures]


__all__ = ["map_ordered"]
