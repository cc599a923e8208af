"""Real server processes for the load tests: started on a free loopback port, their
log in a file (a pipe nobody reads fills up and stalls a server that logs a lot),
stopped with SIGTERM."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx

from .conftest import REPO, child_env, free_port, stop


@contextmanager
def server_process(
    root: Path,
    *args: str,
    log: Path,
    kind: str = "http",
    ready: str | None = "/v1/health",
    launcher: list[str] | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 90.0,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """``uac serve KIND --root ROOT ARGS`` until the block ends; yields (base URL, process).

    ``ready``: a path answered below 500 once the server is up (None: the port accepts
    connections).  ``launcher`` replaces ``python -m uac`` (e.g. ``python -c ...``)."""
    port = free_port()
    command = (launcher or [sys.executable, "-m", "uac"]) + [
        "serve",
        kind,
        "--root",
        str(root),
        "--port",
        str(port),
        *args,
    ]
    if kind == "mcp":
        command += ["--transport", "http"]
    with open(log, "w") as handle:
        proc = subprocess.Popen(
            command, cwd=REPO, env=child_env(**(env or {})), stdout=handle, stderr=subprocess.STDOUT, text=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(base, port, ready, proc, log, timeout)
        yield base, proc
    finally:
        stop(proc)


def _wait_ready(base: str, port: int, ready: str | None, proc: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}: {log.read_text()[-3000:]}")
        try:
            if ready is None:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
            elif httpx.get(base + ready, timeout=2.0).status_code < 500:
                return
        except (OSError, httpx.HTTPError):
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{base} did not come up within {timeout}s: {log.read_text()[-3000:]}")


def resident_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (from /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")
