"""Sessions extracted side by side, prepared and committed one by one in input order.

Each session goes through three steps:

* **extract** (on a worker): its facts, shown the facts known after session
  ``n - lag`` was committed (the facts known before the input for the first
  ``lag`` sessions): what a session is shown never depends on the number of
  workers, and ``lag = 1`` is strictly sequential (each session waits for the
  one before it);
* **prepare** (in input order, on the caller's thread): what the commit will
  need; it may start more work on a worker (``submit``: the reconcile call,
  which then runs beside the other sessions' extraction);
* **commit** (in input order, on the caller's thread), once the work its
  preparation started is done.

Commits follow the input order whatever order the replies come in, so a crash
leaves a prefix of the sessions.  An error in any step stops the run: the
sessions committed before it stay, later ones are not written.
"""

from __future__ import annotations

from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")
#: runs ``function(*args)`` (on a worker, or at once) and returns its future
Submit = Callable[..., "Future[Any]"]


class _Inline:
    """An executor that runs each task at once, on the caller's thread."""

    def submit(self, function: Callable[..., T], *args: Any) -> "Future[T]":
        future: Future[T] = Future()
        try:
            future.set_result(function(*args))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(exc)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        return None


def run_in_order(
    items: Sequence[T],
    *,
    extract: Callable[[T, Any], Any],
    known: Callable[[], Any],
    prepare: Callable[[T, Any, Submit], Any],
    commit: Callable[[T, Any], None],
    lag: int,
    workers: int,
    carry: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
    started: Callable[[Any], "Future[Any] | None"] = lambda _prepared: None,
) -> None:
    """Run the three steps over ``items`` (see the module docstring).

    ``known()`` is read once before the first item and after each commit a
    later item's view depends on; ``started(prepared)`` is the future of the
    work ``prepare`` started (``None``: nothing to wait for); ``carry`` wraps
    what runs on a worker (the model client's meters follow it there).
    """
    total = len(items)
    lag = max(1, lag)
    wrap = carry or (lambda function: function)
    pool: Any = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="uac-ingest") if workers > 1 else _Inline()
    # the work a preparation starts gets threads of its own: it holds up a commit, so it
    # must not queue behind the extraction of later sessions (the model client's slots
    # still bound the calls in flight)
    urgent: Any = (
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="uac-ingest-commit") if workers > 1 else pool
    )

    def submit(function: Callable[..., Any], *args: Any) -> "Future[Any]":
        return pool.submit(wrap(function), *args)

    def submit_urgent(function: Callable[..., Any], *args: Any) -> "Future[Any]":
        return urgent.submit(wrap(function), *args)

    views: dict[int, Any] = {-1: known()}
    extracting: dict[int, Future[Any]] = {}
    waiting: deque[tuple[int, Any]] = deque()  # prepared, not committed yet
    submitted = prepared = committed = 0

    def commit_next() -> None:
        number, work = waiting.popleft()
        future = started(work)
        if future is not None:
            future.result()  # its error, if any, stops the run here
        commit(items[number], work)
        if number + lag < total:
            views[number] = known()

    try:
        while committed < total:
            # start every item whose view is known: those up to committed - 1 + lag
            while submitted < total and submitted - lag < committed:
                view = views.pop(submitted - lag) if submitted - lag >= 0 else views[-1]
                extracting[submitted] = submit(extract, items[submitted], view)
                submitted += 1
            head = started(waiting[0][1]) if waiting else None
            head_ready = bool(waiting) and (head is None or head.done())
            if waiting and (head_ready or prepared == submitted):
                commit_next()
                committed += 1
                continue
            if head is not None and not extracting[prepared].done():
                wait([extracting[prepared], head], return_when=FIRST_COMPLETED)
                if head.done():
                    continue  # commit what is ready first
            try:
                extraction = extracting.pop(prepared).result()
            except BaseException:
                while waiting:  # the sessions before the failing one are kept
                    commit_next()
                raise
            waiting.append((prepared, prepare(items[prepared], extraction, submit_urgent)))
            prepared += 1
    finally:
        for future in extracting.values():
            future.cancel()
        pool.shutdown(wait=True, cancel_futures=True)
        urgent.shutdown(wait=True, cancel_futures=True)


__all__ = ["Submit", "run_in_order"]
