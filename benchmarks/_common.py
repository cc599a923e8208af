"""What several benchmark scripts share: timing a call, percentiles, and starting a server
on a free port with the network blocked.  The scripts import it from their own folder."""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parents[1]


def timings(fn: Callable[[], object], repeat: int) -> list[float]:
    """The seconds each of ``repeat`` calls of ``fn`` took."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return times


def best_time(fn: Callable[[], object], repeat: int) -> float:
    return min(timings(fn, repeat))


def median_time(fn: Callable[[], object], repeat: int) -> float:
    return statistics.median(timings(fn, repeat))


def percentile(values: list[float], q: float, empty: float | None = None) -> float | None:
    """The ``q`` quantile of ``values`` (nearest rank), ``empty`` when there are none."""
    if not values:
        return empty
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def offline_env(**more: str) -> dict[str, str]:
    """This process's environment without its ``UAC_`` settings, the network blocked, plus ``more``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_")}
    env.update(UAC_BLOCK_NETWORK="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    env.update(more)
    return env


def start_server(
    root: Path, port: int, env: dict[str, str], extra: Sequence[str] = (), stdout: int = subprocess.PIPE
) -> subprocess.Popen:
    """``uac serve http`` over the projects under ``root`` on ``127.0.0.1:port`` (its errors piped)."""
    return subprocess.Popen(
        [sys.executable, "-m", "uac", "serve", "http", "--root", str(root), "--host", "127.0.0.1"]
        + ["--port", str(port), "--log-level", "warning", *extra],
        cwd=REPO,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop_server(proc: subprocess.Popen, timeout: float) -> None:
    """Ask the server to stop; kill it if it has not stopped after ``timeout`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def wait_ready(base: str, proc: subprocess.Popen, timeout: float = 90.0, poll: float = 0.1) -> None:
    """Wait until the server at ``base`` answers ``/v1/health`` (it exiting first ends the run)."""
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(poll)
    raise SystemExit("server did not start in time")
