"""Benchmark of the sandbox against plain in-process Python (10,000 records).

Run: ``.venv/bin/python benchmarks/bench_sandbox.py [--records N] [--check]``

Measured in one run:

* baseline  — the query as plain Python in this process over dataclass records;
* warm      — ``Session.run`` on a worker that already holds the state
              (host-side wall time: request, restricted compile, run, reply);
* cold      — ``sandbox.run``: start a worker (jail if available), send and
              rebuild the state, compile, run, reply, stop the worker;
* cold baseline — plain Python doing the same data work in process: parse the
              JSON state and rebuild the dataclass records, then run the query.

Targets: warm <= 3x baseline; cold <= 20x cold baseline and < 1 s.
Prints PASS/FAIL per target; exits non-zero on a FAIL only with ``--check``.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import sys
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

import typer

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import sandbox  # noqa: E402
from _common import median_time  # noqa: E402
from sandbox.codec import encode_state  # noqa: E402


@dataclass
class Trip:
    city: str
    country: str
    start: dt.date
    nights: int
    cost: float
    purpose: str
    tags: list


CITIES = [f"City{i:02d}" for i in range(50)]

QUERIES = {
    "count": "result = len([t for t in trips if t.cost > 100])",
    "group-by": "from collections import Counter\nresult = Counter(t.city for t in trips)",
}


def make_trips(n: int) -> list[Trip]:
    rng = random.Random(7)
    base = dt.date(2015, 1, 1)
    return [
        Trip(
            city=rng.choice(CITIES),
            country=f"C{rng.randrange(20)}",
            start=base + dt.timedelta(days=rng.randrange(3650)),
            nights=rng.randrange(1, 15),
            cost=round(rng.uniform(10, 500), 2),
            purpose=rng.choice(["work", "leisure", "family"]),
            tags=[rng.choice(["beach", "city", "ski", "food"]) for _ in range(rng.randrange(3))],
        )
        for _ in range(n)
    ]


def plain(code: str, trips: list[Trip]):
    compiled = compile(code, "<plain>", "exec")

    def go():
        namespace = {"trips": trips, "Counter": Counter}
        exec(compiled, namespace)
        return namespace["result"]

    return go


def plain_cold(code: str, state_text: str):
    compiled = compile(code, "<plain>", "exec")

    def go():
        payload = json.loads(state_text)
        fields = payload["types"]["Trip"]["fields"]
        rows = payload["domains"]["travel"]["trips"]["rows"]
        trips = []
        for row in rows:
            values = dict(zip(fields, row))
            values["start"] = dt.date.fromisoformat(values["start"]["$date"])
            trips.append(Trip(**values))
        namespace = {"trips": trips}
        exec(compiled, namespace)
        return namespace["result"]

    return go


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(help=__doc__.splitlines()[0])
def main(
    records: int = typer.Option(10_000, "--records"),
    repeat: int = typer.Option(30, "--repeat"),
    cold_repeat: int = typer.Option(7, "--cold-repeat"),
    check: bool = typer.Option(False, "--check", help="exit 1 if a target is missed"),
) -> None:
    args = SimpleNamespace(records=records, repeat=repeat, cold_repeat=cold_repeat, check=check)

    trips = make_trips(args.records)
    state = encode_state({"travel": {"trips": trips}})
    state_text = json.dumps(state)
    level = sandbox.detect_level()
    print(f"sandbox level: {level.level} (seccomp: {level.seccomp}); records: {args.records}; cpus: {os.cpu_count()}")

    rows = []
    ok_all = True
    with sandbox.Session(state) as session:
        for name, code in QUERIES.items():
            expected = plain(code, trips)()
            warm_check = session.run(code)
            assert warm_check.ok, warm_check.error
            assert json.loads(json.dumps(expected)) == warm_check.result, "sandbox result differs from plain Python"
            for _ in range(3):
                session.run(code)
            base = median_time(plain(code, trips), args.repeat)
            warm = median_time(lambda: session.run(code), args.repeat)
            cold_base = median_time(plain_cold(code, state_text), max(3, args.cold_repeat))
            cold = median_time(lambda: sandbox.run(code, state), args.cold_repeat)
            warm_ok = warm <= 3 * base
            cold_ok = cold <= 20 * cold_base and cold < 1.0
            ok_all = ok_all and warm_ok and cold_ok
            rows.append((name, base, warm, cold_base, cold, warm_ok, cold_ok))

    print()
    header = f"{'query':<9} {'baseline':>10} {'warm':>10} {'warm/base':>10} {'cold base':>10} {'cold':>10} {'cold/cbase':>11} {'cold/base':>10}  targets"
    print(header)
    print("-" * len(header))
    for name, base, warm, cold_base, cold, warm_ok, cold_ok in rows:
        print(
            f"{name:<9} {base * 1e3:>8.2f}ms {warm * 1e3:>8.2f}ms {warm / base:>9.2f}x "
            f"{cold_base * 1e3:>8.2f}ms {cold * 1e3:>8.1f}ms {cold / cold_base:>10.2f}x {cold / base:>9.1f}x  "
            f"warm<=3x {'PASS' if warm_ok else 'FAIL'}, cold<=20x&<1s {'PASS' if cold_ok else 'FAIL'}"
        )
    print()
    print("overall:", "PASS" if ok_all else "FAIL")
    if args.check and not ok_all:
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
