"""Named crash points, for the tests that prove a crash loses nothing.

The write paths of ingest call :func:`crash_point` at the moments a crash
would hurt most (between the log's records and its commit line, between an
index's vectors and its corpus, before the index manifest).  Nothing happens
unless the environment variable ``UAC_CRASH_AT`` names that point: then the
process sends itself ``SIGKILL`` -- the same as ``kill -9`` from outside, no
cleanup, no ``finally`` blocks.  ``UAC_CRASH_AT=name@N`` crashes at the N-th
time the point is reached (1-based).
"""

from __future__ import annotations

import os
import signal

ENV = "UAC_CRASH_AT"

#: every crash point, in the order an ingest reaches them
POINTS = (
    "ingest:extracted",
    "log:records",
    "log:committed",
    "index:facts-vectors",
    "index:facts-corpus",
    "index:archive-vectors",
    "index:archive-corpus",
    "index:manifest",
)

#: the crash points of an incremental compile: a batch's ledger written, its files swapped in
#: (the load cache is filled once the domain's batches are done)
COMPILE_POINTS = ("compile:ledger", "compile:swapped")
#: a domain's files swapped in, its changes not yet in the change log (``uac.view.changes``)
HISTORY_POINTS = ("history:swapped",)

_reached: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Kill this process with SIGKILL if ``UAC_CRASH_AT`` names ``name`` (see module doc)."""
    wanted = os.environ.get(ENV)
    if not wanted:
        return
    point, _, nth = wanted.partition("@")
    if point != name:
        return
    _reached[name] = _reached.get(name, 0) + 1
    if _reached[name] >= int(nth or 1):
        os.kill(os.getpid(), signal.SIGKILL)


__all__ = ["COMPILE_POINTS", "ENV", "HISTORY_POINTS", "POINTS", "crash_point"]
