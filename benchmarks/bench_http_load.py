"""Load test of the HTTP API on loopback: throughput and latency under concurrency.

    python benchmarks/bench_http_load.py [--users 4] [--concurrency 8] [--search-requests 400]
        [--repl-requests 80] [--writes 40] [--deadline 240] [--json OUT.json]

Builds a temporary root with ``--users`` projects (sessions and typed records
written here), starts ``uac serve http`` in a subprocess on a free loopback
port, and drives it from a thread pool:

1. concurrent ``POST .../sessions`` (several writers per project), then checks
   that no fact was lost: every session is in its project's log and the log's
   fact count equals the sum the responses reported;
2. ``POST .../search`` across users (the ``search --json`` shape);
3. ``POST .../repl`` across users (a fresh sandbox worker per request).

For each it reports throughput, p50/p99 latency and errors.  The baseline,
measured in the same run, is the same library call made in-process, one at a
time (``UserMemory.search`` / ``UserMemory.run``): the ratio shows what HTTP,
JSON and the thread pool add (or, under concurrency, gain back).  Request
count and total time are bounded; nothing leaves the loopback interface.
"""

from __future__ import annotations

import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import typer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

REPO = Path(__file__).resolve().parents[1]

TOPICS = [
    ("dog", "I walked my dog Rex along the river this morning."),
    ("cooking", "I cooked a mushroom risotto for my parents."),
    ("travel", "I booked a flight to Lisbon for the spring."),
    ("music", "I practised the cello for an hour after work."),
    ("sport", "I ran ten kilometres in the park before breakfast."),
    ("books", "I finished reading a novel about a lighthouse keeper."),
    ("work", "My manager moved our team meeting to Thursdays."),
    ("garden", "I planted tomatoes and basil in the garden."),
]
QUERIES = ["dog walk", "what did I cook", "flight to Lisbon", "cello practice", "running in the park",
           "novel I read", "team meeting", "what did I plant"]
REPL_CODE = "result = {'n': len(trips), 'total': sum(t.cost for t in trips), 'cities': sorted({t.city for t in trips})}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _session(user: int, n: int, day: int) -> dict:
    _, text = TOPICS[(user + n) % len(TOPICS)]
    return {
        "session_id": f"u{user}-s{n}",
        "date": f"2023-{1 + n % 12:02d}-{1 + day % 28:02d}",
        "messages": [
            {"role": "user", "content": f"{text} It was day {day} of the month."},
            {"role": "assistant", "content": "That sounds lovely."},
            {"role": "user", "content": f"Note {n} for user {user}: remember item {n * 7 + user}."},
        ],
    }


def _server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_")}
    env.update(UAC_BLOCK_NETWORK="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False")
    return env


def create_token(project: Path) -> str:
    """A bearer token for ``project``, made as an operator makes one: ``uac token create``."""
    done = subprocess.run(
        [sys.executable, "-m", "uac", "token", "create", str(project), "--name", "load test", "--json"],
        cwd=REPO, env=_server_env(), capture_output=True, text=True, check=True,
    )
    return json.loads(done.stdout)["token"]


def build_root(root: Path, users: int, sessions_per_user: int) -> dict[str, str]:
    from uac import UserMemory

    tokens = {}
    for u in range(users):
        name = f"user{u}"
        memory = UserMemory.create(root / name, user_name=f"User{u}")
        path = root.parent / f"{name}.jsonl"
        path.write_text("\n".join(json.dumps(_session(u, n, n)) for n in range(sessions_per_user)) + "\n")
        memory.ingest(path)
        trips = [{"city": c, "date": f"2024-{1 + i % 12:02d}-10", "cost": 50 + 10 * i}
                 for i, c in enumerate(["Lisbon", "Rome", "Oslo", "Kyoto", "Lima", "Cairo"] * 5)]
        records = root.parent / f"{name}-trips.json"
        records.write_text(json.dumps(trips))
        memory.import_records(records, domain="travel", collection="trips")
        tokens[name] = create_token(memory.root)
    return tokens


def start_server(root: Path, port: int) -> subprocess.Popen:
    env = _server_env()
    return subprocess.Popen(
        [sys.executable, "-m", "uac", "serve", "http", "--root", str(root), "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def wait_ready(base: str, proc: subprocess.Popen, timeout: float = 90.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if httpx.get(base + "/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise SystemExit("server did not start in time")


def drive(name: str, calls: list, concurrency: int, deadline: float) -> dict:
    """Run ``calls`` (each returns True on success) from ``concurrency`` threads."""
    latencies: list[float] = []
    errors: list[str] = []

    def one(call) -> None:
        if time.monotonic() > deadline:
            errors.append("deadline passed before the request was sent")
            return
        started = time.perf_counter()
        try:
            ok, detail = call()
        except Exception as exc:  # a failed request is counted and reported, not raised
            ok, detail = False, repr(exc)
        latencies.append(time.perf_counter() - started)
        if not ok:
            errors.append(detail)

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, calls))
    wall = time.perf_counter() - started
    return {
        "name": name,
        "requests": len(calls),
        "concurrency": concurrency,
        "seconds": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 1) if wall else 0.0,
        "p50_ms": round(1000 * _pct(latencies, 0.50), 1) if latencies else None,
        "p99_ms": round(1000 * _pct(latencies, 0.99), 1) if latencies else None,
        "errors": len(errors),
        "error_examples": errors[:3],
    }


def baseline(root: Path, users: int, searches: int, runs: int) -> dict:
    """The same library calls in-process, sequentially."""
    from uac import UserMemory

    memories = [UserMemory.open(root / f"user{u}") for u in range(users)]
    for m in memories:
        m.search("warm up")
    rng = random.Random(7)
    search_times = []
    for _ in range(searches):
        memory = rng.choice(memories)
        started = time.perf_counter()
        memory.search(rng.choice(QUERIES), k=10)
        search_times.append(time.perf_counter() - started)
    run_times = []
    for _ in range(runs):
        memory = rng.choice(memories)
        started = time.perf_counter()
        result = memory.run(REPL_CODE)
        run_times.append(time.perf_counter() - started)
        assert result.ok, result
    return {
        "search_p50_ms": round(1000 * statistics.median(search_times), 1),
        "search_seq_rps": round(len(search_times) / sum(search_times), 1),
        "repl_p50_ms": round(1000 * statistics.median(run_times), 1),
        "repl_seq_rps": round(len(run_times) / sum(run_times), 1),
    }


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(help=__doc__.split("\n\n")[0])
def main(
    users: int = typer.Option(4, "--users"),
    sessions: int = typer.Option(12, "--sessions", help="sessions per user before the test"),
    concurrency: int = typer.Option(8, "--concurrency"),
    search_requests: int = typer.Option(400, "--search-requests"),
    repl_requests: int = typer.Option(80, "--repl-requests"),
    writes: int = typer.Option(40, "--writes", help="concurrent add-session calls"),
    deadline_seconds: float = typer.Option(240.0, "--deadline", help="seconds for the whole load phase"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the results here"),
) -> None:
    args = SimpleNamespace(
        users=users, sessions=sessions, concurrency=concurrency, search_requests=search_requests,
        repl_requests=repl_requests, writes=writes, deadline=deadline_seconds, json=json_out,
    )
    import httpx

    from uac import UserMemory

    def logged(user: str) -> tuple[int, set[str]]:
        """The facts in the user's log (superseded ones too) and the sessions in its archive."""
        memory = UserMemory.open(root / user)
        return len(memory.facts(include_superseded=True)), {s.session_id for s in memory.sessions()}

    with tempfile.TemporaryDirectory(prefix="uac-load-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        print(f"building {args.users} projects ...", file=sys.stderr)
        tokens = build_root(root, args.users, args.sessions)
        base_line = baseline(root, args.users, min(args.search_requests, 100), min(args.repl_requests, 20))
        port = _free_port()
        proc = start_server(root, port)
        base = f"http://127.0.0.1:{port}"
        results = []
        try:
            wait_ready(base, proc)
            client = httpx.Client(base_url=base, timeout=60, limits=httpx.Limits(max_connections=args.concurrency * 2))
            users = sorted(tokens)
            deadline = time.monotonic() + args.deadline
            rng = random.Random(11)

            def headers(user: str) -> dict[str, str]:
                return {"Authorization": f"Bearer {tokens[user]}"}

            # warm each project once (index open, BM25 build)
            for user in users:
                client.post(f"/v1/projects/{user}/search", json={"query": "warm up"}, headers=headers(user))

            # 1. concurrent writers
            before = {u: logged(u)[0] for u in users}
            reported = {u: 0 for u in users}
            sent: dict[str, list[str]] = {u: [] for u in users}
            tally = threading.Lock()

            def writer(i: int):
                user = users[i % len(users)]
                session = _session(users.index(user), 1000 + i, i)
                sent[user].append(session["session_id"])

                def call():
                    r = client.post(f"/v1/projects/{user}/sessions", json={"session": session}, headers=headers(user))
                    if r.status_code != 200:
                        return False, f"{r.status_code} {r.text[:200]}"
                    with tally:
                        reported[user] += r.json()["facts_appended"]
                    return True, ""

                return call

            results.append(drive("add-session", [writer(i) for i in range(args.writes)], args.concurrency, deadline))
            lost = []
            for user in users:
                facts, archived = logged(user)
                if facts != before[user] + reported[user]:
                    lost.append(f"{user}: {facts} facts, expected {before[user] + reported[user]}")
                missing = [s for s in sent[user] if s not in archived]
                if missing:
                    lost.append(f"{user}: sessions missing from the archive: {missing[:3]}")

            # 2. search
            def searcher():
                user, query = rng.choice(users), rng.choice(QUERIES)

                def call():
                    r = client.post(f"/v1/projects/{user}/search", json={"query": query, "k": 10}, headers=headers(user))
                    return (r.status_code == 200 and bool(r.json()["results"])), f"{r.status_code} {r.text[:200]}"

                return call

            results.append(drive("search", [searcher() for _ in range(args.search_requests)], args.concurrency, deadline))

            # 3. repl
            def runner():
                user = rng.choice(users)

                def call():
                    r = client.post(f"/v1/projects/{user}/repl", json={"code": REPL_CODE}, headers=headers(user))
                    ok = r.status_code == 200 and r.json()["ok"] and r.json()["result"]["n"] == 30
                    return ok, f"{r.status_code} {r.text[:200]}"

                return call

            results.append(drive("repl", [runner() for _ in range(args.repl_requests)], args.concurrency, deadline))
            client.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()

    cores = os.cpu_count()
    print(f"\nHTTP load test on loopback ({args.users} users, {cores} cores)")
    print(f"{'phase':<12} {'requests':>8} {'conc':>5} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for r in results:
        print(f"{r['name']:<12} {r['requests']:>8} {r['concurrency']:>5} {r['throughput_rps']:>8} "
              f"{r['p50_ms']:>8} {r['p99_ms']:>8} {r['errors']:>6}")
    by_name = {r["name"]: r for r in results}
    print(f"\nbaseline in-process, sequential: search p50 {base_line['search_p50_ms']} ms "
          f"({base_line['search_seq_rps']} req/s), repl p50 {base_line['repl_p50_ms']} ms ({base_line['repl_seq_rps']} req/s)")
    ratios = {
        "search_throughput_vs_sequential": round(by_name["search"]["throughput_rps"] / base_line["search_seq_rps"], 2),
        "search_p50_vs_in_process": round(by_name["search"]["p50_ms"] / base_line["search_p50_ms"], 2),
        "repl_throughput_vs_sequential": round(by_name["repl"]["throughput_rps"] / base_line["repl_seq_rps"], 2),
        "repl_p50_vs_in_process": round(by_name["repl"]["p50_ms"] / base_line["repl_p50_ms"], 2),
    }
    for key, value in ratios.items():
        print(f"  {key}: {value}x")
    print("facts lost after concurrent writes: " + ("none" if not lost else "; ".join(lost)))
    errors = sum(r["errors"] for r in results)
    print("errors: " + str(errors))
    for r in results:
        for example in r["error_examples"]:
            print(f"  {r['name']}: {example}")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "baseline": base_line, "ratios": ratios,
                                         "lost": lost, "cores": cores, "args": {k: str(v) for k, v in vars(args).items()}},
                                        indent=2) + "\n")
    raise typer.Exit(1 if errors or lost else 0)


if __name__ == "__main__":
    app()
