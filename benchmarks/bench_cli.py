"""Cold start of the ``uac`` command line: every command as a whole new process.

    .venv/bin/python benchmarks/bench_cli.py [--runs 5] [--facts 100000] [--skip-large]
        [--out DIR] [--rebuild] [--check]

For the demo project (what ``make demo`` builds) and for a generated project of
``--facts`` facts, it runs ``uac search``, ``uac ask`` (no model configured:
the ranked evidence), ``uac ingest`` of a one-session file, ``uac repl -c``,
``uac show`` and ``uac doctor`` as separate processes, several times each,
and reports the median wall time, the median CPU time and the peak resident
memory of each, next to ``python -c pass`` and ``uac --version`` measured in
the same run (the floor any Python command line pays).

The large project is generated through the library's own writers (the
archive, the fact log with its commit records, the index channels), with
real model vectors: the distinct phrases the fact texts are built from are
embedded once and every fact gets its phrase's vector plus a little noise.
It is built once and kept under ``build/bench-cli/`` (``--rebuild`` makes it
again); each run works on a fresh copy, so the one-session ingests do not
accumulate in it.

One untimed run of each command comes first (it writes Python's bytecode
caches and warms the page cache, as any second use of the tool would); the
timed runs are cold in every other sense: a new interpreter, nothing of uac
imported, no index in memory.  Targets are reported as PASS/FAIL; with
``--check`` a FAIL makes the exit status non-zero.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Optional

import typer

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: bump when the generated project changes shape
LARGE_FORMAT = 1
FACTS_PER_SESSION = 50
TURNS_PER_SESSION = 25

NAMES = [
    "Maya",
    "Leo",
    "Priya",
    "Tomas",
    "Aiko",
    "Dmitri",
    "Fatima",
    "Jonas",
    "Lucia",
    "Kwame",
    "Ingrid",
    "Rafael",
    "Mei",
    "Oskar",
    "Nadia",
    "Samir",
    "Elena",
    "Hugo",
    "Zara",
    "Finn",
]
ACTIVITIES = [
    "went hiking",
    "took a pottery class",
    "ran a half marathon",
    "visited the dentist",
    "adopted a puppy",
    "started learning Portuguese",
    "fixed the bike",
    "baked sourdough bread",
    "watched a jazz concert",
    "planted tomatoes",
    "painted the kitchen",
    "read a novel about sailors",
    "bought a used car",
    "went to a wedding",
    "had a job interview",
    "moved into a new flat",
    "flew to see family",
    "tried a vegan restaurant",
    "signed up for yoga",
    "lost a wallet",
    "joined a chess club",
    "went camping by the lake",
    "booked a trip to Japan",
    "cooked a Thai curry",
    "got a promotion",
    "volunteered at the shelter",
    "repaired the roof",
    "celebrated a birthday",
    "went skiing",
    "started a podcast",
]
PLACES = [
    "in Lisbon",
    "near the river",
    "in Berlin",
    "at the community centre",
    "downtown",
    "in the mountains",
    "at home",
    "in Kyoto",
    "at the old harbour",
    "in Toronto",
    "with colleagues",
    "at the university",
    "in Marrakesh",
    "by the sea",
    "in the park",
    "in Oslo",
    "at the market",
    "in a small village",
    "in Buenos Aires",
    "at the gym",
]
DEMO_QUERY = "trip to Lisbon"
DEMO_QUESTION = "Where did Maya travel in 2024?"
LARGE_QUERY = "Who went camping by the lake in Oslo?"
LARGE_QUESTION = "When did Priya start learning Portuguese?"
DEMO_CODE = "result = len([t for t in trips if t.start_date.year == 2024])"
LARGE_CODE = "result = sum(range(10))"

TARGETS = {"search": {"demo": 1.0, "large": 1.5}}
OTHER_LIMIT = 2.0
INGEST_STARTUP_LIMIT = 1.5
SEARCH_MEMORY_MB = 300


# -- the generated project ------------------------------------------------------------


def _phrase(rng: random.Random) -> tuple[str, str]:
    return rng.choice(ACTIVITIES), rng.choice(PLACES)


def build_large_project(target: Path, n_facts: int, *, seed: int = 7) -> dict:
    """A project of ``n_facts`` facts in sessions of 50 facts over 25 turns, written
    through uac's own archive, fact log and index writers."""
    import numpy as np

    from uac.dates import MONTH_NAMES
    from uac.facts.log import FactLog
    from uac.facts.model import Fact
    from uac.index.embeddings import get_embedder
    from uac.index.store import MemoryIndex
    from uac.index.texts import session_entries
    from uac.project import Project
    from uac.sessions.archive import Archive
    from uac.sessions.model import Session, Turn

    started = time.perf_counter()
    rng = random.Random(seed)
    project = Project.create(target, user_name="Bench")
    embedder = get_embedder()
    phrases = [f"{a} {p}" for a in ACTIVITIES for p in PLACES]
    phrase_vectors = dict(zip(phrases, embedder.encode(phrases)))
    noise = np.random.default_rng(seed)
    archive = Archive(project.paths.sessions)
    log = FactLog(project.paths.facts)
    index = MemoryIndex(project.paths.internal, project.config.index, root=project.root)
    batch = index.max_batch()
    sessions = max(1, n_facts // FACTS_PER_SESSION)
    day = dt.date(2019, 1, 1)
    pending: list = []

    def flush() -> None:
        fact_entries, fact_vectors, chunk_entries, chunk_vectors = [], [], [], []
        for session, facts, vectors in pending:
            fe, fv, ce, cv = session_entries(session, facts, embedder, fact_vectors=vectors)
            fact_entries += fe
            fact_vectors.append(fv)
            chunk_entries += ce
            chunk_vectors.append(cv)
        index.channel("facts").add(fact_entries, np.concatenate(fact_vectors), max_batch=batch)
        index.channel("archive").add(chunk_entries, np.concatenate(chunk_vectors), max_batch=batch)
        pending.clear()

    with project.lock("bench: generate"):
        for number in range(1, sessions + 1):
            day += dt.timedelta(days=rng.choice((1, 1, 2, 3)))
            a, b = rng.sample(NAMES, 2)
            session_id = f"bench-s{number:05d}"
            turns, facts, vectors = [], [], []
            for t in range(1, TURNS_PER_SESSION + 1):
                speaker = a if t % 2 else b
                said = []
                for _ in range(FACTS_PER_SESSION // TURNS_PER_SESSION):
                    activity, place = _phrase(rng)
                    month = rng.choice(MONTH_NAMES)
                    text = f"{speaker} {activity} {place} in {month} {day.year}."
                    said.append(text)
                    turn_id = f"D{number}:{t}"
                    facts.append(
                        Fact(
                            id=f"{session_id}-f{len(facts) + 1}",
                            text=text,
                            session_id=session_id,
                            session_date=day,
                            evidence=(turn_id,),
                            speaker=speaker,
                            valid_from=day,
                        )
                    )
                    vector = phrase_vectors[f"{activity} {place}"] + noise.normal(0, 0.02, embedder.dim)
                    vectors.append(vector / np.linalg.norm(vector))
                turns.append(Turn(f"D{number}:{t}", speaker, " ".join(s.split(" ", 1)[1] for s in said)))
            session = Session(session_id, day, day.isoformat(), tuple(turns), source="messages")
            archive.write(session)
            log.append_session(session_id, facts, session_hash=session.content_hash(), extractor="bench")
            pending.append((session, facts, np.array(vectors, dtype=np.float32)))
            if len(pending) >= 100:
                flush()
        if pending:
            flush()
        index.write_manifest()
    index.close()
    return {
        "facts": sessions * FACTS_PER_SESSION,
        "sessions": sessions,
        "seconds": round(time.perf_counter() - started, 1),
    }


def index_settings() -> dict:
    """What the indexes of this uac are built with: a cached project built with
    other settings would be indexed again (every fact embedded) by its first
    command, so it is generated again instead."""
    from uac.index.manifest import IndexManifest

    return IndexManifest.expected()


def _marker_settings(marker: Path) -> dict | None:
    try:
        return json.loads(marker.read_text("utf-8")).get("settings")
    except (OSError, ValueError, AttributeError):
        return None


def large_project(cache: Path, n_facts: int, rebuild: bool) -> Path:
    target = cache / f"large-{n_facts}-v{LARGE_FORMAT}"
    marker = target / ".uac" / "bench-complete.json"
    if rebuild and target.exists():
        shutil.rmtree(target)
    if not marker.exists() or _marker_settings(marker) != index_settings():
        if target.exists():
            shutil.rmtree(target)
        print(f"generating a {n_facts:,}-fact project under {target} (once) ...", file=sys.stderr, flush=True)
        info = build_large_project(target, n_facts)
        settle(target)
        marker.write_text(json.dumps({**info, "settings": index_settings()}) + "\n", "utf-8")
        print(f"  done: {info}", file=sys.stderr, flush=True)
    return target


def settle(project: Path) -> None:
    """One search in the cached project itself, so that what any first command
    builds and saves (the BM25 files, the corpus and fact tables) is in the copies."""
    uac = [sys.executable, "-m", "uac"]
    subprocess.run(
        uac + ["search", str(project), "settle", "--json"],
        env=child_env(),
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=REPO,
    )


def demo_project(cache: Path, rebuild: bool) -> Path:
    target = cache / "demo"
    marker = cache / "demo-complete"
    if rebuild or not marker.exists():
        shutil.rmtree(target, ignore_errors=True)
        marker.unlink(missing_ok=True)
        print(f"building the demo project under {target} ...", file=sys.stderr, flush=True)
        subprocess.run(
            [sys.executable, "-m", "uac.demo", str(target)],
            env=child_env(),
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=REPO,
        )
        marker.write_text("ok\n")
    return target


def one_session_file(directory: Path, number: int) -> Path:
    """A small chat file of one session that no project has seen yet."""
    path = directory / f"one-session-{number}.json"
    messages = {
        "date": f"2025-03-{1 + number % 28:02d}",
        "messages": [
            {"role": "user", "name": "Maya", "content": f"I booked a ferry to the islands for the {number}th of June."},
            {"role": "user", "name": "Leo", "content": "Nice! Are you taking the bike?"},
            {
                "role": "user",
                "name": "Maya",
                "content": f"Yes, and I want to visit the lighthouse museum number {number}.",
            },
        ],
    }
    path.write_text(json.dumps(messages), "utf-8")
    return path


# -- measuring ------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UAC_LLM", "OPENAI_"))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's Python keeps its bytecode caches
    env.update(HF_HUB_OFFLINE="1", ANONYMIZED_TELEMETRY="False", UAC_HOME=str(REPO / "user_projects"))
    return env


#: Runs one command from a small process and reports its wall time and rusage.  A
#: child forked straight from this benchmark would start as a copy of it (hundreds
#: of MB once the large project was generated), and Linux counts that copy in the
#: child's peak RSS even after exec; forking from a fresh small interpreter does not.
_LAUNCHER = """
import json, os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
with open(out, "w") as f:
    json.dump([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)], f)
"""


def run_once(argv: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in MB, exit code) of one process."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "usage.json"
        proc = subprocess.run(
            [sys.executable, "-c", _LAUNCHER, str(out), *argv],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=child_env(),
            cwd=REPO,
        )
        if not out.exists():
            raise SystemExit(f"could not run {' '.join(argv)}:\n{proc.stderr.decode('utf-8', 'replace')}")
        wall, cpu, peak, code = json.loads(out.read_text())
    if code != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({code}):\n{proc.stderr.decode('utf-8', 'replace')}")
    return wall, cpu, peak, code


def measure(argv_for_run, runs: int) -> dict:
    run_once(argv_for_run(0))  # bytecode caches, page cache
    walls, cpus, peaks = [], [], []
    for number in range(1, runs + 1):
        wall, cpu, peak, _ = run_once(argv_for_run(number))
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    return {
        "wall_s": statistics.median(walls),
        "cpu_s": statistics.median(cpus),
        "peak_mb": max(peaks),
        "walls": [round(w, 3) for w in walls],
    }


def commands(project: Path, workdir: Path, kind: str) -> dict:
    uac = (
        [sys.executable, "-m", "uac"]
        if not (REPO / ".venv" / "bin" / "uac").exists()
        else [str(REPO / ".venv" / "bin" / "uac")]
    )
    query, question, code = (
        (DEMO_QUERY, DEMO_QUESTION, DEMO_CODE) if kind == "demo" else (LARGE_QUERY, LARGE_QUESTION, LARGE_CODE)
    )
    p = str(project)
    return {
        "search": lambda n: uac + ["search", p, query, "--json"],
        "ask": lambda n: uac + ["ask", p, question, "--json"],
        "ingest": lambda n: (
            uac
            + [
                "ingest",
                p,
                str(one_session_file(workdir, n + (1000 if kind == "large" else 0))),
                "--format",
                "messages",
                "--json",
            ]
        ),
        "repl": lambda n: uac + ["repl", p, "-c", code, "--json"],
        "show": lambda n: uac + ["show", p],
        "doctor": lambda n: uac + ["doctor", p, "--json"],
    }, uac


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(help=__doc__.split("\n\n")[0])
def main(
    runs: int = typer.Option(5, "--runs", min=1, help="timed runs per command (median)"),
    facts: int = typer.Option(100_000, "--facts", min=1, help="facts in the large project"),
    skip_large: bool = typer.Option(False, "--skip-large", help="measure the demo project only"),
    cache_dir: str = typer.Option(
        str(REPO / "build" / "bench-cli"), "--cache", help="where generated projects are kept"
    ),
    rebuild: bool = typer.Option(False, "--rebuild", help="generate the projects again"),
    out: Optional[str] = typer.Option(None, "--out", help="directory for results.json"),
    check: bool = typer.Option(False, "--check", help="exit non-zero if a target fails"),
) -> None:
    args = SimpleNamespace(
        runs=runs, facts=facts, skip_large=skip_large, cache=cache_dir, rebuild=rebuild, out=out, check=check
    )
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    projects = {"demo": demo_project(cache, args.rebuild)}
    if not args.skip_large:
        projects["large"] = large_project(cache, args.facts, args.rebuild)

    results: dict = {
        "runs": args.runs,
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_before": os.getloadavg()[0],
        "baseline": {},
        "projects": {},
    }
    with tempfile.TemporaryDirectory(prefix="uac-bench-cli-") as tmp:
        workdir = Path(tmp)
        _, uac = commands(projects["demo"], workdir, "demo")
        results["baseline"]["python -c pass"] = measure(lambda n: [sys.executable, "-c", "pass"], args.runs)
        results["baseline"]["uac --version"] = measure(lambda n: uac + ["--version"], args.runs)
        for kind, source in projects.items():
            copy = workdir / kind
            print(f"copying the {kind} project ...", file=sys.stderr, flush=True)
            shutil.copytree(source, copy, symlinks=True)
            table, _ = commands(copy, workdir, kind)
            results["projects"][kind] = {}
            for name, argv_for_run in table.items():
                print(f"  {kind}: uac {name}", file=sys.stderr, flush=True)
                results["projects"][kind][name] = measure(argv_for_run, args.runs)
    results["load_after"] = os.getloadavg()[0]
    results["targets"] = evaluate(results)
    print_table(results)
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    failed = [name for name, t in results["targets"].items() if t["status"] == "FAIL"]
    raise typer.Exit(1 if (args.check and failed) else 0)


def evaluate(results: dict) -> dict:
    targets: dict = {}
    for kind, rows in results["projects"].items():
        label = "demo" if kind == "demo" else "100k" if kind == "large" else kind
        limit = TARGETS["search"][kind]
        targets[f"search <= {limit} s ({label})"] = _status(rows["search"]["wall_s"], limit)
        targets[f"search peak memory < {SEARCH_MEMORY_MB} MB ({label})"] = _status(
            rows["search"]["peak_mb"], SEARCH_MEMORY_MB
        )
        targets[f"ingest of one session (fixed start-up) <= {INGEST_STARTUP_LIMIT} s ({label})"] = _status(
            rows["ingest"]["wall_s"], INGEST_STARTUP_LIMIT
        )
        for name in ("ask", "repl", "show", "doctor"):
            targets[f"{name} <= {OTHER_LIMIT} s ({label})"] = _status(rows[name]["wall_s"], OTHER_LIMIT)
    return targets


def _status(value: float, limit: float) -> dict:
    return {"status": "PASS" if value <= limit else "FAIL", "value": round(value, 3), "limit": limit}


def print_table(results: dict) -> None:
    kinds = list(results["projects"])
    floor = results["baseline"]["python -c pass"]["wall_s"]
    header = f"{'command':<22}" + "".join(f"{k + ' wall':>12}{'cpu':>8}{'peak MB':>9}{'x pass':>8}" for k in kinds)
    print(
        f"load average before/after: {results['load_before']:.2f} / {results['load_after']:.2f} "
        f"({results['cpus']} CPUs); median of {results['runs']} runs"
    )
    print(header)
    for name, row in results["baseline"].items():
        cells = f"{row['wall_s']:>12.3f}{row['cpu_s']:>8.3f}{row['peak_mb']:>9.0f}{row['wall_s'] / floor:>8.1f}"
        print(f"{name:<22}{cells * len(kinds)}" if len(kinds) == 1 else f"{name:<22}{cells}{'(same)':>37}")
    for name in results["projects"][kinds[0]]:
        line = f"{'uac ' + name:<22}"
        for kind in kinds:
            row = results["projects"][kind][name]
            line += f"{row['wall_s']:>12.3f}{row['cpu_s']:>8.3f}{row['peak_mb']:>9.0f}{row['wall_s'] / floor:>8.1f}"
        print(line)
    for name, t in results["targets"].items():
        print(f"[{t['status']}] {name}: {t['value']}")


if __name__ == "__main__":
    app()
