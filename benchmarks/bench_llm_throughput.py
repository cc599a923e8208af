"""Throughput of model calls: ingest and compile at concurrency 1, 4 and 8 against a slow endpoint.

    python benchmarks/bench_llm_throughput.py [--sessions 50] [--domains 8] [--latency 0.5]
        [--concurrency 1,4,8] [--json OUT.json]

A local OpenAI-compatible server (``fake_endpoint.py``) answers every request
after ``--latency`` seconds with the replies of the benchmark's protocol model
(uac's protocol model, ``uac.ProtocolModel``: one fact per turn; one record per fact).  For each
concurrency a fresh project ingests ``--sessions`` one-window sessions through
the real OpenAI client, then compiles their facts (spread evenly over
``--domains`` domains, a few batches each) in incremental mode.

For each run the table shows the model calls, the most requests the server
saw in flight, the wall time and the ideal (calls x latency / concurrency),
and their ratio.  Ingest is timed without indexing (the search indexes are
built after the model work and do not depend on the concurrency; their time
is shown apart).  Compile's routing call comes before the domains and is part
of its wall time.

Targets: wall time within 1.3x of the ideal at concurrency 4 and 8, for
ingest and for compile; identical fact logs and domain files at every
concurrency.  Exits 1 if a target is missed.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fake_endpoint import FakeEndpoint  # noqa: E402

from uac import LLMSettings, ProtocolModel, UserMemory, build_client  # noqa: E402

#: a fact line of uac's prompts: ``[id] (said D; happened D) speaker: text``
FACT_LINE = re.compile(r"^\[(?P<id>[^\]]+)\](?: \([^)]*\))?(?: (?P<speaker>[^:\n]{1,40}):)? (?P<text>.*)$", re.M)
MODEL = ProtocolModel()

#: topic -> (domain, a marker word that routes a fact there)
TOPICS = [
    ("travel", "trip"), ("food", "dinner"), ("work", "office"), ("health", "doctor"),
    ("music", "guitar"), ("garden", "tomatoes"), ("pets", "puppy"), ("money", "budget"),
]
PLACES = ["Lisbon", "Kyoto", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Tunis", "Porto", "Seoul"]
TARGET = 1.3

app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


def conversation(sessions: int, domains: int, turns: int) -> dict[str, Any]:
    """A LoCoMo-format conversation: every session one window of ``turns`` turns."""
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
            lines.append({"speaker": speaker, "dia_id": f"D{number}:{turn}",
                          "text": f"Session {number}, note {turn}: the {word} in {place} went well for me."})
        data[f"session_{number}"] = lines
    return {"sample_id": "throughput", "conversation": data, "qa": []}


def route_by_marker(prompt: str) -> dict[str, Any]:
    routes = []
    section = prompt.split("Facts (one per line", 1)[-1].split("Answer with JSON", 1)[0]
    for match in FACT_LINE.finditer(section):
        text = match.group("text").lower()
        domain = next((name for name, word in TOPICS if f" {word} " in f" {text} "), "life")
        routes.append({"id": match.group("id"), "domain": domain})
    return {"routes": routes}


def responder(request: Any) -> str:
    prompt = "\n".join(m.content or "" for m in request.messages)
    if "Route each fact" in prompt:
        return json.dumps(route_by_marker(prompt))
    return MODEL.complete(request).content or ""


def digest(root: Path, *parts: str) -> str:
    """A hash of the files under ``root/part`` (sorted paths and contents)."""
    sha = hashlib.sha256()
    for part in parts:
        base = root / part
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in files:
            sha.update(str(path.relative_to(root)).encode())
            sha.update(path.read_bytes())
    return sha.hexdigest()[:16]


def run_once(server: FakeEndpoint, source: Path, root: Path, concurrency: int, latency: float) -> dict[str, Any]:
    settings = LLMSettings(provider="openai", model=server.model, base_url=server.base_url, api_key="none",
                           max_retries=2, concurrency=concurrency)
    client = build_client(settings)
    memory = UserMemory.create(root, user_name="Maya", llm=client)
    try:
        project = memory.project
        project.save_config(project.config.with_section("extract", parallel_sessions=8).with_section("compile", batch_facts=5))
        server.peak = 0
        before = server.count()
        report = memory.ingest(source, extractor="llm")
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
        fact_rows = [{k: v for k, v in row.items() if row.get("kind") != "commit" or k not in ("committed_at", "checksum")}
                     for row in rows]
        return {
            "concurrency": concurrency,
            "sessions": len(report.sessions_added),
            "facts": report.facts_appended,
            "ingest": {"calls": ingest_calls, "peak_in_flight": ingest_peak, "seconds": round(ingest_seconds, 3),
                       "index_seconds": round(report.timings["index"], 3),
                       "ideal": round(ingest_calls * latency / concurrency, 3)},
            "compile": {"calls": compile_calls, "peak_in_flight": server.peak, "seconds": round(compile_seconds, 3),
                        "ideal": round(compile_calls * latency / concurrency, 3), "domains": len(domains),
                        "ok": compiled.ok},
            "facts_hash": hashlib.sha256(json.dumps(fact_rows, sort_keys=True).encode()).hexdigest()[:16],
            "domains_hash": digest(root, "domains"),
        }
    finally:
        memory.close()


@app.command(help=__doc__.split("\n\n")[0])
def main(
    sessions: int = typer.Option(50, "--sessions", help="sessions to ingest (one model call each)"),
    domains: int = typer.Option(8, "--domains", help="domains the facts spread over (at most 8)"),
    turns: int = typer.Option(4, "--turns", help="turns (and facts) per session"),
    latency: float = typer.Option(0.5, "--latency", help="seconds the endpoint takes per request"),
    concurrency: str = typer.Option("1,4,8", "--concurrency", help="comma-separated concurrencies to run"),
    json_out: Optional[Path] = typer.Option(None, "--json", help="also write the results as JSON"),
) -> None:
    levels = [int(c) for c in concurrency.split(",") if c.strip()]
    if not 1 <= domains <= len(TOPICS):
        raise typer.BadParameter(f"between 1 and {len(TOPICS)}", param_hint="--domains")
    logging.getLogger("uac").setLevel(logging.ERROR)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, FakeEndpoint(responder, latency=latency) as server:
        source = Path(tmp) / "conversation.json"
        source.write_text(json.dumps(conversation(sessions, domains, turns)), "utf-8")
        for level in levels:
            rows.append(run_once(server, source, Path(tmp) / f"c{level}", level, latency))

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
            print(f"| {row['concurrency']} | {stage} | {data['calls']} | {data['peak_in_flight']} | {data['seconds']:.2f} | "
                  f"{data['ideal']:.2f} | {ratio:.2f}x | {verdict} |")
    print()
    for row in rows:
        print(f"concurrency {row['concurrency']}: {row['sessions']} sessions, {row['facts']} facts (log {row['facts_hash']}), "
              f"{row['compile']['domains']} domains compiled (files {row['domains_hash']}), "
              f"indexing {row['ingest']['index_seconds']:.2f}s")
    same = len({(r["facts_hash"], r["domains_hash"]) for r in rows}) == 1
    if not same:
        failed.append("the fact logs or the domain files differ between concurrencies")
    if not all(r["compile"]["ok"] for r in rows):
        failed.append("a compile did not succeed")
    print(f"[{'PASS' if same else 'FAIL'}] identical fact logs and domains at every concurrency")
    for problem in failed:
        print(f"[FAIL] {problem}")
    if json_out is not None:
        json_out.write_text(json.dumps({"latency": latency, "rows": rows, "failed": failed}, indent=1), "utf-8")
    if failed:
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
