"""Load test of the HTTP API on loopback: throughput and latency under concurrency.

    python benchmarks/bench_http_load.py [--users 4] [--concurrency 8] [--search-requests 400]
        [--repl-requests 80] [--writes 40] [--quiet-requests 120] [--noisy-writers 60]
        [--noisy-repl 4] [--deadline 240] [--json OUT.json]

Builds a temporary root with ``--users`` projects (sessions and typed records
written here), starts ``uac serve http`` in a subprocess on a free loopback
port, and drives it from a thread pool:

1. concurrent ``POST .../sessions`` (several writers per project), then checks
   that no fact was lost: every session is in its project's log and the log's
   fact count equals the sum the responses reported;
2. ``POST .../search`` across users (the ``search --json`` shape);
3. ``POST .../repl`` across users (a fresh sandbox worker per request);
4. a noisy neighbour: a quiet tenant reads its project (manifest, facts,
   search, a small ``repl``) at concurrency 2, first alone, then while another
   tenant hammers its own project -- whose lock another process holds -- with
   ``--noisy-writers`` deletes in flight at all times and ``--noisy-repl``
   heavy sandbox runs; it reports the quiet tenant's latency both ways (the
   target: p99 with the neighbour within 2x of p99 alone) and what the noisy
   tenant got back (423 ``project_locked``, 503 ``server_busy``, 200).

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

from _common import free_port, offline_env, percentile, start_server, stop_server, wait_ready  # noqa: E402

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
QUERIES = [
    "dog walk",
    "what did I cook",
    "flight to Lisbon",
    "cello practice",
    "running in the park",
    "novel I read",
    "team meeting",
    "what did I plant",
]
REPL_CODE = "result = {'n': len(trips), 'total': sum(t.cost for t in trips), 'cities': sorted({t.city for t in trips})}"
HEAVY_REPL = "big = [i * i for i in range(2_000_000)]\nresult = len(big) + sum(big[:10])"


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


def create_token(project: Path) -> str:
    """A bearer token for ``project``, made as an operator makes one: ``uac token create``."""
    done = subprocess.run(
        [sys.executable, "-m", "uac", "token", "create", str(project), "--name", "load test", "--json"],
        cwd=REPO,
        env=offline_env(),
        capture_output=True,
        text=True,
        check=True,
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
        memory.ingest(path, compile=False)
        trips = [
            {"city": c, "date": f"2024-{1 + i % 12:02d}-10", "cost": 50 + 10 * i}
            for i, c in enumerate(["Lisbon", "Rome", "Oslo", "Kyoto", "Lima", "Cairo"] * 5)
        ]
        records = root.parent / f"{name}-trips.json"
        records.write_text(json.dumps(trips))
        memory.import_records(records, domain="travel", collection="trips")
        memory.close()
        tokens[name] = create_token(root / name)
    return tokens


def drive(name: str, calls: list, concurrency: int, deadline: float, kinds: list[str] | None = None) -> dict:
    """Run ``calls`` (each returns True on success) from ``concurrency`` threads.

    ``kinds`` (one label per call) adds p50/p99 per kind of request.
    """
    latencies: list[float] = []
    by_kind: dict[str, list[float]] = {}
    errors: list[str] = []

    def one(index: int) -> None:
        call = calls[index]
        if time.monotonic() > deadline:
            errors.append("deadline passed before the request was sent")
            return
        started = time.perf_counter()
        try:
            ok, detail = call()
        except Exception as exc:  # a failed request is counted and reported, not raised
            ok, detail = False, repr(exc)
        latency = time.perf_counter() - started
        latencies.append(latency)
        if kinds is not None:
            by_kind.setdefault(kinds[index], []).append(latency)
        if not ok:
            errors.append(detail)

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(len(calls))))
    wall = time.perf_counter() - started
    per_kind = {
        kind: {
            "n": len(values),
            "p50_ms": round(1000 * percentile(values, 0.50), 1),
            "p99_ms": round(1000 * percentile(values, 0.99), 1),
        }
        for kind, values in sorted(by_kind.items())
    }
    return {
        "name": name,
        "requests": len(calls),
        "concurrency": concurrency,
        "seconds": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 1) if wall else 0.0,
        "p50_ms": round(1000 * percentile(latencies, 0.50), 1) if latencies else None,
        "p99_ms": round(1000 * percentile(latencies, 0.99), 1) if latencies else None,
        "errors": len(errors),
        "error_examples": errors[:3],
        **({"by_kind": per_kind} if per_kind else {}),
    }


def noisy_neighbour(base: str, root: Path, tokens: dict[str, str], args: SimpleNamespace, deadline: float) -> dict:
    """The quiet tenant's latency alone and next to a tenant that hammers its locked project."""
    import httpx

    from uac import UserMemory

    users = sorted(tokens)
    noisy, quiet = users[0], users[1]
    quiet_headers = {"Authorization": f"Bearer {tokens[quiet]}"}
    noisy_headers = {"Authorization": f"Bearer {tokens[noisy]}"}
    client = httpx.Client(base_url=base, timeout=120, limits=httpx.Limits(max_connections=8))

    kinds = {
        "manifest": lambda: client.get(f"/v1/projects/{quiet}/manifest", headers=quiet_headers),
        "facts": lambda: client.get(f"/v1/projects/{quiet}/facts", headers=quiet_headers),
        "search": lambda: client.post(
            f"/v1/projects/{quiet}/search", json={"query": "dog walk", "k": 5}, headers=quiet_headers
        ),
        "repl": lambda: client.post(f"/v1/projects/{quiet}/repl", json={"code": REPL_CODE}, headers=quiet_headers),
    }
    labels = [list(kinds)[n % len(kinds)] for n in range(args.quiet_requests)]

    def quiet_calls() -> list:

        def wrap(send):
            def call():
                r = send()
                return r.status_code == 200, f"{r.status_code} {r.text[:200]}"

            return call

        return [wrap(kinds[label]) for label in labels]

    for call in quiet_calls()[:4]:  # warm every kind once
        call()
    alone = drive("quiet tenant alone", quiet_calls(), 2, deadline, labels)

    stop = threading.Event()
    locked = threading.Event()
    release = threading.Event()
    outcomes: dict[str, int] = {}
    tally = threading.Lock()
    noise = httpx.Client(
        base_url=base, timeout=120, limits=httpx.Limits(max_connections=args.noisy_writers + args.noisy_repl + 4)
    )

    def hold_lock() -> None:
        # another process (this one: the server runs in its own) holds the noisy project's lock
        with UserMemory.open(root / noisy).project.lock("bench: a long write elsewhere", timeout=30):
            locked.set()
            release.wait()

    def count(response) -> None:
        key = str(response.status_code)
        if response.status_code != 200:
            key += " " + response.json()["error"]["code"]
        with tally:
            outcomes[key] = outcomes.get(key, 0) + 1

    def writer(n: int) -> None:
        while not stop.is_set():
            count(noise.delete(f"/v1/projects/{noisy}/facts/f-{n}", headers=noisy_headers))

    def heavy() -> None:
        while not stop.is_set():
            count(noise.post(f"/v1/projects/{noisy}/repl", json={"code": HEAVY_REPL}, headers=noisy_headers))

    threads = [threading.Thread(target=hold_lock, daemon=True)]
    threads[0].start()
    locked.wait(30)
    threads += [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(args.noisy_writers)]
    threads += [threading.Thread(target=heavy, daemon=True) for _ in range(args.noisy_repl)]
    for thread in threads[1:]:
        thread.start()
    time.sleep(2.0)  # let the noise build up
    loaded = drive("quiet tenant with a noisy neighbour", quiet_calls(), 2, deadline, labels)
    stop.set()  # the noisy tenant sends nothing more; its requests in flight are answered
    for thread in threads[1:]:
        thread.join(timeout=150)
    release.set()  # then the lock is released
    threads[0].join(timeout=30)
    client.close()
    noise.close()
    ratio = round(loaded["p99_ms"] / alone["p99_ms"], 2) if alone["p99_ms"] and loaded["p99_ms"] else None
    return {
        "alone": alone,
        "with_neighbour": loaded,
        "p99_ratio": ratio,
        "p50_ratio": round(loaded["p50_ms"] / alone["p50_ms"], 2) if alone["p50_ms"] and loaded["p50_ms"] else None,
        "noisy_outcomes": dict(sorted(outcomes.items())),
        "noisy_writers": args.noisy_writers,
        "noisy_repl": args.noisy_repl,
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
    users: int = typer.Option(
        4, "--users", min=2, help="projects (at least 2: the noisy-neighbour scenario needs two tenants)"
    ),
    sessions: int = typer.Option(12, "--sessions", help="sessions per user before the test"),
    concurrency: int = typer.Option(8, "--concurrency"),
    search_requests: int = typer.Option(400, "--search-requests"),
    repl_requests: int = typer.Option(80, "--repl-requests"),
    writes: int = typer.Option(40, "--writes", help="concurrent add-session calls"),
    quiet_requests: int = typer.Option(120, "--quiet-requests", help="requests of the quiet tenant, each way"),
    noisy_writers: int = typer.Option(60, "--noisy-writers", help="deletes the noisy tenant keeps in flight"),
    noisy_repl: int = typer.Option(4, "--noisy-repl", help="heavy sandbox runs the noisy tenant keeps in flight"),
    only_noisy: bool = typer.Option(False, "--only-noisy", help="run only the noisy-neighbour scenario"),
    deadline_seconds: float = typer.Option(240.0, "--deadline", help="seconds for the whole load phase"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="write the results here"),
) -> None:
    args = SimpleNamespace(
        users=users,
        sessions=sessions,
        concurrency=concurrency,
        search_requests=search_requests,
        repl_requests=repl_requests,
        writes=writes,
        quiet_requests=quiet_requests,
        noisy_writers=noisy_writers,
        noisy_repl=noisy_repl,
        only_noisy=only_noisy,
        deadline=deadline_seconds,
        json=json_out,
    )
    import httpx

    with tempfile.TemporaryDirectory(prefix="uac-load-") as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        print(f"building {args.users} projects ...", file=sys.stderr)
        tokens = build_root(root, args.users, args.sessions)
        base_line = (
            None
            if args.only_noisy
            else baseline(root, args.users, min(args.search_requests, 100), min(args.repl_requests, 20))
        )
        port = free_port()
        proc = start_server(root, port, offline_env(), stdout=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        results: list[dict] = []
        lost: list[str] = []
        try:
            wait_ready(base, proc)
            deadline = time.monotonic() + args.deadline
            client = httpx.Client(base_url=base, timeout=60, limits=httpx.Limits(max_connections=args.concurrency * 2))
            # warm each project once (index open, BM25 build)
            for user, token in sorted(tokens.items()):
                client.post(
                    f"/v1/projects/{user}/search",
                    json={"query": "warm up"},
                    headers={"Authorization": f"Bearer {token}"},
                )
            if not args.only_noisy:
                lost = load_phases(client, root, tokens, args, deadline, results)
            client.close()
            neighbour = noisy_neighbour(base, root, tokens, args, time.monotonic() + args.deadline)
        finally:
            stop_server(proc, 15)
    raise typer.Exit(report(args, results, base_line, lost, neighbour))


def load_phases(
    client, root: Path, tokens: dict[str, str], args: SimpleNamespace, deadline: float, results: list[dict]
) -> list[str]:
    """Phases 1-3: concurrent writers (then the check that nothing was lost), search, repl."""
    from uac import UserMemory

    users = sorted(tokens)

    def logged(user: str) -> tuple[int, set[str]]:
        """The facts in the user's log (superseded ones too) and the sessions in its archive."""
        memory = UserMemory.open(root / user)
        try:
            return len(memory.facts(include_superseded=True)), {s.session_id for s in memory.sessions()}
        finally:
            memory.close()

    rng = random.Random(11)

    def headers(user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {tokens[user]}"}

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
    return lost


def report(args: SimpleNamespace, results: list[dict], base_line: dict | None, lost: list[str], neighbour: dict) -> int:
    cores = os.cpu_count()
    ratios: dict[str, float] = {}
    print(f"\nHTTP load test on loopback ({args.users} users, {cores} cores)")
    if results:
        print(f"{'phase':<12} {'requests':>8} {'conc':>5} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
        for r in results:
            print(
                f"{r['name']:<12} {r['requests']:>8} {r['concurrency']:>5} {r['throughput_rps']:>8} "
                f"{r['p50_ms']:>8} {r['p99_ms']:>8} {r['errors']:>6}"
            )
        by_name = {r["name"]: r for r in results}
        assert base_line is not None
        print(
            f"\nbaseline in-process, sequential: search p50 {base_line['search_p50_ms']} ms "
            f"({base_line['search_seq_rps']} req/s), repl p50 {base_line['repl_p50_ms']} ms ({base_line['repl_seq_rps']} req/s)"
        )
        ratios = {
            "search_throughput_vs_sequential": round(
                by_name["search"]["throughput_rps"] / base_line["search_seq_rps"], 2
            ),
            "search_p50_vs_in_process": round(by_name["search"]["p50_ms"] / base_line["search_p50_ms"], 2),
            "repl_throughput_vs_sequential": round(by_name["repl"]["throughput_rps"] / base_line["repl_seq_rps"], 2),
            "repl_p50_vs_in_process": round(by_name["repl"]["p50_ms"] / base_line["repl_p50_ms"], 2),
        }
        for key, value in ratios.items():
            print(f"  {key}: {value}x")
        print("facts lost after concurrent writes: " + ("none" if not lost else "; ".join(lost)))
    alone, loaded = neighbour["alone"], neighbour["with_neighbour"]
    print(
        f"\nnoisy neighbour ({neighbour['noisy_writers']} deletes on a locked project and "
        f"{neighbour['noisy_repl']} heavy repl runs in flight)"
    )
    print(f"{'quiet tenant':<22} {'requests':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for label, r in (("alone", alone), ("with the neighbour", loaded)):
        print(f"{label:<22} {r['requests']:>8} {r['p50_ms']:>8} {r['p99_ms']:>8} {r['errors']:>6}")
    for kind in alone.get("by_kind", {}):
        a, b = alone["by_kind"][kind], loaded["by_kind"][kind]
        print(f"  {kind:<20} {a['n']:>8} {a['p50_ms']:>8} / {b['p50_ms']:<8} {a['p99_ms']:>8} / {b['p99_ms']}")
    print(f"  p99 with / alone: {neighbour['p99_ratio']}x (target: at most 2x); p50: {neighbour['p50_ratio']}x")
    print("  the noisy tenant got: " + ", ".join(f"{k}: {v}" for k, v in neighbour["noisy_outcomes"].items()))
    phases = results + [alone, loaded]
    errors = sum(r["errors"] for r in phases)
    print("errors: " + str(errors))
    for r in phases:
        for example in r["error_examples"]:
            print(f"  {r['name']}: {example}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "results": results,
                    "baseline": base_line,
                    "ratios": ratios,
                    "lost": lost,
                    "noisy_neighbour": neighbour,
                    "cores": cores,
                    "args": {k: str(v) for k, v in vars(args).items()},
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if errors or lost else 0


if __name__ == "__main__":
    app()
