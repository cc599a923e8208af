"""Host API: warm REPL sessions and one-shot runs."""

from __future__ import annotations

import threading
import time
from typing import Any, Mapping

from . import framing
from .codec import encode_state, is_encoded_state
from .errors import SandboxError
from .jail import LaunchPlan, plan_for
from .limits import Limits
from .process import WorkerFailure, WorkerProcess
from .result import RunResult

LOST_NOTE = " The worker was stopped and will restart on the next run: variables from earlier runs are lost."


def _init_frame(state: Mapping[str, Any] | None) -> bytes:
    if state is None:
        payload = None
    elif is_encoded_state(state):
        payload = state
    elif isinstance(state, Mapping):
        payload = encode_state(state)
    else:
        raise TypeError("state must be an encode_state() payload or a mapping of domains")
    try:
        return framing.encode_frame({"op": "init", "state": payload})
    except (TypeError, ValueError) as exc:
        raise SandboxError(f"the state is not JSON-serialisable: {exc}") from exc


class Session:
    """A warm worker kept alive across runs; variables persist between runs.

    ``state`` is a payload from :func:`sandbox.codec.encode_state` (or a
    mapping of domains, encoded for you).  Before each run the state names
    (collections, domains, ``facts``) are restored and ``result`` is cleared;
    the agent's own variables, functions and imports persist.  If a run
    times out or the worker dies, the worker is discarded and restarted on the
    next run (its variables are lost; the error message says so).

    Not safe for concurrent use from several threads (runs are serialised
    with a lock).
    """

    def __init__(
        self,
        state: Mapping[str, Any] | None = None,
        *,
        limits: Limits | None = None,
        require_jail: bool | None = None,
        _unrestricted_for_tests: bool = False,
    ) -> None:
        self.limits = limits or Limits()
        self._plan: LaunchPlan = plan_for(require_jail)
        self._init = _init_frame(state)
        self._unrestricted = _unrestricted_for_tests
        self._worker: WorkerProcess | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._had_worker = False
        self._runs_in_worker = 0

    @property
    def level(self) -> str:
        """``"jail"`` or ``"process"``."""
        return self._plan.level.level

    def start(self) -> None:
        """Start the worker now (otherwise the first run starts it).

        Raises :class:`~sandbox.errors.SandboxError` if the state cannot be loaded.
        """
        with self._lock:
            failure = self._ensure_worker()
        if failure is not None:
            raise SandboxError(f"{failure['type']}: {failure['message']}")

    def _ensure_worker(self) -> dict[str, str] | None:
        if self._closed:
            raise SandboxError("the session is closed")
        if self._worker is not None and self._worker.alive():
            return None
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
        try:
            self._worker = WorkerProcess.start(self._plan, self.limits, self._init, self._unrestricted)
        except WorkerFailure as exc:
            return exc.error
        self._runs_in_worker = 0
        return None

    def run(self, code: str) -> RunResult:
        """Run ``code`` in the worker and return its result (never raises for bad code)."""
        return self._request("run", code)

    def _run_unrestricted_for_tests(self, code: str, *, audited: bool = False) -> RunResult:
        """Plain Python in the worker (test sessions only); ``audited`` first installs
        the worker's audit hook, which then stays for the worker's life."""
        if not self._unrestricted:
            raise SandboxError("this session was not started for unrestricted test runs")
        return self._request("unrestricted-audited" if audited else "unrestricted", code)

    def _request(self, op: str, code: Any) -> RunResult:
        started = time.monotonic()
        level = self.level
        if not isinstance(code, str):
            return RunResult.failure("InvalidRequest", "code must be a string", level=level)
        try:
            code.encode("utf-8")
        except UnicodeEncodeError:
            return RunResult.failure(
                "InvalidRequest", "code is not valid Unicode text (it holds a lone surrogate)", level=level
            )
        if len(code) > self.limits.max_code_chars:
            return RunResult.failure(
                "CodeLimit", f"code is longer than {self.limits.max_code_chars} characters", level=level
            )
        with self._lock:
            restarted = self._had_worker and (self._worker is None or not self._worker.alive())
            failure = self._ensure_worker()
            if failure is not None:
                return RunResult.failure(failure["type"], failure["message"], level=level, restarted=restarted)
            assert self._worker is not None
            self._had_worker = True
            try:
                reply = self._worker.request({"op": op, "code": code}, self.limits.wall_seconds)
            except WorkerFailure as exc:
                self._worker.kill()
                self._worker = None
                note = LOST_NOTE if self._runs_in_worker else ""
                return RunResult.failure(
                    exc.error["type"],
                    exc.error["message"] + note,
                    level=level,
                    duration_s=time.monotonic() - started,
                    restarted=restarted,
                )
            self._runs_in_worker += 1
            if reply["exiting"]:
                # The worker answered and is ending itself (it says so in the error).
                self._worker.kill()
                self._worker = None
        return RunResult(
            ok=reply["ok"],
            result=reply["result"] if reply["ok"] else None,
            stdout=reply["stdout"],
            error=reply["error"],
            level=level,
            duration_s=time.monotonic() - started,
            restarted=restarted,
        )

    def close(self) -> None:
        """Stop the worker (idempotent)."""
        with self._lock:
            self._closed = True
            if self._worker is not None:
                self._worker.kill()
                self._worker = None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        worker = getattr(self, "_worker", None)
        if worker is not None:
            worker.kill()


def run(
    code: str,
    state: Mapping[str, Any] | None = None,
    *,
    limits: Limits | None = None,
    require_jail: bool | None = None,
) -> RunResult:
    """Run ``code`` once in a fresh worker (cold start) and return the result."""
    with Session(state, limits=limits, require_jail=require_jail) as session:
        return session.run(code)
