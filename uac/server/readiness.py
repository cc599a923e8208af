"""Whether a serving process can do its work: warmed up at start, checked by health.

A fresh server's first requests would otherwise import numpy, onnxruntime,
chromadb and uac's own capability modules for the first time from several
request threads at once, which CPython does not make safe (see
:mod:`uac.heavy`): one bad burst could leave the process unable to search
until it restarts.  :meth:`Readiness.warm_up` runs before the server accepts
its first request: it imports those stacks and modules one after another,
loads the embedding model and runs the search arithmetic once.  A burst right
after start then finds everything loaded, like later traffic does.

:meth:`Readiness.check` is what ``GET /v1/health`` reports: the same imports
(cheap once loaded) and the search probe again, at most every ``ttl``
seconds, so health stays cheap and still notices a process whose search stack
broke.  A failure is never swallowed: the server still starts (routes that do
not search may work), logs the problem and reports itself broken, with the
reason, until the problem is gone.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
import time
from typing import Callable

from .. import heavy

log = logging.getLogger(__name__)

#: the stacks a server's requests use: vectors and tables, the query embedding, and the
#: vector store where Chroma is installed (without the chroma extra the flat copies serve)
STACKS = ("numpy", "embeddings", "chroma")


def stacks() -> tuple[str, ...]:
    """The stacks this process's requests may import (Chroma only where it is installed)."""
    from ..index.client import chroma_installed

    return STACKS if chroma_installed() else tuple(s for s in STACKS if s != "chroma")


#: uac's modules a request may import first (each imports its own light dependencies)
MODULES = (
    "uac.recall",
    "uac.index.search",
    "uac.index.store",
    "uac.index.flat",
    "uac.index.bm25",
    "uac.facts.table",
    "uac.memorize.ingest",
    "uac.memorize.forget",
    "uac.memorize.correct",
    "uac.compile.dispatch",
    "uac.records.importer",
    "uac.answer.reader",
    "uac.sandbox_bridge",
    "uac.doctor",
    "uac.browse",
    "uac.export",
    "uac.view.state",
    "sandbox",
)

#: how long a health check's result stands before the probe runs again
DEFAULT_TTL = 10.0


def search_probe() -> None:
    """Embed one text and score it as a search does; raises if the stack is broken."""
    import numpy as np

    from ..errors import StoreError
    from ..index.embeddings import get_embedder

    embedder = get_embedder()
    vectors = embedder.encode(["is this server able to search"])
    if vectors.shape != (1, embedder.dim) or not np.isfinite(vectors).all():
        raise StoreError(f"the embedding model returned vectors of shape {vectors.shape} that are not finite numbers.")
    score = float((vectors @ vectors.T)[0, 0])
    if abs(score - 1.0) > 1e-3:
        raise StoreError(f"the embedding model returned a vector of length {score**0.5:.4f} instead of 1.")


class Readiness:
    """The warm-up of one serving process and its health check."""

    def __init__(
        self,
        probe: Callable[[], None] = search_probe,
        *,
        ttl: float = DEFAULT_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._probe = probe
        self.ttl = ttl
        self._clock = clock
        self._guard = threading.Lock()
        self._problems: dict[str, str] = {}
        self._checked_at: float | None = None
        self._async_guard: asyncio.Lock | None = None

    def warm_up(self) -> dict[str, str]:
        """Import the stacks and modules, load the model, run the probe; the problems found."""
        started = self._clock()
        problems = self._run()
        took = self._clock() - started
        if problems:
            for name, reason in problems.items():
                log.error("this server cannot serve every request (%s): %s", name, reason)
        else:
            log.info("warmed up in %.1f s: the search stack is loaded and answers", took)
        return problems

    def check(self) -> dict[str, str]:
        """The problems of this process now (re-checked when the last check is older than ``ttl``)."""
        if self._fresh():
            return self.problems
        return self._run()

    async def check_async(self) -> dict[str, str]:
        """:meth:`check` from the event loop: a stale check runs in a thread of its own
        (never one of the request threads, which may all be busy), one at a time."""
        if self._fresh():
            return self.problems
        if self._async_guard is None:
            self._async_guard = asyncio.Lock()
        async with self._async_guard:
            if self._fresh():
                return self.problems
            done: asyncio.Future[dict[str, str]] = asyncio.get_running_loop().create_future()
            loop = asyncio.get_running_loop()

            def run() -> None:
                try:
                    result = self._run()
                except BaseException as exc:  # handed to the waiting coroutine, which raises it
                    loop.call_soon_threadsafe(done.set_exception, exc)
                else:
                    loop.call_soon_threadsafe(done.set_result, result)

            threading.Thread(target=run, name="uac-health-check", daemon=True).start()
            return await done

    @property
    def problems(self) -> dict[str, str]:
        with self._guard:
            return dict(self._problems)

    def _fresh(self) -> bool:
        with self._guard:
            return self._checked_at is not None and self._clock() - self._checked_at < self.ttl

    def _run(self) -> dict[str, str]:
        problems: dict[str, str] = {}
        for stack in stacks():
            try:
                heavy.load(stack)
            except Exception as exc:  # reported as the process's health, never swallowed
                problems.setdefault("imports", str(exc))
        for name in MODULES:
            try:
                importlib.import_module(name)
            except Exception as exc:
                problems.setdefault("imports", f"this process cannot import {name} ({type(exc).__name__}: {exc}).")
        if "imports" not in problems:
            try:
                self._probe()
            except Exception as exc:
                problems["search"] = f"a search cannot run ({type(exc).__name__}: {exc})"
        with self._guard:
            self._problems = problems
            self._checked_at = self._clock()
        return dict(problems)
