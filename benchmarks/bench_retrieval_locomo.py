"""Retrieval benchmark on LoCoMo: does uac's memory find the evidence turns?

    python benchmarks/bench_retrieval_locomo.py --data path/to/locomo10.json \
        [--conversations conv-26 conv-30] [--out DIR] [--skip-scale]

The file is read with uac's LoCoMo reader (``uac.load_locomo``; evidence turn
ids normalised).  Every conversation is ingested offline (rule-based
extractor) into a temporary project.  For the questions of categories 1-4 it reports the share of evidence
turn ids covered by the top 5/10/20 results (a fact covers its evidence turns,
an archive chunk the turns it holds) and session-level recall@10, for uac's
search (facts, archive, all) and, in the same run, for two baselines over the
raw turns: dense top-k, and BM25 + dense fused with RRF (uac's tokenizer and
fusion, ``uac.tokenize`` and ``uac.rrf``).  It also times ingest against
embedding the turns alone, and hybrid search latency at 100k facts in a
project built through ``UserMemory.ingest``.  Only uac's public API is used.
Targets are reported as PASS/FAIL; the process does not fail on them.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import typer

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

KS = (5, 10, 20)
CATEGORIES = (1, 2, 3, 4)
UAC_CHANNELS = ("facts", "archive", "all")
#: facts per ingest call when building the scale project
SCALE_BATCH = 10_000


def coverage(ranked: list[list[str]], wanted: tuple[str, ...], k: int) -> float:
    covered: set[str] = set()
    for turns in ranked[:k]:
        covered.update(turns)
    return sum(1 for t in wanted if t in covered) / len(wanted)


def session_recall(ranked: list[list[str]], wanted: tuple[str, ...], k: int = 10) -> float:
    want = {t.split(":")[0] for t in wanted}
    got = {t.split(":")[0] for turns in ranked[:k] for t in turns}
    return len(want & got) / len(want)


class Scores:
    def __init__(self) -> None:
        self.values: dict[str, list[float]] = {}

    def add(self, key: str, value: float) -> None:
        self.values.setdefault(key, []).append(value)

    def mean(self, key: str) -> float:
        values = self.values.get(key) or [0.0]
        return sum(values) / len(values)


class TurnBM25:
    """The lexical baseline: BM25 (bm25s, a uac dependency) over the raw turns,
    tokenised as uac's own BM25 lists are (``uac.tokenize``)."""

    def __init__(self, texts: list[str]) -> None:
        import bm25s

        from uac import tokenize

        self.tokenize = tokenize
        self.model = bm25s.BM25()
        self.model.index([tokenize(t) or ["_"] for t in texts], show_progress=False)
        self.vocab = self.model.vocab_dict

    def order(self, query: str, n: int = 50) -> list[int]:
        """Turn positions by BM25 score, best first (only turns sharing a word)."""
        import numpy as np

        known = [t for t in self.tokenize(query) if t in self.vocab]
        if not known:
            return []
        scores = self.model.get_scores(known)
        return [int(i) for i in np.argsort(-scores)[:n] if scores[i] > 0]


def run_conversation(
    conversation, data_path: Path, workdir: Path, embedder, scores: Scores, timings: dict, *, timing_rounds: int = 2
):
    """Score one conversation's questions; returns (questions scored, the ingested project)."""
    import numpy as np

    from uac import UserMemory, rrf

    sample = conversation.sample_id
    turns = [t for _, t in conversation.turns]
    turn_texts = [f"{t.speaker}: {t.full_text}" for t in turns]

    # time ingest vs. embedding the turns alone, alternating to share the machine's noise
    ingest_times, embed_times = [], []
    memory = None
    for attempt in range(max(timing_rounds, 1)):
        started = time.perf_counter()
        turn_vectors = embedder.encode(turn_texts)
        embed_times.append(time.perf_counter() - started)
        memory = UserMemory.create(workdir / f"{sample}-{attempt}", user_name=sample)
        started = time.perf_counter()
        memory.ingest(data_path, format="locomo", sample_id=sample, extractor="rules", compile=False)
        ingest_times.append(time.perf_counter() - started)
    if timing_rounds:
        timings.setdefault("ingest", []).append(min(ingest_times))
        timings.setdefault("embed", []).append(min(embed_times))
    assert memory is not None

    lexical = TurnBM25(turn_texts)
    turn_ids = [[t.turn_id] for t in turns]
    chosen = [q for q in conversation.questions if q.category in CATEGORIES and q.evidence]
    queries = [q.question for q in chosen]
    if not queries:
        return 0, memory
    query_vectors = embedder.encode(queries)
    hits = {channel: memory.search_many(queries, k=max(KS), channel=channel) for channel in UAC_CHANNELS}
    for number, (question, query_vector) in enumerate(zip(chosen, query_vectors)):
        ranked: dict[str, list[list[str]]] = {
            f"uac:{channel}": [list(h.evidence) for h in hits[channel][number]] for channel in UAC_CHANNELS
        }
        dense_order = [int(i) for i in np.argsort(-(turn_vectors @ query_vector))[:50]]
        lex_order = lexical.order(question.question)
        ranked["baseline:dense"] = [turn_ids[i] for i in dense_order]
        ranked["baseline:bm25+dense"] = [turn_ids[i] for i, _ in rrf([dense_order, lex_order])]
        wanted = question.evidence
        for name, lists in ranked.items():
            for k in KS:
                scores.add(f"{name}@{k}", coverage(lists, wanted, k))
                scores.add(f"{name}@{k}|cat{question.category}", coverage(lists, wanted, k))
            scores.add(f"{name}:session@10", session_recall(lists, wanted))
    return len(chosen), memory


def scale_sessions(texts: list[str], n: int) -> list[dict]:
    """``n`` turns of real fact texts, varied with names and dates, as chat sessions of 50 turns."""
    base = list(dict.fromkeys(texts))[:5000]
    names = ["Alex", "Sam", "Jordan", "Riley", "Morgan", "Casey", "Taylor", "Jamie", "Avery", "Quinn"]
    months = ["January", "March", "May", "July", "September", "November"]
    sessions: list[dict] = []
    for i in range(n):
        j, variant = i % len(base), i // len(base)
        text = base[j]
        if variant:  # one sentence still: the variation goes before the full stop
            text = f"{text.rstrip('.!?')} ({names[variant % 10]}, {months[variant % 6]} {2020 + variant % 5})."
        if i % 50 == 0:
            day = f"{2020 + (i // 50) % 5}-{1 + (i // 50) % 12:02d}-{1 + (i // 50) % 28:02d}"
            sessions.append({"session_id": f"scale-s{i // 50}", "date": day, "messages": []})
        sessions[-1]["messages"].append({"role": "user", "content": text})
    return sessions


def scale_latency(workdir: Path, texts: list[str], n: int = 100_000, queries: list[str] | None = None) -> dict:
    """Hybrid search p50 over a project of about ``n`` facts, built with ``UserMemory.ingest``."""
    from uac import UserMemory

    memory = UserMemory.create(workdir / "scale", user_name="Scale")
    sessions = scale_sessions(texts, n)
    per_call = max(1, SCALE_BATCH // 50)
    started = time.perf_counter()
    for first in range(0, len(sessions), per_call):
        batch = workdir / "scale-batch.jsonl"
        batch.write_text("".join(json.dumps(s) + "\n" for s in sessions[first : first + per_call]), "utf-8")
        memory.ingest(batch, format="messages", extractor="rules", compile=False)
        print(
            f"scale: {min(n, (first + per_call) * 50):,} of {n:,} turns ingested "
            f"({time.perf_counter() - started:.0f}s)",
            file=sys.stderr,
        )
    build = time.perf_counter() - started
    facts = len(memory.facts())
    queries = queries or ["What did Caroline research?"]
    started = time.perf_counter()
    memory.search(queries[0], k=20, channel="facts")  # builds BM25 once
    bm25_build = time.perf_counter() - started
    latencies = []
    for query in queries:
        started = time.perf_counter()
        memory.search(query, k=20, channel="facts")  # includes the query embedding
        latencies.append(time.perf_counter() - started)
    return {
        "facts": facts,
        "queries": len(latencies),
        "p50_ms": 1000 * statistics.median(latencies),
        "p90_ms": 1000 * sorted(latencies)[int(0.9 * (len(latencies) - 1))],
        "build_seconds": build,
        "bm25_build_seconds": bm25_build,
    }


app = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)


@app.command(help=__doc__.split("\n\n")[0])
def main(
    data: str = typer.Option(
        os.environ.get("UAC_LOCOMO_DATA", "locomo10.json"),
        "--data",
        show_default=False,
        help="the LoCoMo JSON file (default: $UAC_LOCOMO_DATA, else ./locomo10.json)",
    ),
    conversations: Optional[list[str]] = typer.Option(
        None, "--conversations", metavar="ID [ID ...]", help="sample ids (default: all)"
    ),
    more_conversations: Optional[list[str]] = typer.Argument(None, hidden=True, metavar="ID"),
    out: Optional[Path] = typer.Option(None, "--out", help="directory for results.json"),
    skip_scale: bool = typer.Option(False, "--skip-scale", help="skip the 100k-fact latency run"),
    scale_facts: int = typer.Option(100_000, "--scale-facts"),
    timed_conversations: int = typer.Option(
        3,
        "--timed-conversations",
        help="time ingest vs. embedding (two alternating rounds) on this many conversations",
    ),
) -> None:
    from uac import UacError, get_embedder, load_locomo

    if timed_conversations < 1:
        raise typer.BadParameter(
            "at least 1: the ingest/embedding ratio needs a timed conversation.", param_hint="--timed-conversations"
        )
    data_path = Path(data)
    if not data_path.is_file():
        print(f"skipped: LoCoMo data not found at {data_path} (pass --data PATH)")
        return
    # "--conversations conv-26 conv-30": the ids after the first one arrive as arguments
    wanted = [*(conversations or []), *(more_conversations or [])]
    if more_conversations and not conversations:
        raise typer.BadParameter("name the sample ids after --conversations.", param_hint="CONVERSATIONS")
    try:
        data_set = load_locomo(data_path, wanted or None)
    except UacError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(exc.exit_code) from None

    embedder = get_embedder()
    scores = Scores()
    timings: dict[str, list[float]] = {}
    questions = 0
    all_fact_texts: list[str] = []
    all_questions: list[str] = []
    with tempfile.TemporaryDirectory(prefix="uac-bench-") as tmp:
        workdir = Path(tmp)
        for number, conversation in enumerate(data_set):
            started = time.perf_counter()
            rounds = 2 if number < timed_conversations else 0
            n, memory = run_conversation(
                conversation, data_path, workdir, embedder, scores, timings, timing_rounds=rounds
            )
            questions += n
            all_fact_texts += [f.text for f in memory.facts()]
            all_questions += [q.question for q in conversation.questions if q.category in CATEGORIES]
            print(
                f"{conversation.sample_id}: {n} questions, facts@10 {scores.mean('uac:facts@10'):.3f} "
                f"all@10 {scores.mean('uac:all@10'):.3f} ({time.perf_counter() - started:.1f}s)",
                file=sys.stderr,
            )
        scale = None
        if not skip_scale:
            scale = scale_latency(workdir, all_fact_texts, scale_facts, all_questions[:200])

    systems = ["uac:facts", "uac:archive", "uac:all", "baseline:dense", "baseline:bm25+dense"]
    table = {
        name: {
            **{f"recall@{k}": round(scores.mean(f"{name}@{k}"), 4) for k in KS},
            "session_recall@10": round(scores.mean(f"{name}:session@10"), 4),
            **{f"recall@10_cat{c}": round(scores.mean(f"{name}@10|cat{c}"), 4) for c in CATEGORIES},
        }
        for name in systems
    }
    ratio = sum(timings["ingest"]) / sum(timings["embed"])
    facts10 = table["uac:facts"]["recall@10"]
    targets = {
        "ingest <= 1.5x embedding-only": ("PASS" if ratio <= 1.5 else "FAIL", round(ratio, 3)),
        "facts recall@10 > dense baseline": (
            "PASS" if facts10 > table["baseline:dense"]["recall@10"] else "FAIL",
            facts10,
        ),
        "facts recall@10 > bm25+dense baseline": (
            "PASS" if facts10 > table["baseline:bm25+dense"]["recall@10"] else "FAIL",
            facts10,
        ),
        "facts recall@10 >= 0.80 (aim)": ("PASS" if facts10 >= 0.80 else "FAIL", facts10),
        "facts recall@10 multi-hop >= 0.55 (aim)": (
            "PASS" if table["uac:facts"]["recall@10_cat1"] >= 0.55 else "FAIL",
            table["uac:facts"]["recall@10_cat1"],
        ),
        "facts recall@10 open-domain >= 0.55 (aim)": (
            "PASS" if table["uac:facts"]["recall@10_cat3"] >= 0.55 else "FAIL",
            table["uac:facts"]["recall@10_cat3"],
        ),
    }
    if scale is not None:
        targets["search p50 <= 30 ms at 100k"] = (
            "PASS" if scale["p50_ms"] <= 30 else "FAIL",
            round(scale["p50_ms"], 2),
        )
    result = {
        "data": str(data_path),
        "conversations": [c.sample_id for c in data_set],
        "questions": questions,
        "recall": table,
        "timing": {
            "ingest_seconds": round(sum(timings["ingest"]), 3),
            "embed_turns_seconds": round(sum(timings["embed"]), 3),
            "ingest_over_embedding": round(ratio, 3),
        },
        "scale": scale,
        "targets": {k: {"status": v[0], "value": v[1]} for k, v in targets.items()},
    }
    print(f"questions (categories 1-4): {questions}")
    print(f"{'system':<22}{'@5':>8}{'@10':>8}{'@20':>8}{'sess@10':>9}")
    for name in systems:
        row = table[name]
        print(
            f"{name:<22}{row['recall@5']:>8.3f}{row['recall@10']:>8.3f}{row['recall@20']:>8.3f}{row['session_recall@10']:>9.3f}"
        )
    print(
        f"ingest {result['timing']['ingest_seconds']:.1f}s vs embedding turns {result['timing']['embed_turns_seconds']:.1f}s "
        f"(ratio {ratio:.2f})"
    )
    if scale:
        print(f"search at {scale['facts']:,} facts: p50 {scale['p50_ms']:.1f} ms, p90 {scale['p90_ms']:.1f} ms")
    for name, (status, value) in targets.items():
        print(f"[{status}] {name}: {value}")
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / "results.json").write_text(json.dumps(result, indent=2) + "\n", "utf-8")


if __name__ == "__main__":
    app()
