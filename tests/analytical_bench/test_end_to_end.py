"""A scripted run of a few cases through every system, end to end: results,
run.json, the report and the plot; and the report's reproducibility."""

from __future__ import annotations

import json

import pytest

from analytical_bench.harness import run_benchmark
from analytical_bench.runner import Prices
from analytical_bench.systems import SYSTEM_CLASSES, make_systems
from uac.llm import LLMClient, ResponseCache, ScriptedProvider

from .scripted_answers import make_handler


@pytest.fixture(scope="module")
def small(dataset):
    """Three paper cases at N=20/50 (count, sum, trend) and their dataset."""
    wanted = []
    for pattern, n in (("count", 20), ("sum", 50), ("trend", 20)):
        wanted.append(next(c for c in dataset.cases if c.suite == "paper" and c.pattern == pattern and c.n == n))
    ids = {c.id for c in wanted}
    return dataset, type(dataset)(
        dataset.name, dataset.version, dataset.seed, [c for c in dataset.cases if c.id in ids]
    )


def _client(cases, cache=None):
    return LLMClient(ScriptedProvider(handler=make_handler(cases)), cache=cache, sleep=lambda _s: None)


@pytest.mark.slow
@pytest.mark.embeddings
def test_every_system_end_to_end(tmp_path, small, embedder):
    source, selected = small
    llm = _client(selected.cases)
    outcome = run_benchmark(
        selected,
        tmp_path / "out",
        source=source,
        systems=make_systems(),
        llm=llm,
        workers=2,
        prices=Prices(prompt_per_1k=0.5, completion_per_1k=1.0),
    )
    assert outcome.mode == "model"
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 3 * len(SYSTEM_CLASSES)
    assert [r["case_id"] for r in rows[:5]] == [selected.cases[0].id] * 5  # dataset order, then system order
    by_system = {name: [r for r in rows if r["system"] == name] for name in SYSTEM_CLASSES}
    for name in ("fc_repl", "uac_repl"):
        assert all(r["correct"] for r in by_system[name]), by_system[name]
        assert all(r["tool_calls"] and r["error"] is None for r in by_system[name])
    count_row = next(r for r in by_system["full_context"] if r["pattern"] == "count")
    assert count_row["correct"]
    assert not any(r["correct"] for r in by_system["topk"] + by_system["facts"])
    assert all("support_retrieved" in r for r in by_system["topk"])
    for row in rows:
        assert {"prediction", "gold", "correct", "tool_calls", "prompt_tokens", "completion_tokens", "latency"} <= set(
            row
        )
        assert row["prompt_tokens"] > 0

    run = json.loads((tmp_path / "out" / "run.json").read_text())
    assert run["dataset"]["checksum"] == source.checksum
    assert run["mode"] == "model"
    assert run["llm"] == {"provider": "scripted", "model": "scripted", "describe": "scripted:scripted"}
    assert run["uac_version"] and run["systems"] == list(SYSTEM_CLASSES)
    assert run["options"]["selected_case_ids"] == [c.id for c in selected.cases]
    assert run["totals"]["answers"] == 15

    report = (tmp_path / "out" / "report.md").read_text()
    for cls in SYSTEM_CLASSES.values():
        assert cls.label in report
    assert "| FC + Python REPL | 100.0 |" in report
    assert "accuracy_vs_n.png" in report and (tmp_path / "out" / "accuracy_vs_n.png").stat().st_size > 1000
    assert "Est. cost (USD)" in report
    assert "latency" not in report.lower()
    assert "Mean" in (tmp_path / "out" / "timings.md").read_text()


@pytest.mark.slow
@pytest.mark.embeddings
def test_warm_cache_reproduces_the_report_byte_for_byte(tmp_path, small, embedder):
    source, selected = small
    systems = make_systems(["fc_repl", "full_context", "facts"])
    cache = ResponseCache(tmp_path / "cache.sqlite")
    first = run_benchmark(selected, tmp_path / "a", source=source, systems=systems, llm=_client(selected.cases, cache))
    # the second run has a model that cannot answer anything: every response must come from the cache
    empty = LLMClient(ScriptedProvider(), cache=ResponseCache(tmp_path / "cache.sqlite"), sleep=lambda _s: None)
    second = run_benchmark(selected, tmp_path / "b", source=source, systems=systems, llm=empty)
    assert empty.usage.cached_calls == empty.usage.calls > 0
    assert first.report.read_bytes() == second.report.read_bytes()
    assert (tmp_path / "a" / "accuracy_vs_n.png").read_bytes() == (tmp_path / "b" / "accuracy_vs_n.png").read_bytes()


def test_model_errors_are_recorded_per_case(tmp_path, small):
    source, selected = small
    llm = LLMClient(ScriptedProvider([{"error": "fatal", "message": "endpoint refused"}] * 3), sleep=lambda _s: None)
    outcome = run_benchmark(
        selected, tmp_path, source=source, systems=make_systems(["full_context"]), llm=llm, plot=False
    )
    assert all(r["error"] and "endpoint refused" in r["error"] and not r["correct"] for r in outcome.rows)
    assert "| Full Context | 0.0 |" in outcome.report.read_text()
