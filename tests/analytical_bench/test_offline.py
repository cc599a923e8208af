"""The offline mode (no model configured): import fidelity and the answerability ceiling."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from analytical_bench.harness import run_benchmark
from analytical_bench.offline import offline_case
from analytical_bench.systems import make_systems
from analytical_bench.systems.retrieval import FlatFacts, TopKRetrieval
from analytical_bench.typed_state import build_typed_state, check_fidelity, coverage


@pytest.fixture(scope="module")
def tiny(dataset):
    """Two paper cases and one cross-domain case at N=20."""
    ids = [c.id for c in dataset.cases if c.n == 20 and c.suite == "paper"][:2]
    ids.append(next(c.id for c in dataset.cases if c.n == 20 and c.suite == "cross"))
    return type(dataset)(dataset.name, dataset.version, dataset.seed, [c for c in dataset.cases if c.id in ids])


def test_typed_state_holds_every_record_with_python_types(tmp_path, tiny):
    case = tiny.cases[0]
    typed = build_typed_state(case, tmp_path)
    loaded = typed.collection(case.record_type)
    assert len(loaded) == len(case.records)
    first = loaded[0]
    date_field = {"trips": "start_date", "contacts": "met_date", "books": "finished_date"}.get(case.record_type, "date")
    assert isinstance(getattr(first, date_field), dt.date)
    fidelity = check_fidelity(case, typed)
    assert fidelity.ok, fidelity.problems
    assert fidelity.fields == fidelity.fields_exact == sum(len(r) for r in case.records)
    assert coverage(case, typed) == 1.0


def test_fidelity_detects_a_missing_or_changed_record(tmp_path, tiny):
    case = tiny.cases[0]
    typed = build_typed_state(case, tmp_path)
    changed = [dict(r) for r in case.records]
    changed[3] = {**changed[3], "id": "someone-else"}
    altered = type(case)(**{**case.to_json(), "records": changed + [dict(changed[0], id="extra")]})
    fidelity = check_fidelity(altered, typed)
    assert not fidelity.ok
    assert fidelity.records_exact == len(case.records) - 1
    assert any("typed records for" in p for p in fidelity.problems)


@pytest.mark.embeddings
def test_offline_case_measures_ceilings(tiny, embedder):
    row = offline_case(tiny.cases[0], [TopKRetrieval(), FlatFacts()])
    assert row["fidelity"]["ok"]
    assert row["ceiling"]["uac_state"] == 1.0
    assert 0.0 <= row["ceiling"]["facts"] <= row["ceiling"]["uac_state"]
    assert set(row["retrieved_records"]) == {"topk", "facts"}


@pytest.mark.slow
@pytest.mark.embeddings
def test_offline_run_writes_an_honest_reproducible_report(tmp_path, tiny, embedder):
    first = run_benchmark(tiny, tmp_path / "a", systems=make_systems(), llm=None)
    assert first.mode == "offline"
    report = first.report.read_text()
    assert report.splitlines()[0] == "# Analytical benchmark report (offline)"
    assert "**No model answered these questions.**" in report.split("## ")[0]
    assert "## Import fidelity" in report and "| **All** | 3 |" in report
    assert "| UaC typed state (enumerable) | 100.0 |" in report
    assert (tmp_path / "a" / "accuracy_vs_n.png").exists()
    rows = [json.loads(line) for line in (tmp_path / "a" / "results.jsonl").read_text().splitlines()]
    assert [r["case_id"] for r in rows] == [c.id for c in tiny.cases]
    assert all(r["fidelity"]["ok"] for r in rows)
    run = json.loads((tmp_path / "a" / "run.json").read_text())
    assert run["mode"] == "offline" and run["llm"] == {"provider": "none", "model": None}
    assert run["dataset"]["checksum"] == tiny.checksum
    second = run_benchmark(tiny, tmp_path / "b", systems=make_systems(), llm=None)
    assert first.report.read_bytes() == second.report.read_bytes()
