"""Hostile and bursty load on the HTTP and MCP servers, with the bounds they keep.

    python benchmarks/bench_hostile_load.py [--uploads 150] [--upload-mb 16] [--projects 5000]
        [--lookups 400] [--noisy 96] [--jobs 200] [--initializes 10000] [--mcp-sessions 1000]
        [--servers 5] [--burst 32]
        [--only NAME ...] [--json OUT.json]

Builds a temporary root with a few small projects (through the library, tokens
made with ``uac token create``), starts real ``uac serve http`` / ``uac serve
mcp`` processes on free loopback ports and runs six scenarios:

``bodies``     ``--uploads`` token-less uploads at once, each declaring a 16 MiB body and
               sending up to ``--upload-mb`` of it: the server's resident memory before and
               after (target: it grows by less than 64 MB; every upload answered 401).
``jobs``       ``--lookups`` ``GET /v1/jobs/{id}`` with junk tokens beside ``--projects``
               project directories, while a quiet tenant reads its manifest: the quiet
               tenant's p99 alone and during (target: during within 2x alone + 250 ms).
``reads``      ``--noisy`` clients of one tenant sending health checks and plain reads
               back to back, while a quiet tenant reads (same target).
``compile``    ``--jobs`` offline compile jobs of one tenant, then another tenant's first
               one: how long it waited, against one compile alone (target: at most 2x
               one compile + 1 s).
``mcp``        ``--initializes`` MCP ``initialize`` calls with junk tokens (target: none
               opens a session), a legitimate client's session, then a server's cap of
               ``--mcp-sessions`` sessions filled and a SIGTERM (target: it stops within 10 s).
``burst``      ``--servers`` fresh HTTP servers, each receiving ``--burst`` mixed first
               requests at once over four tenants (target: no failure).

Every figure is read from the same run (baselines alone first, then under
load); request counts and times are bounded; nothing leaves the loopback
interface.  Results print as a table and, with ``--json``, go to a file.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Optional

import typer

from _common import free_port, offline_env, percentile  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

REPO = Path(__file__).resolve().parents[1]
MiB = 1024 * 1024
SCENARIOS = ("bodies", "jobs", "reads", "compile", "mcp", "burst")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def build_root(root: Path, users: int) -> dict[str, str]:
    from uac import UserMemory

    tokens = {}
    for n in range(users):
        name = f"user{n}"
        memory = UserMemory.create(root / name, user_name=f"User{n}")
        path = root.parent / f"{name}.json"
        lines = [
            {"role": "user", "content": f"On day {d} I walked my dog Rex {d % 5 + 1} km and cooked risotto."}
            for d in range(40)
        ]
        path.write_text(json.dumps({"date": "2023-05-08", "messages": lines}))
        memory.ingest(path, compile=False)
        memory.close()
        done = subprocess.run(
            [sys.executable, "-m", "uac", "token", "create", str(root / name), "--json"],
            cwd=REPO,
            env=offline_env(),
            capture_output=True,
            text=True,
            check=True,
        )
        tokens[name] = json.loads(done.stdout)["token"]
    return tokens


class Server:
    """``uac serve KIND`` in a subprocess, its log in a file."""

    def __init__(
        self, root: Path, log: Path, *args: str, kind: str = "http", ready: Optional[str] = "/v1/health"
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "uac", "serve", kind, "--root", str(root), "--port", str(self.port), *args]
        if kind == "mcp":
            command += ["--transport", "http"]
        with open(log, "w") as handle:
            self.proc = subprocess.Popen(command, cwd=REPO, env=offline_env(), stdout=handle, stderr=subprocess.STDOUT)
        self._wait(ready, log)

    def _wait(self, ready: Optional[str], log: Path) -> None:
        import httpx

        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"the server exited: {log.read_text()[-2000:]}")
            try:
                if ready is None:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                        return
                elif httpx.get(self.base + ready, timeout=2).status_code < 500:
                    return
            except (OSError, httpx.HTTPError):
                pass
            time.sleep(0.05)
        raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")

    def stop(self) -> float:
        """SIGTERM; the seconds until the process ended."""
        started = time.monotonic()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return float("inf")
        return time.monotonic() - started


def _quiet_latencies(call: Callable[[], bool], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        if not call():
            raise SystemExit("a quiet tenant's request failed")
        out.append(time.perf_counter() - started)
    return out


def _under_load(load: Callable[[threading.Event], None], workers: int, quiet: Callable[[], list[float]]) -> list[float]:
    stop = threading.Event()
    with ThreadPoolExecutor(workers) as pool:
        for _ in range(workers):
            pool.submit(load, stop)
        time.sleep(1.0)
        try:
            return quiet()
        finally:
            stop.set()


def _quiet_target(alone: list[float], during: list[float]) -> dict:
    p99_alone, p99_during = percentile(alone, 0.99, empty=0.0), percentile(during, 0.99, empty=0.0)
    return {
        "quiet_p50_ms_alone": round(1000 * percentile(alone, 0.5, empty=0.0), 1),
        "quiet_p99_ms_alone": round(1000 * p99_alone, 1),
        "quiet_p50_ms_during": round(1000 * percentile(during, 0.5, empty=0.0), 1),
        "quiet_p99_ms_during": round(1000 * p99_during, 1),
        "target_met": p99_during <= 2 * p99_alone + 0.25,
    }


# --- the scenarios ---------------------------------------------------------------------------


def bodies(root: Path, work: Path, tokens: dict[str, str], args) -> dict:
    server = Server(root, work / "bodies.log")
    try:
        before = _rss_mb(server.proc.pid)
        statuses: list[Optional[int]] = []
        guard = threading.Lock()

        def upload(_: int) -> None:
            status = None
            with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
                sock.sendall(
                    f"POST /v1/projects/user0/sessions/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Content-Length: {16 * MiB}\r\n\r\n".encode()
                )
                chunk, sent = b"A: " + b"z" * (64 * 1024 - 4) + b"\n", 0
                while sent < args.upload_mb * MiB and not select.select([sock], [], [], 0)[0]:
                    try:
                        sock.sendall(chunk)
                    except OSError:
                        break
                    sent += len(chunk)
                if select.select([sock], [], [], 30)[0]:
                    try:
                        head = sock.recv(64)
                        status = int(head.split()[1]) if head.startswith(b"HTTP/") else None
                    except OSError:
                        pass
            with guard:
                statuses.append(status)

        started = time.monotonic()
        with ThreadPoolExecutor(args.uploads) as pool:
            list(pool.map(upload, range(args.uploads)))
        took = time.monotonic() - started
        after = _rss_mb(server.proc.pid)
    finally:
        server.stop()
    return {
        "uploads": args.uploads,
        "answered_401": statuses.count(401),
        "seconds": round(took, 2),
        "rss_mb_before": round(before, 1),
        "rss_mb_after": round(after, 1),
        "target_met": statuses.count(401) == args.uploads and after - before < 64,
    }


def jobs(root: Path, work: Path, tokens: dict[str, str], args) -> dict:
    import httpx

    for n in range(args.projects):
        (root / f"empty{n:05d}" / ".uac" / "jobs").mkdir(parents=True, exist_ok=True)
    server = Server(root, work / "jobs.log")
    try:
        quiet_headers = {"Authorization": f"Bearer {tokens['user1']}"}
        with httpx.Client(base_url=server.base, timeout=120) as client:

            def quiet() -> bool:
                return client.get("/v1/projects/user1/manifest", headers=quiet_headers).status_code == 200

            alone = _quiet_latencies(quiet, 60)
            left = [args.lookups]
            guard = threading.Lock()

            def lookups(stop: threading.Event) -> None:
                with httpx.Client(base_url=server.base, timeout=120) as mine:
                    while not stop.is_set():
                        with guard:
                            if left[0] <= 0:
                                return
                            left[0] -= 1
                            n = left[0]
                        mine.get(f"/v1/jobs/{n:032x}", headers={"Authorization": "Bearer junk"})

            started = time.monotonic()
            during = _under_load(lookups, 16, lambda: _quiet_latencies(quiet, 60))
            took = time.monotonic() - started
    finally:
        server.stop()
        for n in range(args.projects):
            shutil.rmtree(root / f"empty{n:05d}", ignore_errors=True)
    return {
        "projects": args.projects,
        "lookups": args.lookups,
        "seconds": round(took, 2),
        **_quiet_target(alone, during),
    }


def reads(root: Path, work: Path, tokens: dict[str, str], args) -> dict:
    import httpx

    server = Server(root, work / "reads.log")
    try:
        quiet_headers = {"Authorization": f"Bearer {tokens['user1']}"}
        noisy_headers = {"Authorization": f"Bearer {tokens['user0']}"}
        with httpx.Client(base_url=server.base, timeout=120) as client:

            def quiet() -> bool:
                return client.get("/v1/projects/user1/facts", headers=quiet_headers).status_code == 200

            alone = _quiet_latencies(quiet, 40)
            counter = iter(range(10**9))

            def noisy(stop: threading.Event) -> None:
                n = next(counter)
                with httpx.Client(base_url=server.base, timeout=120) as mine:
                    while not stop.is_set():
                        if n % 3 != 2:
                            mine.post("/v1/projects/user0/doctor", headers=noisy_headers)
                        else:
                            mine.get("/v1/projects/user0/facts", headers=noisy_headers)

            during = _under_load(noisy, args.noisy, lambda: _quiet_latencies(quiet, 40))
    finally:
        server.stop()
    return {"noisy_clients": args.noisy, **_quiet_target(alone, during)}


def compile_jobs(root: Path, work: Path, tokens: dict[str, str], args) -> dict:
    import httpx

    server = Server(root, work / "compile.log", "--job-workers", "1", "--queue-per-project", str(max(args.jobs, 1)))
    try:

        def finished(client: httpx.Client, url: str, headers: dict) -> None:
            while client.get(url, headers=headers).json()["status"] not in ("succeeded", "failed"):
                time.sleep(0.05)

        with httpx.Client(base_url=server.base, timeout=120) as client:
            quiet = {"Authorization": f"Bearer {tokens['user1']}"}
            noisy = {"Authorization": f"Bearer {tokens['user0']}"}
            started = time.monotonic()
            one = client.post("/v1/projects/user1/compile", json={"mode": "offline"}, headers=quiet)
            finished(client, one.headers["location"], quiet)
            single = time.monotonic() - started
            accepted = sum(
                client.post("/v1/projects/user0/compile", json={"mode": "offline"}, headers=noisy).status_code == 202
                for _ in range(args.jobs)
            )
            started = time.monotonic()
            mine = client.post("/v1/projects/user1/compile", json={"mode": "offline"}, headers=quiet)
            finished(client, mine.headers["location"], quiet)
            waited = time.monotonic() - started
    finally:
        server.stop()
    return {
        "jobs": args.jobs,
        "accepted": accepted,
        "single_compile_s": round(single, 2),
        "other_tenant_waited_s": round(waited, 2),
        "target_met": waited <= 2 * single + 1,
    }


def mcp(root: Path, work: Path, tokens: dict[str, str], args) -> dict:
    import httpx

    server = Server(root, work / "mcp.log", kind="mcp", ready="/health")
    try:
        url = f"{server.base}/mcp?project=user0"
        with httpx.Client(timeout=60) as client, ThreadPoolExecutor(16) as pool:
            junk = list(
                pool.map(
                    lambda _: (
                        client.post(
                            url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer junk"}
                        ).status_code
                    ),
                    range(args.initializes),
                )
            )
            sessions_after_junk = httpx.get(server.base + "/health").json()["sessions"]
            legit = client.post(
                url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {tokens['user0']}"}
            )
    finally:
        server.stop()
    full = Server(
        root,
        work / "mcp-full.log",
        "--sessions",
        str(args.cap),
        "--sessions-per-token",
        "100000",
        "--sessions-per-project",
        "100000",
        kind="mcp",
        ready="/health",
    )
    try:
        url = f"{full.base}/mcp?project=user0"
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {tokens['user0']}"}
        with httpx.Client(timeout=60) as client, ThreadPoolExecutor(16) as pool:
            opened = list(
                pool.map(lambda _: client.post(url, json=INITIALIZE, headers=headers).status_code, range(args.cap + 1))
            )
    finally:
        stop_seconds = full.stop()
    return {
        "junk_initializes": args.initializes,
        "junk_refused": sum(s in (401, 403) for s in junk),
        "sessions_after_junk": sessions_after_junk,
        "legitimate_session": legit.status_code == 200,
        "opened_at_cap": opened.count(200),
        "refused_at_cap": opened.count(503),
        "sigterm_seconds": round(stop_seconds, 2),
        "target_met": sessions_after_junk == 0 and legit.status_code == 200 and stop_seconds < 10,
    }


def burst(root: Path, work: Path, tokens: dict[str, str], args) -> dict:
    import httpx

    users = sorted(tokens)[:4]
    failures: list[str] = []
    for n in range(args.servers):
        server = Server(root, work / f"burst-{n}.log", ready=None)
        try:

            def one(i: int) -> None:
                user = users[i % len(users)]
                api, headers = f"{server.base}/v1/projects/{user}", {"Authorization": f"Bearer {tokens[user]}"}
                kind = i % 5
                if kind == 0:
                    r = httpx.post(api + "/search", json={"query": "dog"}, headers=headers, timeout=120)
                elif kind == 1:
                    r = httpx.post(api + "/doctor", json={}, headers=headers, timeout=120)
                elif kind == 2:
                    r = httpx.get(api + "/facts", headers=headers, timeout=120)
                elif kind == 3:
                    r = httpx.post(api + "/repl", json={"code": "result = 1"}, headers=headers, timeout=120)
                else:
                    r = httpx.post(
                        api + "/search", json={"query": "risotto", "channel": "archive"}, headers=headers, timeout=120
                    )
                if r.status_code != 200:
                    failures.append(f"server {n}: {r.status_code} {r.text[:120]}")

            with ThreadPoolExecutor(args.burst) as pool:
                list(pool.map(one, range(args.burst)))
        finally:
            server.stop()
    return {
        "servers": args.servers,
        "requests_each": args.burst,
        "failures": len(failures),
        "failure_examples": failures[:3],
        "target_met": not failures,
    }


RUNNERS = {"bodies": bodies, "jobs": jobs, "reads": reads, "compile": compile_jobs, "mcp": mcp, "burst": burst}

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command()
def main(
    uploads: int = typer.Option(150, "--uploads", min=1, help="token-less 16 MiB uploads at once (bodies)"),
    upload_mb: int = typer.Option(16, "--upload-mb", min=1, max=16, help="MiB of each upload actually sent, at most"),
    projects: int = typer.Option(5000, "--projects", min=0, help="project directories beside the job lookups (jobs)"),
    lookups: int = typer.Option(400, "--lookups", min=1, help="job lookups with junk tokens (jobs)"),
    noisy: int = typer.Option(96, "--noisy", min=1, help="clients of the noisy tenant (reads)"),
    jobs_count: int = typer.Option(200, "--jobs", min=1, help="compile jobs of the noisy tenant (compile)"),
    initializes: int = typer.Option(10000, "--initializes", min=1, help="MCP initialize calls with junk tokens (mcp)"),
    cap: int = typer.Option(
        1000, "--mcp-sessions", min=1, help="the MCP server's session cap, filled before SIGTERM (mcp)"
    ),
    servers: int = typer.Option(5, "--servers", min=1, help="fresh servers, each given a first burst (burst)"),
    burst_size: int = typer.Option(32, "--burst", min=1, help="first requests at once per fresh server (burst)"),
    only: Optional[list[str]] = typer.Option(None, "--only", help=f"run only these scenarios ({', '.join(SCENARIOS)})"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the results here"),
) -> None:
    chosen = list(only or SCENARIOS)
    unknown = [name for name in chosen if name not in RUNNERS]
    if unknown:
        raise typer.BadParameter(
            f"unknown scenario {unknown[0]!r}; choose from {', '.join(SCENARIOS)}", param_hint="--only"
        )
    args = type(
        "Args",
        (),
        dict(
            uploads=uploads,
            upload_mb=upload_mb,
            projects=projects,
            lookups=lookups,
            noisy=noisy,
            jobs=jobs_count,
            initializes=initializes,
            cap=cap,
            servers=servers,
            burst=burst_size,
        ),
    )()
    work = Path(tempfile.mkdtemp(prefix="uac-hostile-"))
    try:
        root = work / "root"
        root.mkdir()
        tokens = build_root(root, 4)
        results = {"load_average": os.getloadavg()}
        for name in chosen:
            print(f"running {name} ...", file=sys.stderr)
            results[name] = RUNNERS[name](root, work, tokens, args)
        results["load_average_end"] = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name in chosen:
        figures = {k: v for k, v in results[name].items() if k != "target_met"}
        mark = "PASS" if results[name]["target_met"] else "FAIL"
        print(f"[{mark}] {name}: " + ", ".join(f"{k}={v}" for k, v in figures.items()))
    if json_out is not None:
        json_out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    app()
