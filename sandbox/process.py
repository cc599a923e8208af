"""Host side of a worker process: start, talk JSON frames with deadlines, kill.

The host never unpickles or evaluates anything the worker sends: replies are
JSON frames whose shape is validated here.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from typing import Any

from . import framing
from .errors import SandboxUnavailable
from .limits import Limits

STDERR_TAIL = 8192


def _ready(fds: list[int], events: int, timeout: float) -> set[int]:
    """The descriptors of ``fds`` ready for ``events`` (or closed) within ``timeout`` seconds.

    ``poll`` rather than ``select``: a server that raised its open-file limit hands out
    descriptor numbers above 1,024, which ``select`` cannot watch."""
    poller = select.poll()
    for fd in fds:
        poller.register(fd, events)
    ready = poller.poll(max(0, int(timeout * 1000)))
    return {fd for fd, _ in ready}


class WorkerFailure(Exception):
    """The worker timed out, crashed or sent garbage; ``error`` is the result error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.error = {"type": kind, "message": message}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class WorkerProcess:
    """One running worker (optionally inside the jail)."""

    def __init__(self, proc: subprocess.Popen, limits: Limits) -> None:
        self.proc = proc
        self.limits = limits
        if proc.stdin is None or proc.stdout is None or proc.stderr is None:
            raise ValueError("the worker is started with pipes for stdin, stdout and stderr")
        self.stdin_fd = proc.stdin.fileno()
        self.stdout_fd = proc.stdout.fileno()
        self.stderr_fd: int | None = proc.stderr.fileno()
        os.set_blocking(self.stdin_fd, False)
        self.buffer = bytearray()
        self.stderr_tail = b""
        self.ready: dict[str, Any] = {}
        self.max_frame = (limits.max_result_chars + limits.max_output_chars) * 6 + 65536

    # -- lifecycle -----------------------------------------------------------
    @classmethod
    def start(
        cls, plan: Any, limits: Limits, init_message: dict | bytes, unrestricted: bool = False
    ) -> "WorkerProcess":
        """Start a worker, send the init frame, wait for ``ready``.

        Raises :class:`SandboxUnavailable` if the process cannot be started
        and :class:`WorkerFailure` if it fails while loading the state.
        """
        command = plan.command(json.dumps(limits.to_wire()), unrestricted)
        try:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={},
                cwd="/",
                close_fds=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise SandboxUnavailable(f"cannot start the sandbox worker ({command[0]}): {exc}") from exc
        worker = cls(proc, limits)
        deadline = time.monotonic() + limits.startup_seconds
        frame = init_message if isinstance(init_message, bytes) else framing.encode_frame(init_message)
        try:
            worker._write(frame, deadline)
            reply = worker._read(deadline, startup=True)
        except WorkerFailure:
            worker.kill()
            raise
        if reply.get("op") == "fatal":
            worker.kill()
            error = reply.get("error") or {}
            raise WorkerFailure(str(error.get("type", "StateError")), str(error.get("message", "")))
        if reply.get("op") != "ready":
            worker.kill()
            raise WorkerFailure("WorkerCrashed", "the worker did not report ready")
        worker.ready = reply
        return worker

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the worker's whole process group and reap it."""
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    # -- requests ------------------------------------------------------------
    def request(self, message: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and wait for the reply (at most ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        self._write(framing.encode_frame(message), deadline)
        reply = self._read(deadline)
        return _validate_reply(reply)

    def _write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fail_timeout()
            if not _ready([self.stdin_fd], select.POLLOUT, remaining):
                continue
            try:
                written = os.write(self.stdin_fd, view)
            except BlockingIOError:
                continue
            except (BrokenPipeError, ConnectionResetError, OSError):
                self._fail_dead()
            view = view[written:]

    def _read(self, deadline: float, startup: bool = False) -> dict[str, Any]:
        header = framing.HEADER.size
        size: int | None = None
        while True:
            if size is None and len(self.buffer) >= header:
                (size,) = framing.HEADER.unpack(bytes(self.buffer[:header]))
                if size > self.max_frame:
                    self.kill()
                    raise WorkerFailure("WorkerCrashed", f"the worker sent an oversized frame ({size} bytes)")
            if size is not None and len(self.buffer) >= header + size:
                body = bytes(self.buffer[header : header + size])
                del self.buffer[: header + size]
                try:
                    message = framing.decode_body(body)
                except framing.FrameError as exc:
                    self.kill()
                    raise WorkerFailure("WorkerCrashed", f"invalid reply from the worker: {exc}") from None
                if not isinstance(message, dict):
                    self.kill()
                    raise WorkerFailure("WorkerCrashed", "invalid reply from the worker")
                return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fail_timeout(startup)
            fds = [self.stdout_fd] + ([self.stderr_fd] if self.stderr_fd is not None else [])
            readable = _ready(fds, select.POLLIN, remaining)
            if self.stderr_fd is not None and self.stderr_fd in readable:
                chunk = os.read(self.stderr_fd, 65536)
                if chunk:
                    self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]
                else:
                    self.stderr_fd = None
            if self.stdout_fd in readable:
                chunk = os.read(self.stdout_fd, 1 << 20)
                if not chunk:
                    self._fail_dead()
                self.buffer += chunk

    # -- failures ------------------------------------------------------------
    def _fail_timeout(self, startup: bool = False) -> None:
        self.kill()
        if startup:
            raise WorkerFailure("Timeout", f"the worker did not start within {self.limits.startup_seconds:g} s")
        raise WorkerFailure("Timeout", f"wall-clock limit of {self.limits.wall_seconds:g} s exceeded")

    def _fail_dead(self) -> None:
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        if self.stderr_fd is not None:
            try:
                os.set_blocking(self.stderr_fd, False)
                chunk = os.read(self.stderr_fd, 65536)
                self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]
            except (BlockingIOError, OSError):
                pass
        code = self.proc.returncode
        self.kill()
        raise WorkerFailure(*self.classify_exit(code))

    def classify_exit(self, code: int | None) -> tuple[str, str]:
        tail = self.stderr_tail.decode("utf-8", "replace")
        sig = None
        if code is not None and code < 0:
            sig = -code
        elif code is not None and code > 128:
            sig = code - 128  # bubblewrap reports a killed child as 128 + signal
        if "MemoryError" in tail:
            return "MemoryLimit", f"memory limit of {self.limits.memory_mb} MB exceeded (the worker stopped)"
        if sig == signal.SIGXCPU:
            return "Timeout", f"CPU time limit of {self.limits.cpu_seconds:g} s exceeded"
        if sig == signal.SIGKILL:
            return "WorkerCrashed", "the worker was killed (SIGKILL: hard CPU limit or out of memory)"
        if sig is not None:
            return "WorkerCrashed", f"the worker died with {_signal_name(sig)}"
        last = tail.strip().splitlines()[-1:] if tail.strip() else []
        detail = f": {last[0][:300]}" if last else ""
        return "WorkerCrashed", f"the worker exited unexpectedly (exit code {code}){detail}"


def _validate_reply(reply: dict[str, Any]) -> dict[str, Any]:
    ok = reply.get("ok")
    stdout = reply.get("stdout")
    error = reply.get("error")
    if not isinstance(ok, bool) or not isinstance(stdout, str):
        raise WorkerFailure("WorkerCrashed", "invalid reply from the worker")
    if error is not None:
        if not (
            isinstance(error, dict) and isinstance(error.get("type"), str) and isinstance(error.get("message"), str)
        ):
            raise WorkerFailure("WorkerCrashed", "invalid error in the worker's reply")
        error = {"type": error["type"], "message": error["message"]}
    return {
        "ok": ok and error is None,
        "result": reply.get("result"),
        "stdout": stdout,
        "error": error,
        "exiting": reply.get("exiting") is True,
    }
