"""Typed-state loading and import at scale: 100,000 records.

    python benchmarks/bench_structure.py [--records 100000] [--repeat 3] [--json OUT.json]

Writes ``--records`` seeded, synthetic trip records (strings, an ISO date, an
int, a float, a bool, a list of strings, an optional string) to a JSON file
and measures, in the same run:

* baseline: ``json.load`` of that file (the raw records, no types);
* ``import``: ``UserMemory.import_records`` of the file (infer types, render
  schema.py/state.py, validate and load the new package, write the cache);
* ``warm load``: ``UserMemory.state``, the typed state from the JSON cache
  under ``.uac/`` (the sources are hashed to check the cache is current);
* ``cold load``: ``UserMemory.load_state(cache=False)``: validation
  (prechecks, libcst allowlist of schema.py) and the literal interpreter over
  state.py, the cache neither read nor written;
* ``reopen without cache``: ``UserMemory.state`` of a copy of the project
  made with ``UserMemory.export`` (which leaves ``.uac/`` out), including
  writing the cache (reported, no target).

The loader pauses the cyclic garbage collector while it builds objects in
bulk; for information the table also shows the ratios against ``json.load``
with the collector paused the same way.

Targets: warm <= 3x baseline, cold <= 15x baseline, import < 60 s.  Each
timing is the best of ``--repeat`` runs (import: one run).  Prints a table
with PASS/FAIL and exits 1 if a target is missed.
"""

from __future__ import annotations

import datetime as dt
import gc
import json
import random
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import typer

from _common import best_time  # noqa: E402

CITIES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul"]
PURPOSES = ["work", "leisure", "family", "conference"]


def make_records(n: int, seed: int = 7) -> list[dict]:
    rnd = random.Random(seed)
    start = dt.date(2019, 1, 1)
    records = []
    for i in range(n):
        record = {
            "city": rnd.choice(CITIES),
            "start": (start + dt.timedelta(days=rnd.randrange(2000))).isoformat(),
            "nights": rnd.randrange(1, 21),
            "cost": round(rnd.uniform(80, 6000), 2),
            "business": rnd.random() < 0.3,
            "companions": rnd.sample(["Ana", "Bo", "Chen", "Dee"], rnd.randrange(0, 3)),
        }
        if rnd.random() < 0.4:
            record["note"] = f"trip {i} booked online"
        records.append(record)
    return records


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(help=__doc__.split("\n\n")[0])
def main(
    records: int = typer.Option(100_000, "--records"),
    repeat: int = typer.Option(3, "--repeat"),
    json_out: Optional[Path] = typer.Option(None, "--json"),
) -> None:
    from uac import UserMemory

    args = SimpleNamespace(records=records, repeat=repeat, json_out=json_out)

    with tempfile.TemporaryDirectory(prefix="uac-bench-structure-") as tmp:
        root = Path(tmp)
        records = make_records(args.records)
        source = root / "trips.json"
        source.write_text(json.dumps(records), "utf-8")
        memory = UserMemory.create(root / "user", user_name="Bench")

        def baseline() -> None:
            with open(source, encoding="utf-8") as handle:
                json.load(handle)

        base = best_time(baseline, args.repeat)

        def baseline_gc_paused() -> None:
            gc.disable()
            try:
                baseline()
            finally:
                gc.enable()

        base_paused = best_time(baseline_gc_paused, args.repeat)
        started = time.perf_counter()
        report = memory.import_records(source, domain="travel", collection="trips")
        import_seconds = time.perf_counter() - started

        def warm() -> None:
            assert len(memory.state["travel"].trips) == args.records

        def cold() -> None:
            assert len(memory.load_state(cache=False)["travel"].trips) == args.records

        memory.export(root / "copy")  # the files without .uac/: no load cache
        copy = UserMemory.open(root / "copy")

        def reopen() -> None:
            assert len(copy.state["travel"].trips) == args.records

        warm_seconds = best_time(warm, args.repeat)
        cold_seconds = best_time(cold, args.repeat)
        reopen_seconds = best_time(reopen, 1)
        state_bytes = (memory.root / "domains" / "travel" / "state.py").stat().st_size
        rows = [
            ("json.load baseline", base, None, None, None),
            ("warm load (cache)", warm_seconds, warm_seconds / base, "<= 3x", warm_seconds / base <= 3),
            ("cold load (validate+interpret)", cold_seconds, cold_seconds / base, "<= 15x", cold_seconds / base <= 15),
            ("reopen without cache (+cache write)", reopen_seconds, reopen_seconds / base, "", None),
            (f"import {args.records:,} records", import_seconds, import_seconds / base, "< 60 s", import_seconds < 60),
        ]
        rows.append(("json.load, GC paused (info)", base_paused, None, None, None))
        rows.append(("  warm / GC-paused baseline", warm_seconds, warm_seconds / base_paused, "", None))
        rows.append(("  cold / GC-paused baseline", cold_seconds, cold_seconds / base_paused, "", None))
        print(f"bench_structure: {args.records:,} records, state.py {state_bytes / 1e6:.1f} MB, best of {args.repeat}")
        print(f"{'measure':34} {'seconds':>9} {'ratio':>8} {'target':>8}  result")
        for name, seconds, ratio, target, ok in rows:
            ratio_text = "" if ratio is None else f"{ratio:.2f}x"
            result = "" if ok is None else ("PASS" if ok else "FAIL")
            print(f"{name:34} {seconds:9.3f} {ratio_text:>8} {target or '':>8}  {result}")
        if args.json_out:
            Path(args.json_out).write_text(
                json.dumps(
                    {
                        "records": args.records,
                        "state_py_bytes": state_bytes,
                        "baseline_json_load_s": base,
                        "baseline_json_load_gc_paused_s": base_paused,
                        "warm_load_s": warm_seconds,
                        "cold_load_s": cold_seconds,
                        "reopen_without_cache_s": reopen_seconds,
                        "import_s": import_seconds,
                        "import_report": report.to_json(),
                    },
                    indent=2,
                )
            )
        if any(ok is False for *_, ok in rows):
            raise typer.Exit(1)


if __name__ == "__main__":
    app()
