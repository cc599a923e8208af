"""The servers' background catch-up: after an ingest the view is compiled off the request.

An ingest over HTTP or MCP returns as soon as its facts are durable; the compile that
brings the view up to date (:func:`uac.compile.follow.catch_up_view`) then runs on a
thread of its own, one at a time per project.  Ingests that arrive while it runs are
coalesced: they ask for one more catch-up, which starts when the running one ends and
takes in everything the log has by then.  While a catch-up runs or waits, the project is
marked as catching up, and the readers (``ask``, ``run_python``, the inspector) say so.

A catch-up that finds the project lock held by another writer (an ingest of this server,
a CLI ``uac compile``) waits for it and tries again.  At shutdown no new catch-up starts;
the running one is waited for up to a bound, after which it is abandoned with the
process: the compile commits domain by domain (batch by batch in incremental mode), so
the view is as before or as after a whole batch, and the next ingest or compile takes in
the rest.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..compile.follow import CatchUp, catch_up_view, catching_up_at
from ..errors import UacError

if TYPE_CHECKING:
    from ..memorize.ingest import IngestReport
    from ..memory import UserMemory

log = logging.getLogger(__name__)

#: seconds between tries while another writer holds the project lock
LOCKED_PAUSE = 0.2


class _Turn:
    def __init__(self) -> None:
        self.again = False
        self.thread: threading.Thread | None = None
        self.marker: Any = None


class ViewFollower:
    """One background catch-up at a time per project, coalescing the ingests meanwhile."""

    def __init__(self, open_writer: Callable[[str], "UserMemory"], root_of: Callable[[str], Path]) -> None:
        self._open_writer = open_writer
        self._root_of = root_of
        self._guard = threading.Lock()
        self._turns: dict[str, _Turn] = {}
        self._stopping = threading.Event()
        #: the last catch-up of each project (what it did, or why it failed), and how many ran
        self.last: dict[str, CatchUp] = {}
        self.runs: dict[str, int] = {}

    def schedule(self, name: str) -> bool:
        """Catch project ``name``'s view up in the background (False: the server is stopping)."""
        with self._guard:
            if self._stopping.is_set():
                return False
            turn = self._turns.get(name)
            if turn is not None:
                turn.again = True  # the running catch-up runs once more when it ends
                return True
            turn = self._turns[name] = _Turn()
            # readers say "catching up" from the moment the ingest returns
            turn.marker = catching_up_at(self._root_of(name))
            turn.marker.__enter__()
            turn.thread = threading.Thread(target=self._run, args=(name, turn), name=f"uac-follow-{name}", daemon=True)
            turn.thread.start()
        return True

    def ingested(self, name: str, compile: bool | None) -> Callable[["UserMemory", "IngestReport"], None]:
        """What an ingest of project ``name`` runs once its facts are durable (see :meth:`after_ingest`)."""
        return lambda memory, report: self.after_ingest(name, memory, report, compile)

    def after_ingest(self, name: str, memory: "UserMemory", report: "IngestReport", compile: bool | None) -> None:
        """Set ``report.view``: the catch-up scheduled in the background, or why it is not needed."""
        from ..compile.follow import not_needed, view_lag

        skipped = not_needed(memory.context, compile=compile, added=bool(report.sessions_added))
        if skipped is not None:
            report.view = skipped
            return
        lag = view_lag(memory.context).facts
        try:
            mode: str | None = memory.project.config.compile.mode if memory.llm is not None else "offline"
        except UacError:  # the catch-up reports a model that cannot be set up
            mode = None
        if self.schedule(name):
            report.view = CatchUp("background", mode=mode, reason="the server compiles it after answering", lag=lag)
        else:
            report.view = CatchUp("off", reason="the server is stopping", lag=lag)

    def running(self, name: str) -> bool:
        with self._guard:
            return name in self._turns

    def wait(self, name: str, timeout: float = 30.0) -> bool:
        """Wait until project ``name`` has no catch-up running or queued (True: none left)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._guard:
                turn = self._turns.get(name)
            if turn is None:
                return True
            assert turn.thread is not None
            turn.thread.join(min(0.1, max(0.0, deadline - time.monotonic())))
        return not self.running(name)

    def _run(self, name: str, turn: _Turn) -> None:
        try:
            while True:
                self._once(name)
                with self._guard:
                    # ingests that arrived during this run ask for one more, which reads the log afresh
                    if not turn.again or self._stopping.is_set():
                        self._turns.pop(name, None)
                        return
                    turn.again = False
        except Exception:  # a project removed meanwhile, a broken config: logged, the next ingest retries
            log.exception("the background catch-up of project %s failed", name)
            with self._guard:
                self._turns.pop(name, None)
        finally:
            turn.marker.__exit__(None, None, None)

    def _once(self, name: str) -> None:
        memory = self._open_writer(name)
        try:
            while True:
                result = catch_up_view(memory.context, compile=True, added=True)
                if not (result.locked and not self._stopping.is_set()):
                    break
                time.sleep(LOCKED_PAUSE)
            self.last[name] = result
            self.runs[name] = self.runs.get(name, 0) + 1
            if result.status == "failed":
                log.warning("project %s: the view was not brought up to date: %s", name, result.reason)
        finally:
            memory.close()

    def shutdown(self, timeout: float) -> None:
        """Start no more catch-ups; wait up to ``timeout`` seconds for the running ones."""
        self._stopping.set()
        deadline = time.monotonic() + timeout
        with self._guard:
            threads = [(n, t.thread) for n, t in self._turns.items() if t.thread is not None]
        for name, thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                log.warning(
                    "project %s: the view's catch-up is abandoned at shutdown; the next ingest or compile completes it",
                    name,
                )


__all__ = ["ViewFollower"]
