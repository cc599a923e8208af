"""The cost of "are the indexes behind the log?" at 100,000 facts.

    python benchmarks/bench_index_catchup.py [--facts 100000] [--per-session 20] [--repeat 5] [--json OUT.json]

Builds a synthetic project: ``--facts`` facts in sessions of ``--per-session``
(a committed fact log, one archive file per session) and indexes that cover
them (the corpus files and the Chroma collections; the vectors are random
unit vectors so no model pass is needed to set up).  Then measures, in the
same run:

* baseline: reading and folding the fact log in a fresh process state
  (``FactLog.read`` without its cache) -- every search pays this already,
  because it needs the facts' validity;
* ``check (current)``: :func:`uac.index.catchup.coverage` when the indexes
  are in step -- what every search and ingest adds;
* ``ensure_current (current)``: the same through the function searches call;
* ``check (grown)``: the same after one more session was committed behind the
  indexes' back (it re-hashes the recorded prefix of the log once);
* ``catch-up (grown, 1 session)``: indexing that session (one model pass
  over one session; the model is loaded before timing);
* ``entry-by-entry comparison``: what the check replaces -- comparing the
  indexes with the log entry by entry (``index_problems``, as ``doctor``
  does: loads both corpora, reads every archive file, counts vectors);
* ``catch-up (unknown)``: the full reconciliation used when no log position
  is recorded (nothing missing; compares ids with the vector store too).

Each timing is the best of ``--repeat`` runs.  Target: the check when
current costs at most 5% of the baseline read of the log.  Prints a table
and exits 1 if the target is missed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import best_time  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

WORDS = "kayak river bread sourdough cello concert Porto Lisbon hiking dog cat garden painting trip visa museum".split()


def build(root: Path, facts: int, per_session: int, seed: int = 11) -> None:
    """Write the project's log, archive and indexes (random vectors) directly."""
    import numpy as np

    from uac.facts.log import encode_record, fact_record
    from uac.facts.model import Fact
    from uac.index.entry import Entry
    from uac.index.texts import chunk_ranges, chunk_text
    from uac.memory import UserMemory
    from uac.sessions.archive import Archive
    from uac.sessions.model import Session, Turn

    rnd = random.Random(seed)
    memory = UserMemory.create(root, user_name="Bench")
    archive = Archive(memory.project.paths.sessions)
    out = bytearray()
    fact_entries: list[Entry] = []
    chunk_entries: list[Entry] = []
    day0 = dt.date(2020, 1, 1)
    for number in range(facts // per_session):
        sid = f"s{number:06d}"
        day = day0 + dt.timedelta(days=number % 1500)
        turns = tuple(
            Turn(f"{sid}:{t}", "Maya" if t % 2 else "Theo", " ".join(rnd.choice(WORDS) for _ in range(12)) + ".")
            for t in range(1, per_session + 1)
        )
        session = Session(sid, day, day.isoformat(), turns, source="messages")
        archive.write(session)
        records = []
        for t, turn in enumerate(turns, 1):
            fact = Fact(
                id=f"{sid}-f{t}",
                text=f"{turn.speaker} said: {turn.text}",
                session_id=sid,
                session_date=day,
                evidence=(turn.turn_id,),
                speaker=turn.speaker,
                valid_from=day,
            )
            records.append(fact_record(fact))
            fact_entries.append(
                Entry(fact.id, fact.text, fact.text, sid, day.isoformat(), [turn.turn_id], fact.content_checksum())
            )
        records.append(
            {
                "kind": "commit",
                "session_id": sid,
                "facts": len(turns),
                "supersessions": 0,
                "session_hash": session.content_hash(),
                "extractor": "rules",
                "committed_at": "2024-01-01T00:00:00+00:00",
            }
        )
        for record in records:
            out += encode_record(record)
        for n, (start, end) in enumerate(chunk_ranges(len(turns), 3, 1), 1):
            text = chunk_text(session, start, end)
            chunk_entries.append(
                Entry(f"{sid}/c{n}", text, text, sid, day.isoformat(), [t.turn_id for t in turns[start:end]])
            )
    memory.project.paths.facts.write_bytes(bytes(out))
    index = memory.index
    rng = np.random.default_rng(seed)
    for name, entries in (("facts", fact_entries), ("archive", chunk_entries)):
        vectors = rng.standard_normal((len(entries), 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index.channel(name).add(entries, vectors, max_batch=index.max_batch())
    state = memory.context.read_log()
    index.write_manifest((state.good_bytes, state.digest))
    memory.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--per-session", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    from uac.facts import log as log_module
    from uac.index.catchup import catch_up, coverage, ensure_current
    from uac.index.embeddings import get_embedder
    from uac.index.maintain import index_problems
    from uac.memory import UserMemory
    from uac.sessions.archive import Archive

    with tempfile.TemporaryDirectory(prefix="uac-bench-catchup-") as tmp:
        root = Path(tmp) / "bench"
        started = time.perf_counter()
        build(root, args.facts, args.per_session)
        setup = time.perf_counter() - started
        memory = UserMemory.open(root)
        ctx = memory.context
        fact_log = ctx.fact_log()
        log_bytes = root.joinpath("memory", "facts.jsonl").stat().st_size

        def fresh_read():
            log_module._CACHE.clear()
            return fact_log.read()

        baseline = best_time(fresh_read, args.repeat)
        state = fact_log.read()
        index = ctx.index
        assert coverage(index, state, fact_log) == "current"
        results = {"baseline: read the log": baseline}
        results["check (current)"] = best_time(lambda: coverage(index, state, fact_log), args.repeat * 20)
        results["ensure_current (current)"] = best_time(lambda: ensure_current(ctx), args.repeat * 20)
        archive = Archive(memory.project.paths.sessions)
        results["entry-by-entry comparison"] = best_time(
            lambda: index_problems(index, state, archive), max(1, args.repeat // 2)
        )
        assert index_problems(index, state, archive) == []

        # one session committed behind the indexes' back
        from uac.facts.model import Fact
        from uac.sessions.model import Session, Turn

        get_embedder().encode(["warm up"])
        day = dt.date(2024, 6, 1)
        session = Session("late", day, day.isoformat(), (Turn("late:1", "Maya", "I bought a red kayak named Otter."),))
        archive.write(session)
        with memory.project.lock("bench"):
            fact_log.append_session(
                "late",
                [Fact("late-f1", "Maya bought a red kayak named Otter.", "late", day, ("late:1",), valid_from=day)],
                session_hash=session.content_hash(),
            )
        grown = fact_log.read()
        results["check (grown)"] = best_time(lambda: coverage(index, grown, fact_log), args.repeat)
        with memory.project.lock("bench"):
            started = time.perf_counter()
            report = catch_up(index, grown, archive, fact_log)
            results["catch-up (grown, 1 session)"] = time.perf_counter() - started
        assert report.status == "grown" and report.sessions_indexed == 1, report
        assert coverage(index, grown, fact_log) == "current"

        manifest = json.loads(index.manifest.path.read_text())
        del manifest["log"]
        index.manifest.path.write_text(json.dumps(manifest))
        with memory.project.lock("bench"):
            started = time.perf_counter()
            report = catch_up(index, grown, archive, fact_log)
            results["catch-up (unknown)"] = time.perf_counter() - started
        assert report.status == "unknown" and report.sessions_indexed == 0, report
        memory.close()

    ratio = results["check (current)"] / baseline
    print(
        f"{args.facts:,} facts in {args.facts // args.per_session:,} sessions; log {log_bytes / 1e6:.1f} MB; setup {setup:.1f} s"
    )
    print(f"{'measure':34} {'seconds':>12} {'x baseline':>11}")
    for name, seconds in results.items():
        print(f"{name:34} {seconds:12.6f} {seconds / baseline:11.4f}")
    target = ratio <= 0.05
    print(f"target: check (current) <= 5% of reading the log: {ratio:.4%} {'PASS' if target else 'FAIL'}")
    if args.json:
        args.json.write_text(
            json.dumps({"facts": args.facts, "log_bytes": log_bytes, "seconds": results, "ratio": ratio}, indent=2)
        )
    return 0 if target else 1


if __name__ == "__main__":
    sys.exit(main())
