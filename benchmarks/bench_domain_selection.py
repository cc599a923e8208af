"""Which domains ``[STATE]`` shows for a question: selection precision and recall, before and after.

    python benchmarks/bench_domain_selection.py [--sets tests/fixtures/chats] [--only dev,dev2] [--json OUT.json]

Questions written the way people ask them ("did I buy anything pricey in March", "am I
still at the clinic", "what's my 5k PB"), each with the domain(s) that hold its answer,
are put to two kinds of view built offline in the same run:

* ``offline``: every hand-written chat set under ``--sets`` (a directory holding a
  ``ledger.json``) ingested with the rule extractor and compiled offline (the offline
  compile's domains: ``finance`` with ``Purchase``, ``health`` with ``Workout``, ...);
* ``model-style``: the same domain names holding records a model would have written
  under other names (``Expense``, ``RestaurantVisit``, ``Run`` with ``distance_km``,
  ``Position`` with ``employer``, ``Reading``, ``Person``, ``Residence``, and a ``pets``
  domain no question asks about), made with ``import-records`` from
  ``domain_selection_view.json``, each domain with a description as a model writes one.

For each selector, ``baseline`` (the word-overlap rule before domains were also found
by meaning, kept here), ``words`` (the current rule without the embedding model: word
families, words every domain holds left out) and ``current``
(:func:`uac.answer.state_view.select_domains`), it reports per view:

* ``first``: the share of questions whose first domain shown holds the answer;
* ``recall``: the share of the answer's domains the selection shows at all;
* ``precision``: the share of the domains shown that hold an answer;
* ``none``: questions for which no domain was selected (STATE falls back to every
  domain or to the described manifest).

Then the cost of a selection: the first question against a view (its domains embedded:
``cold``), a question against a view already seen (``warm``), at 9 domains and at 50,
and the embedding model's load apart; and what ``uac ask`` takes on the first
offline view (no model configured, so the evidence of every channel: a new process with
no domain vectors kept, one with them on disk, and in one process with and without the
selection by meaning).  Exit status 1 when ``current`` has a lower
``first`` or ``recall`` than ``baseline`` on any view.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Optional

import typer

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_offline_view import _new_memory, chat_files, find_histories, select_histories  # noqa: E402

#: (question, the domains that hold its answer)
QUESTIONS: list[tuple[str, tuple[str, ...]]] = [
    ("How many things did I buy?", ("finance",)),
    ("Did I buy anything pricey in March?", ("finance",)),
    ("How much did I spend on clothes this year?", ("finance",)),
    ("What was the most expensive thing I got?", ("finance",)),
    ("What did the standing desk cost me?", ("finance",)),
    ("How much have I paid for stuff in total?", ("finance",)),
    ("Did I splurge on anything last month?", ("finance",)),
    ("Where did I eat last week?", ("food",)),
    ("What restaurants have I been to?", ("food",)),
    ("What did I have for dinner on Friday?", ("food",)),
    ("How often do I go out for brunch?", ("food",)),
    ("what's my favourite place for lunch", ("food",)),
    ("Which cafes did I try?", ("food",)),
    ("who did I go to Lisbon with", ("travel",)),
    ("Where did I go on holiday?", ("travel",)),
    ("How many trips have I taken this year?", ("travel",)),
    ("When did I fly out to Berlin?", ("travel",)),
    ("What countries have I visited?", ("travel",)),
    ("where am I heading next month", ("travel",)),
    ("am I still at the clinic", ("work",)),
    ("What do I do for work?", ("work",)),
    ("Who is my employer?", ("work",)),
    ("When did I start my current job?", ("work",)),
    ("what's my job title", ("work",)),
    ("How long was I at my previous company?", ("work",)),
    ("what's my 5k PB", ("health",)),
    ("How far did I run?", ("health",)),
    ("How many times did I go to the gym?", ("health",)),
    ("How long was my longest swim?", ("health",)),
    ("Did I do any exercise in June?", ("health",)),
    ("how many km have I cycled", ("health",)),
    ("What am I reading?", ("hobbies",)),
    ("Which novels did I finish?", ("hobbies",)),
    ("Who wrote the last book I read?", ("hobbies",)),
    ("What's on my reading list?", ("hobbies",)),
    ("Where do I live?", ("general",)),
    ("When did I move house?", ("general",)),
    ("Who is my sister?", ("relationships",)),
    ("When is my mum's birthday?", ("relationships",)),
    ("How did I meet my partner?", ("relationships",)),
    ("How much did I spend on my trip to Lisbon?", ("finance", "travel")),
    ("How much did I spend eating out?", ("finance", "food")),
    ("Did I buy new running shoes before the race?", ("finance", "health")),
    ("What did I read on holiday?", ("hobbies", "travel")),
]

#: the model-style view: domain -> its collection, record type, description and records
MODEL_STYLE: dict[str, dict[str, Any]] = json.loads(
    (REPO / "benchmarks" / "domain_selection_view.json").read_text("utf-8")
)


# --- the selector before domains were found by meaning (the baseline) ------------------


def baseline_select(question: str, views: list[Any]) -> list[Any]:
    """Word overlap of the question with each domain's vocabulary, plus the name-hit rule."""
    from uac.answer.state_view import _COLLECTION, _NAME, _STOP, words

    def named_things(question: str) -> list[str]:
        return [m.group(0).lower() for m in _NAME.finditer(question) if m.group(0).lower() not in _STOP]

    def vocabulary(view: Any) -> set[str]:
        names = " ".join(_COLLECTION.findall(view.state_text))
        return words(" ".join([view.name, view.summary, view.schema_text, names]))

    asked = words(question)
    names = named_things(question)
    scored = []
    for view in views:
        overlap = len(asked & vocabulary(view))
        name_hit = 2 if words(view.name) & asked else 0
        if names:
            held = view.state_text.lower()
            name_hit += 2 * sum(1 for name in names if name in held)
        if overlap or name_hit:
            scored.append((-(overlap + name_hit), view.name, view))
    return [view for _, _, view in sorted(scored, key=lambda t: (t[0], t[1]))]


# --- views --------------------------------------------------------------------------------


def offline_views(sets: Path, only: str | None, work: Path) -> dict[str, Path]:
    """set name -> the root of its project, ingested with the rules and compiled offline."""
    from analytical_bench.conv.ledger import load_ledger

    roots = {}
    for name, directory in select_histories(find_histories(sets), only):
        ledger = load_ledger(directory / "ledger.json")
        memory = _new_memory(work, directory.name, ledger.user)
        for path in chat_files(directory):
            memory.ingest(path, extractor="rules", compile=False)
        memory.compile(mode="offline")
        roots[f"offline {name}"] = memory.root
    return roots


def model_style_view(work: Path) -> Path:
    """A project whose domains hold records under a model's own names, with descriptions."""
    memory = _new_memory(work, "model-style", "Sam")
    for domain, spec in MODEL_STYLE.items():
        path = work / f"{spec['collection']}.json"
        path.write_text(json.dumps(spec["records"]), encoding="utf-8")
        memory.import_records(path, domain=domain, collection=spec["collection"], record_type=spec["record_type"])
        schema = memory.root / "domains" / domain / "schema.py"
        text = schema.read_text(encoding="utf-8")
        schema.write_text(f'"""{spec["description"]}"""\n\n' + text.split('"""', 2)[2].lstrip("\n"), encoding="utf-8")
    return memory.root


def wide_view(work: Path, n: int) -> Path:
    """A project of ``n`` domains (the model-style ones, then numbered copies of them)."""
    import shutil

    source = model_style_view(work / f"source-{n}")
    target = work / f"wide-{n}"
    shutil.copytree(source, target)
    names = list(MODEL_STYLE)
    manifest = (target / "MANIFEST.md").read_text(encoding="utf-8")
    lines = []
    for i in range(n - len(names)):
        base = names[i % len(names)]
        copy = f"{base}_{i // len(names) + 2}"
        shutil.copytree(target / "domains" / base, target / "domains" / copy)
        lines.append(f"- {copy}: {copy} records\n")
    (target / "MANIFEST.md").write_text(manifest.rstrip("\n") + "\n" + "".join(lines), encoding="utf-8")
    return target


# --- scoring --------------------------------------------------------------------------------


def score(select: Callable[[str, list[Any]], list[Any]], views: list[Any]) -> dict[str, Any]:
    present = {v.name for v in views}
    first = recall_hits = recall_total = shown_total = shown_right = none = 0
    misses = []
    for question, gold in QUESTIONS:
        wanted = [g for g in gold if g in present]
        chosen = [v.name for v in select(question, views)]
        if not chosen:
            none += 1
        if chosen and chosen[0] in wanted:
            first += 1
        else:
            misses.append(f"{question} -> {chosen[:3]} (wanted {wanted})")
        recall_hits += len(set(chosen) & set(wanted))
        recall_total += len(wanted)
        shown_total += len(chosen)
        shown_right += len(set(chosen) & set(wanted))
    n = len(QUESTIONS)
    return {
        "first": round(first / n, 3),
        "recall": round(recall_hits / recall_total, 3) if recall_total else 1.0,
        "precision": round(shown_right / shown_total, 3) if shown_total else 0.0,
        "shown_per_question": round(shown_total / n, 2),
        "none": none,
        "misses": misses,
    }


def latency(root: Path, repeat: int = 5) -> dict[str, float]:
    """Seconds of one selection against the view at ``root``: cold (its domains not embedded
    yet, in memory or on disk) and warm."""
    from uac.answer import domain_meaning
    from uac.answer.state_view import load_domain_views, select_domains

    views = load_domain_views(root)
    domain_meaning.forget_cached()
    cache = domain_meaning.cache_path(root)
    if cache.exists():
        cache.unlink()
    started = time.perf_counter()
    select_domains("How many things did I buy?", views, root=root)
    cold = time.perf_counter() - started
    domain_meaning.forget_cached()  # a new process: the vectors from disk
    started = time.perf_counter()
    select_domains("Where did I eat last week?", views, root=root)
    from_disk = time.perf_counter() - started
    warm = []
    for question, _ in QUESTIONS[:repeat]:
        started = time.perf_counter()
        select_domains(question, views, root=root)
        warm.append(time.perf_counter() - started)
    started = time.perf_counter()
    for question, _ in QUESTIONS[:repeat]:
        baseline_select(question, views)
    before = (time.perf_counter() - started) / repeat
    return {
        "domains": len(views),
        "cold_s": round(cold, 4),
        "from_disk_s": round(from_disk, 4),
        "warm_s": round(min(warm), 4),
        "baseline_s": round(before, 4),
    }


def ask_latency(root: Path, repeat: int = 3) -> dict[str, float]:
    """Seconds of ``uac ask`` (no model configured: the evidence of every channel) on the
    project at ``root``: a new process with no domain vectors kept and one with them on
    disk (each the best of ``repeat``), and in one process, warm, with and without the
    selection by meaning (best of ``repeat``)."""
    import subprocess

    from _common import offline_env
    from uac import UserMemory
    from uac.answer import domain_meaning

    command = [sys.executable, "-m", "uac", "ask", str(root), "How many things did I buy?", "--json"]
    env = offline_env(PYTHONPATH=str(REPO))

    def process() -> float:
        started = time.perf_counter()
        subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)
        return time.perf_counter() - started

    def without_vectors() -> float:
        domain_meaning.cache_path(root).unlink()
        return process()

    process()  # the project's other derived files made once, so that the runs differ in the vectors only
    cold = min(without_vectors() for _ in range(repeat))
    kept = min(process() for _ in range(repeat))
    memory = UserMemory.open(root)
    memory.ask("Where did I eat last week?")

    def in_process() -> float:
        started = time.perf_counter()
        memory.ask("How many things did I buy?")
        return time.perf_counter() - started

    warm = min(in_process() for _ in range(repeat))
    scores = domain_meaning.meaning_scores
    domain_meaning.meaning_scores = lambda *args, **kwargs: {}  # type: ignore[assignment]
    try:
        words_only = min(in_process() for _ in range(repeat))
    finally:
        domain_meaning.meaning_scores = scores  # type: ignore[assignment]
    return {
        "process_cold_s": round(cold, 3),
        "process_s": round(kept, 3),
        "warm_s": round(warm, 4),
        "warm_words_only_s": round(words_only, 4),
    }


def main(
    sets: Path = typer.Option(REPO / "tests" / "fixtures" / "chats", help="Directory of chat sets with ledgers."),
    only: Optional[str] = typer.Option(None, help="Comma-separated set names (default: all)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Write the results here."),
    show_misses: bool = typer.Option(False, help="List the questions whose first domain is wrong."),
) -> None:
    from uac.answer.state_view import load_domain_views, select_domains
    from uac.index.embeddings import get_embedder

    started = time.perf_counter()
    get_embedder().encode(["warm up"])
    model_load = time.perf_counter() - started
    results: dict[str, Any] = {"questions": len(QUESTIONS), "model_load_s": round(model_load, 3), "views": {}}
    failed = False
    with tempfile.TemporaryDirectory(prefix="uac-select-") as tmp:
        work = Path(tmp)
        roots = offline_views(sets, only, work)
        roots["model-style"] = model_style_view(work)
        print(f"{len(QUESTIONS)} questions; embedding model loaded in {model_load:.2f}s\n")
        header = f"{'view':<16} {'selector':<9} {'first':>6} {'recall':>7} {'precision':>9} {'shown':>6} {'none':>5}"
        print(header)
        print("-" * len(header))
        for label, root in roots.items():
            views = load_domain_views(root)
            rows = {
                "baseline": score(baseline_select, views),
                "words": score(lambda q, v: select_domains(q, v, meaning=False), views),
                "current": score(lambda q, v: select_domains(q, v, root=root), views),
            }
            for selector, row in rows.items():
                print(
                    f"{label:<16} {selector:<9} {row['first']:>6.3f} {row['recall']:>7.3f} "
                    f"{row['precision']:>9.3f} {row['shown_per_question']:>6.2f} {row['none']:>5}"
                )
                if show_misses:
                    for miss in row["misses"]:
                        print(f"      {miss}")
            if rows["current"]["first"] < rows["baseline"]["first"]:
                failed = True
            if rows["current"]["recall"] < rows["baseline"]["recall"]:
                failed = True
            results["views"][label] = rows
        print("\nCost of one selection (seconds):")
        results["latency"] = {}
        for n, root in (("9", roots["model-style"]), ("50", wide_view(work, 50))):
            row = latency(root)
            results["latency"][n] = row
            print(
                f"  {row['domains']:>3} domains: cold {row['cold_s']:.4f}, from disk {row['from_disk_s']:.4f}, "
                f"warm {row['warm_s']:.4f} (baseline {row['baseline_s']:.4f})"
            )
        row = ask_latency(roots[next(iter(roots))])
        results["ask"] = row
        print(
            f"\nuac ask (no model, {next(iter(roots))}): new process {row['process_cold_s']:.2f}s with no vectors "
            f"kept, {row['process_s']:.2f}s with them on disk; in one process {row['warm_s']:.4f}s "
            f"({row['warm_words_only_s']:.4f}s without the selection by meaning)"
        )
    if json_out:
        json_out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    raise typer.Exit(1 if failed else 0)


if __name__ == "__main__":
    typer.run(main)
