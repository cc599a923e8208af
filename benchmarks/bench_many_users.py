"""Many users on one server: memory, threads, open files and search latency.

    python benchmarks/bench_many_users.py [--projects 10000] [--templates 8] [--searches 4000]
        [--hot 50] [--hot-share 0.8] [--concurrency 4] [--warm-projects N] [--json OUT.json]

Builds a temporary root with ``--projects`` small projects: ``--templates``
of them are made through the library (a project, two generated sessions
ingested, one bearer token made with ``uac token create``) and the rest are
copies of those (a project directory is portable, tokens included; the files
of the embedded vector store are hard links, since nothing in the run writes
to them).  Then
it starts ``uac serve http`` with its default settings (``--warm-projects``
and ``--idle-seconds`` override them) in a subprocess on a loopback port and:

1. touches every project once with a search (the first search of a copied
   project also writes its saved search tables, so these are reported apart);
2. runs ``--searches`` searches spread over the projects: ``--hot-share`` of
   them go to a hot set of ``--hot`` projects, the rest to the long tail.  A
   search is *warm* if its project was among the server's last
   ``warm_projects`` distinct projects (the client keeps the same LRU the
   server reports in ``GET /v1/server``), else *cold* (evicted: opened again
   from its files);
3. samples the server's resident memory, threads and open files (from
   ``/proc``) all along, and reads them again at the end.

The baseline, measured in the same run, is the library call made in this
process one at a time: a search on a freshly opened ``UserMemory`` (cold) and
a repeated search on one kept open (warm).  Ratios show what serving many
users adds.  Targets (the defaults): RSS at most 1.5 GB, threads at most
150, open files at most 1,000 after touching every project; cold p50 at most
300 ms; warm p50 near the baseline.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

import typer

from _common import free_port, offline_env, percentile, start_server, stop_server, wait_ready  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

REPO = Path(__file__).resolve().parents[1]

LINES = [
    "I walked my dog {pet} along the river this morning.",
    "I cooked a {dish} for my parents on Sunday.",
    "I booked a flight to {city} for the spring.",
    "I practised the {instrument} for an hour after work.",
    "I ran {km} kilometres in the park before breakfast.",
    "My manager moved our team meeting to {day}.",
    "I planted {plant} in the garden.",
]
WORDS = {
    "pet": ["Rex", "Bella", "Milo", "Luna"],
    "dish": ["risotto", "curry", "lasagne", "paella"],
    "city": ["Lisbon", "Oslo", "Kyoto", "Lima"],
    "instrument": ["cello", "piano", "violin", "guitar"],
    "km": ["five", "ten", "twelve", "twenty"],
    "day": ["Mondays", "Tuesdays", "Thursdays", "Fridays"],
    "plant": ["tomatoes", "basil", "roses", "beans"],
}
QUERIES = [
    "dog walk",
    "what did I cook",
    "flight booking",
    "music practice",
    "running",
    "team meeting",
    "garden plants",
]


def _ms(value: float | None) -> float | None:
    return None if value is None else round(1000 * value, 1)


#: the admin token of the server this benchmark starts (for GET /v1/server)
ADMIN_TOKEN = "bench-admin-" + secrets.token_urlsafe(16)


def _env() -> dict[str, str]:
    return offline_env(UAC_ADMIN_TOKEN=ADMIN_TOKEN)


def _session(template: int, n: int) -> dict:
    rng = random.Random(template * 1000 + n)
    text = " ".join(line.format(**{k: rng.choice(v) for k, v in WORDS.items()}) for line in rng.sample(LINES, 3))
    return {
        "session_id": f"t{template}-s{n}",
        "date": f"2023-{1 + n % 12:02d}-{1 + template % 28:02d}",
        "messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
    }


def build_templates(folder: Path, count: int) -> tuple[list[Path], str]:
    """``count`` real projects made through the library, sharing one bearer token."""
    from uac import UserMemory

    templates = []
    for t in range(count):
        path = folder / f"template{t}"
        memory = UserMemory.create(path, user_name=f"User{t}")
        sessions = folder / f"template{t}.jsonl"
        sessions.write_text("\n".join(json.dumps(_session(t, n)) for n in range(2)) + "\n")
        memory.ingest(sessions, compile=False)
        memory.search(QUERIES[0], k=5)  # a project in use has its search tables saved: copies carry them
        memory.close()
        templates.append(path)
    done = subprocess.run(
        [sys.executable, "-m", "uac", "token", "create", str(templates[0]), "--name", "bench", "--json"],
        cwd=REPO,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    token = json.loads(done.stdout)["token"]
    for path in templates[1:]:  # the token file travels with the project, as in any copy
        (path / "auth").mkdir(exist_ok=True)
        shutil.copy2(templates[0] / "auth" / "tokens.json", path / "auth" / "tokens.json")
    return templates, token


def _copy(source: str, target: str) -> None:
    # the embedded vector store (most of a small project's bytes) is linked, not copied: searches
    # read the flat vector copy and nothing in this run writes to a project
    if f"{os.sep}.uac{os.sep}chroma{os.sep}" in source:
        os.link(source, target)
    else:
        shutil.copy2(source, target)


def build_root(root: Path, templates: list[Path], projects: int) -> list[str]:
    names = [f"user{n:05d}" for n in range(projects)]
    for n, name in enumerate(names):
        shutil.copytree(templates[n % len(templates)], root / name, symlinks=True, copy_function=_copy)
    return names


def usage(pid: int) -> dict[str, int]:
    """Resident memory (MB), peak resident memory (MB), threads and open files of a process."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return {
        "rss_mb": int(fields["VmRSS"].split()[0]) // 1024,
        "peak_rss_mb": int(fields["VmHWM"].split()[0]) // 1024,
        "threads": int(fields["Threads"]),
        "open_files": len(os.listdir(f"/proc/{pid}/fd")),
    }


class Sampler:
    """The highest threads and open files seen while a phase runs."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = {"threads": 0, "open_files": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.25):
            try:
                now = usage(self.pid)
            except (FileNotFoundError, ProcessLookupError):
                return
            for key in self.peak:
                self.peak[key] = max(self.peak[key], now[key])

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def baseline(root: Path, names: list[str], repeat: int) -> dict:
    """The library call in this process: cold (a fresh UserMemory) and warm (one kept open)."""
    from uac import UserMemory

    UserMemory.open(root / names[0]).search("warm up the embedder", k=5)
    cold, warm = [], []
    for n in range(repeat):
        path = root / names[(n * 7919) % len(names)]
        UserMemory.open(path).search(QUERIES[0], k=5)  # its first search saves its tables, as in the server
        memory = UserMemory.open(path)
        started = time.perf_counter()
        memory.search(QUERIES[n % len(QUERIES)], k=5)
        cold.append(time.perf_counter() - started)
        memory.close()
    memory = UserMemory.open(root / names[0])
    memory.search(QUERIES[0], k=5)
    for n in range(repeat):
        started = time.perf_counter()
        memory.search(QUERIES[n % len(QUERIES)], k=5)
        warm.append(time.perf_counter() - started)
    memory.close()
    return {
        "cold_p50_ms": _ms(percentile(cold, 0.5)),
        "cold_p95_ms": _ms(percentile(cold, 0.95)),
        "cold_p99_ms": _ms(percentile(cold, 0.99)),
        "warm_p50_ms": _ms(percentile(warm, 0.5)),
        "warm_p95_ms": _ms(percentile(warm, 0.95)),
        "warm_p99_ms": _ms(percentile(warm, 0.99)),
    }


def drive(
    base: str, token: str, plan: list[str], concurrency: int, deadline: float
) -> tuple[list[float | None], list[str]]:
    """Search each project of ``plan`` in order: the latency of each search (None if not
    sent), and the errors."""
    import httpx

    headers = {"Authorization": f"Bearer {token}"}
    client = httpx.Client(base_url=base, timeout=120, limits=httpx.Limits(max_connections=concurrency))
    done: list[float | None] = [None] * len(plan)
    errors: list[str] = []

    def one(index: int) -> None:
        if time.monotonic() > deadline:
            errors.append("deadline passed before the request was sent")
            return
        name = plan[index]
        started = time.perf_counter()
        try:
            r = client.post(
                f"/v1/projects/{name}/search", json={"query": QUERIES[index % len(QUERIES)], "k": 5}, headers=headers
            )
            ok, detail = r.status_code == 200 and bool(r.json()["results"]), f"{r.status_code} {r.text[:200]}"
        except httpx.HTTPError as exc:
            ok, detail = False, repr(exc)
        done[index] = time.perf_counter() - started
        if not ok:
            errors.append(detail)

    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(len(plan))))
    client.close()
    return done, errors


def server_info(base: str, admin: dict[str, str]) -> dict:
    """The server's working set (``GET /v1/server``), or {} from a server without that route."""
    import httpx

    r = httpx.get(base + "/v1/server", headers=admin, timeout=10)
    return r.json() if r.status_code == 200 else {}


def classify(plan: list[str], capacity: int, seen: OrderedDict[str, None]) -> list[bool]:
    """Warm (True) or cold for each search of ``plan``, by the server's LRU of ``capacity`` projects."""
    warm = []
    for name in plan:
        warm.append(name in seen)
        seen[name] = None
        seen.move_to_end(name)
        while len(seen) > capacity:
            seen.popitem(last=False)
    return warm


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(help=__doc__.split("\n\n")[0])
def main(
    projects: int = typer.Option(10_000, "--projects", min=2, help="registered projects"),
    templates: int = typer.Option(
        8, "--templates", min=1, help="projects made through the library (the rest are copies)"
    ),
    searches: int = typer.Option(4000, "--searches", help="searches after every project was touched"),
    hot: int = typer.Option(50, "--hot", min=1, help="projects in the hot set"),
    hot_share: float = typer.Option(
        0.8, "--hot-share", min=0.0, max=1.0, help="share of searches that go to the hot set"
    ),
    concurrency: int = typer.Option(4, "--concurrency", min=1),
    warm_projects: Optional[int] = typer.Option(None, "--warm-projects", help="server setting (default: the server's)"),
    idle_seconds: Optional[float] = typer.Option(None, "--idle-seconds", help="server setting (default: the server's)"),
    baseline_repeat: int = typer.Option(100, "--baseline-repeat", help="library searches per baseline figure"),
    deadline_seconds: float = typer.Option(3600.0, "--deadline", help="seconds for the load phases"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the results here"),
) -> None:
    import httpx  # noqa: F401 - fail at once when the serve extra is missing

    hot = min(hot, projects)
    load_start = [round(x, 2) for x in os.getloadavg()]
    work = Path(tempfile.mkdtemp(prefix="uac-many-users-"))
    root = work / "root"
    root.mkdir()
    proc = None
    try:
        started = time.perf_counter()
        template_paths, token = build_templates(work, min(templates, projects))
        names = build_root(root, template_paths, projects)
        build_seconds = time.perf_counter() - started
        print(f"built {projects} projects in {build_seconds:.1f} s", flush=True)

        base_line = baseline(root, names, baseline_repeat)
        print(f"baseline (library, this process): {base_line}", flush=True)

        port = free_port()
        extra = []
        if warm_projects is not None:
            extra += ["--warm-projects", str(warm_projects)]
        if idle_seconds is not None:
            extra += ["--idle-seconds", str(idle_seconds)]
        proc = start_server(root, port, _env(), extra)
        base = f"http://127.0.0.1:{port}"
        wait_ready(base, proc, timeout=120.0, poll=0.2)
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        idle = usage(proc.pid)
        deadline = time.monotonic() + deadline_seconds

        rng = random.Random(7)
        touch = list(names)
        rng.shuffle(touch)
        with Sampler(proc.pid) as touch_sampler:
            touched, touch_errors = drive(base, token, touch, concurrency, deadline)
        after_touch = usage(proc.pid)
        touch_lat = [lat for lat in touched if lat is not None]
        server_state = server_info(base, admin)
        capacity = int(server_state.get("warm_limit") or 0) or projects
        print(f"touched {len(touch_lat)} projects: {after_touch}; server: {server_state}", flush=True)

        hot_set = names[:hot]
        tail = names[hot:] or names
        plan = [rng.choice(hot_set) if rng.random() < hot_share else rng.choice(tail) for _ in range(searches)]
        seen: OrderedDict[str, None] = OrderedDict((name, None) for name in touch[-capacity:])
        warm_flags = classify(plan, capacity, seen)
        with Sampler(proc.pid) as mixed_sampler:
            mixed, mixed_errors = drive(base, token, plan, concurrency, deadline)
        after_mixed = usage(proc.pid)
        server_after = server_info(base, admin)

        # the requests ran concurrently, so match latencies to the plan by position
        warm_lat = [lat for lat, w in zip(mixed, warm_flags) if w and lat is not None]
        cold_lat = [lat for lat, w in zip(mixed, warm_flags) if not w and lat is not None]
        results = {
            "projects": projects,
            "build_seconds": round(build_seconds, 1),
            "server_settings": {
                k: server_after.get(k) for k in ("warm_limit", "idle_seconds", "threads", "open_files_limit")
            },
            "idle": idle,
            "after_touching_all": after_touch,
            "peak_while_touching": touch_sampler.peak,
            "after_mixed": after_mixed,
            "peak_while_mixed": mixed_sampler.peak,
            "server_counters": {k: server_after.get(k) for k in ("warm", "opened", "evicted")},
            "touch": {
                "n": len(touch_lat),
                "p50_ms": _ms(percentile(touch_lat, 0.5)),
                "p95_ms": _ms(percentile(touch_lat, 0.95)),
                "p99_ms": _ms(percentile(touch_lat, 0.99)),
                "errors": len(touch_errors),
                "error_examples": touch_errors[:3],
            },
            "mixed": {
                "n": len(warm_lat) + len(cold_lat),
                "errors": len(mixed_errors),
                "error_examples": mixed_errors[:3],
                "warm": _latencies(warm_lat),
                "cold": _latencies(cold_lat),
            },
            "baseline": base_line,
            "load_average": {"start": load_start, "end": [round(x, 2) for x in os.getloadavg()]},
        }
        raise typer.Exit(report(results, json_out))
    finally:
        if proc is not None:
            stop_server(proc, 30)
        shutil.rmtree(work, ignore_errors=True)


def _latencies(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50_ms": _ms(percentile(values, 0.5)),
        "p95_ms": _ms(percentile(values, 0.95)),
        "p99_ms": _ms(percentile(values, 0.99)),
    }


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "n/a"


def report(results: dict, json_out: Path | None) -> int:
    mixed, base = results["mixed"], results["baseline"]
    after = results["after_touching_all"]
    print(json.dumps(results, indent=2))
    print(
        f"\nafter touching all {results['projects']} projects: RSS {after['rss_mb']} MB, "
        f"{after['threads']} threads, {after['open_files']} open files"
    )
    for kind in ("warm", "cold"):
        got = mixed[kind]
        print(
            f"{kind} search p50 {got['p50_ms']} ms ({_ratio(got['p50_ms'], base[f'{kind}_p50_ms'])} the library's "
            f"{kind} {base[f'{kind}_p50_ms']} ms), p95 {got['p95_ms']} ms ({_ratio(got['p95_ms'], base[f'{kind}_p95_ms'])} "
            f"the library's {base[f'{kind}_p95_ms']} ms), p99 {got['p99_ms']} ms"
        )
    print(f"load average: {results['load_average']['start']} at the start, {results['load_average']['end']} at the end")
    checks = [
        ("RSS <= 1536 MB after touching every project", after["rss_mb"] <= 1536),
        ("threads <= 150 after touching every project", after["threads"] <= 150),
        ("open files <= 1000 after touching every project", after["open_files"] <= 1000),
        ("cold search p50 <= 300 ms", (mixed["cold"]["p50_ms"] or 0) <= 300),
        ("no failed search", results["touch"]["errors"] == 0 and mixed["errors"] == 0),
    ]
    for label, ok in checks:
        print(f"[{'PASS' if ok else 'FAIL'}] {label}")
    if json_out is not None:
        json_out.write_text(json.dumps(results, indent=2) + "\n")
    return 0 if results["touch"]["errors"] == 0 and mixed["errors"] == 0 else 1


if __name__ == "__main__":
    app()
