"""Throughput of model calls: ingest and compile at concurrency 1, 4 and 8 against a slow endpoint.

    python benchmarks/bench_llm_throughput.py [--sessions 50] [--domains 8] [--latency 0.5]
        [--concurrency 1,4,8] [--default-sessions 12] [--default-latency 1.0] [--changes 0] [--json OUT.json]

A local OpenAI-compatible server (``tests/fixtures/fake_openai_server.py``) answers every request
after ``--latency`` seconds with the replies of the benchmark's rule model
(uac's rule model, ``uac.RuleModel``: one fact per turn; one record per fact).  For each
concurrency a fresh project ingests ``--sessions`` one-window sessions through
the real OpenAI client, then compiles their facts (spread evenly over
``--domains`` domains, a few batches each) in incremental mode.

For each run the table shows the model calls, the most requests the server
saw in flight, the wall time and the ideal (calls x latency / concurrency),
and their ratio.  Ingest is timed without indexing (the search indexes are
built after the model work and do not depend on the concurrency; their time
is shown apart).  Compile's routing call comes before the domains and is part
of its wall time.

Every run uses ingest's default ``[extract]`` settings (sessions side by
side, reconciled at each commit).  Then, with every setting at its default
(``[llm] concurrency`` included), ``--default-sessions`` one-window sessions
are ingested against an endpoint of ``--default-latency`` seconds and against
an instant one: the first may take at most 5 s longer, with at least 3 calls
in flight.

Targets: wall time within 1.3x of the ideal at concurrency 4 and 8, for
ingest and for compile; identical fact logs and domain files at every
concurrency; the defaults' row.  Exits 1 if a target is missed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import typer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.fixtures.fake_openai_server import FakeOpenAIServer, Quirks, text_handler  # noqa: E402
from uac import ChatRequest, LLMSettings, RuleModel, UserMemory, build_client  # noqa: E402

#: a fact line of uac's prompts: ``[id] (said D; happened D) speaker: text``
FACT_LINE = re.compile(r"^\[(?P<id>[^\]]+)\](?: \([^)]*\))?(?: (?P<speaker>[^:\n]{1,40}):)? (?P<text>.*)$", re.M)
MODEL = RuleModel()

#: topic -> (domain, a marker word that routes a fact there)
TOPICS = [
    ("travel", "trip"),
    ("food", "dinner"),
    ("work", "office"),
    ("health", "doctor"),
    ("music", "guitar"),
    ("garden", "tomatoes"),
    ("pets", "puppy"),
    ("money", "budget"),
]
PLACES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul"]
TARGET = 1.3
#: the defaults' row: at most this many seconds added by a slow endpoint, at least this many calls in flight
ADDED_TARGET = 5.0
PEAK_TARGET = 3

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


def conversation(sessions: int, domains: int, turns: int, changes: int = 0) -> dict[str, Any]:
    """A LoCoMo-format conversation: every session one window of ``turns`` turns; with
    ``changes``, every ``changes``-th session also says a plan of the session before was
    cancelled (a change of state: its commit makes a reconcile call)."""
    data: dict[str, Any] = {"speaker_a": "Maya", "speaker_b": "Theo"}
    for number in range(1, sessions + 1):
        day = 1 + (number - 1) % 28
        month = ["January", "February", "March", "April", "May", "June"][(number - 1) // 28 % 6]
        data[f"session_{number}_date_time"] = f"10:00 am on {day} {month}, 2023"
        lines = []
        for turn in range(1, turns + 1):
            _domain, word = TOPICS[(number * turns + turn) % domains]
            place = PLACES[(number + turn) % len(PLACES)]
            speaker = "Maya" if turn % 2 else "Theo"
            lines.append(
                {
                    "speaker": speaker,
                    "dia_id": f"D{number}:{turn}",
                    "text": f"Session {number}, note {turn}: the {word} in {place} went well for me.",
                }
            )
        if changes and number > 1 and number % changes == 0:
            _domain, word = TOPICS[((number - 1) * turns + 1) % domains]
            place = PLACES[(number - 1 + 1) % len(PLACES)]
            lines.append(
                {
                    "speaker": "Maya",
                    "dia_id": f"D{number}:{turns + 1}",
                    "text": f"Sadly I cancelled the next {word} in {place}, plans changed.",
                }
            )
        data[f"session_{number}"] = lines
    return {"sample_id": "throughput", "conversation": data, "qa": []}


def route_by_marker(prompt: str) -> dict[str, Any]:
    """Routes for the fact lines of the prompt's ``<facts>`` block."""
    routes = []
    section = prompt.split("\n<facts>\n", 1)[-1].split("\n</facts>", 1)[0]
    for match in FACT_LINE.finditer(section):
        text = match.group("text").lower()
        domain = next((name for name, word in TOPICS if f" {word} " in f" {text} "), "life")
        routes.append({"id": match.group("id"), "domain": domain})
    return {"routes": routes}


def responder(request: ChatRequest) -> str:
    """Routing by the marker words (the reply asked for by the schema ``routes``), else the rule model."""
    if request.json_schema is not None and request.schema_name == "routes":
        prompt = "\n".join(m.content or "" for m in request.messages)
        return json.dumps(route_by_marker(prompt))
    return MODEL.complete(request).content or ""


def endpoint(latency: float) -> FakeOpenAIServer:
    """The local endpoint: the responder's replies after ``latency`` seconds."""
    return FakeOpenAIServer(text_handler(responder), quirks=Quirks(latency=latency))


def digest(root: Path, *parts: str) -> str:
    """A hash of the files under ``root/part`` (sorted paths and contents)."""
    sha = hashlib.sha256()
    for part in parts:
        base = root / part
        files = (
            [base]
            if base.is_file()
            else sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        )
        for path in files:
            sha.update(str(path.relative_to(root)).encode())
            sha.update(path.read_bytes())
    return sha.hexdigest()[:16]


def run_once(server: FakeOpenAIServer, source: Path, root: Path, concurrency: int, latency: float) -> dict[str, Any]:
    settings = LLMSettings(
        provider="openai",
        model=server.model,
        base_url=server.base_url,
        api_key="none",
        max_retries=2,
        concurrency=concurrency,
    )
    client = build_client(settings)
    memory = UserMemory.create(root, user_name="Maya", llm=client)
    try:
        project = memory.project
        project.save_config(project.config.with_section("compile", batch_facts=5))
        server.peak = 0
        before = server.count()
        report = memory.ingest(source, extractor="llm", compile=False)
        ingest_calls = server.count() - before
        ingest_peak = server.peak
        ingest_seconds = report.timings["extract"] + report.timings["write"]
        server.peak = 0
        before = server.count()
        started = time.perf_counter()
        compiled = memory.compile(mode="incremental")
        compile_seconds = time.perf_counter() - started
        compile_calls = server.count() - before
        domains = [d.domain for d in compiled.domains if d.status == "compiled"]
        facts_log = (root / "memory" / "facts.jsonl").read_bytes().decode("utf-8")
        # commit lines carry the time of the commit (and a checksum over it): compare the rest;
        # the log's lines end at "\n" only (a fact's text may hold U+2028 and the like)
        rows = [json.loads(line) for line in facts_log.split("\n") if line.strip()]
        fact_rows = [
            {k: v for k, v in row.items() if row.get("kind") != "commit" or k not in ("committed_at", "checksum")}
            for row in rows
        ]
        return {
            "concurrency": concurrency,
            "sessions": len(report.sessions_added),
            "facts": report.facts_appended,
            "ingest": {
                "calls": ingest_calls,
                "peak_in_flight": ingest_peak,
                "seconds": round(ingest_seconds, 3),
                "index_seconds": round(report.timings["index"], 3),
                "reconcile_calls": (report.reconcile or {}).get("calls", 0),
                "ideal": round(ingest_calls * latency / concurrency, 3),
            },
            "compile": {
                "calls": compile_calls,
                "peak_in_flight": server.peak,
                "seconds": round(compile_seconds, 3),
                "ideal": round(compile_calls * latency / concurrency, 3),
                "domains": len(domains),
                "ok": compiled.ok,
            },
            "facts_hash": hashlib.sha256(json.dumps(fact_rows, sort_keys=True).encode()).hexdigest()[:16],
            "domains_hash": digest(root, "domains"),
        }
    finally:
        memory.close()


def ingest_with_defaults(server: FakeOpenAIServer, source: Path, root: Path) -> dict[str, Any]:
    """One ingest with every setting at its default: seconds (without indexing), calls, most in flight."""
    client = build_client(
        LLMSettings(provider="openai", model=server.model, base_url=server.base_url, api_key="none", max_retries=2)
    )
    memory = UserMemory.create(root, user_name="Maya", llm=client)
    try:
        server.peak = 0
        before = server.count()
        report = memory.ingest(source, extractor="llm", compile=False)
        return {
            "seconds": round(report.timings["extract"] + report.timings["write"], 3),
            "calls": server.count() - before,
            "peak_in_flight": server.peak,
            "sessions": len(report.sessions_added),
            "reconcile_calls": (report.reconcile or {}).get("calls", 0),
        }
    finally:
        memory.close()


def defaults_row(tmp: Path, sessions: int, latency: float, changes: int) -> dict[str, Any]:
    """``sessions`` one-window sessions with the default settings, against an instant and a slow endpoint."""
    source = tmp / "defaults.json"
    source.write_text(json.dumps(conversation(sessions, len(TOPICS), 4, changes)), "utf-8")
    with endpoint(0.0) as instant, endpoint(latency) as slow:
        fast = ingest_with_defaults(instant, source, tmp / "defaults-instant")
        timed = ingest_with_defaults(slow, source, tmp / "defaults-slow")
    added = round(timed["seconds"] - fast["seconds"], 3)
    return {
        "sessions": sessions,
        "latency": latency,
        "instant": fast,
        "slow": timed,
        "added_seconds": added,
        "ok": added <= ADDED_TARGET and timed["peak_in_flight"] >= PEAK_TARGET,
    }


@app.command(help=__doc__.split("\n\n")[0])
def main(
    sessions: int = typer.Option(50, "--sessions", help="sessions to ingest (one model call each)"),
    domains: int = typer.Option(8, "--domains", help="domains the facts spread over (at most 8)"),
    turns: int = typer.Option(4, "--turns", help="turns (and facts) per session"),
    latency: float = typer.Option(0.5, "--latency", help="seconds the endpoint takes per request"),
    concurrency: str = typer.Option("1,4,8", "--concurrency", help="comma-separated concurrencies to run"),
    default_sessions: int = typer.Option(
        12, "--default-sessions", help="sessions of the defaults' row (every setting at its default; 0: skip it)"
    ),
    default_latency: float = typer.Option(
        1.0, "--default-latency", help="seconds the slow endpoint of the defaults' row takes"
    ),
    changes: int = typer.Option(
        0, "--changes", help="every N-th session also cancels a plan (a reconcile call); 0: none"
    ),
    json_out: Optional[Path] = typer.Option(None, "--json", help="also write the results as JSON"),
) -> None:
    levels = [int(c) for c in concurrency.split(",") if c.strip()]
    if not 1 <= domains <= len(TOPICS):
        raise typer.BadParameter(f"between 1 and {len(TOPICS)}", param_hint="--domains")
    logging.getLogger("uac").setLevel(logging.ERROR)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, endpoint(latency) as server:
        source = Path(tmp) / "conversation.json"
        source.write_text(json.dumps(conversation(sessions, domains, turns, changes)), "utf-8")
        for level in levels:
            rows.append(run_once(server, source, Path(tmp) / f"c{level}", level, latency))
        defaults = defaults_row(Path(tmp), default_sessions, default_latency, changes) if default_sessions > 0 else None

    header = ["concurrency", "stage", "calls", "peak in flight", "seconds", "ideal", "ratio", "target"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    failed = []
    for row in rows:
        for stage in ("ingest", "compile"):
            data = row[stage]
            ratio = data["seconds"] / data["ideal"] if data["ideal"] else float("inf")
            data["ratio"] = round(ratio, 3)
            judged = row["concurrency"] >= 4
            ok = ratio <= TARGET if judged else True
            if not ok:
                failed.append(f"{stage} at concurrency {row['concurrency']}: {ratio:.2f}x the ideal")
            verdict = ("PASS" if ok else "FAIL") if judged else "-"
            print(
                f"| {row['concurrency']} | {stage} | {data['calls']} | {data['peak_in_flight']} | {data['seconds']:.2f} | "
                f"{data['ideal']:.2f} | {ratio:.2f}x | {verdict} |"
            )
    print()
    for row in rows:
        print(
            f"concurrency {row['concurrency']}: {row['sessions']} sessions, {row['facts']} facts (log {row['facts_hash']}), "
            f"{row['compile']['domains']} domains compiled (files {row['domains_hash']}), "
            f"indexing {row['ingest']['index_seconds']:.2f}s"
        )
    same = len({(r["facts_hash"], r["domains_hash"]) for r in rows}) == 1
    if not same:
        failed.append("the fact logs or the domain files differ between concurrencies")
    if not all(r["compile"]["ok"] for r in rows):
        failed.append("a compile did not succeed")
    for row in rows:
        print(f"concurrency {row['concurrency']}: {row['ingest']['reconcile_calls']} reconcile calls at the commits")
    print(f"[{'PASS' if same else 'FAIL'}] identical fact logs and domains at every concurrency")
    if defaults is not None:
        slow, fast = defaults["slow"], defaults["instant"]
        print(
            f"[{'PASS' if defaults['ok'] else 'FAIL'}] default settings, {defaults['sessions']} one-window sessions "
            f"({slow['reconcile_calls']} reconcile calls): {slow['seconds']:.2f}s against a {default_latency:g}s endpoint, {fast['seconds']:.2f}s against an instant one "
            f"(+{defaults['added_seconds']:.2f}s, target +{ADDED_TARGET:g}s), {slow['calls']} calls, "
            f"{slow['peak_in_flight']} in flight at most (target {PEAK_TARGET})"
        )
        if not defaults["ok"]:
            failed.append("the default settings' row missed its target")
    for problem in failed:
        print(f"[FAIL] {problem}")
    if json_out is not None:
        json_out.write_text(
            json.dumps({"latency": latency, "rows": rows, "defaults": defaults, "failed": failed}, indent=1), "utf-8"
        )
    if failed:
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
