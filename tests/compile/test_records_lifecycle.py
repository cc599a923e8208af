"""import-records can be repeated, replaced and undone; conversations go to ingest;
a collection named like its domain works in the sandbox under that name."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from uac.cli import main
from uac.errors import DomainNotFound, InputError

TRIPS = Path(__file__).resolve().parents[2] / "examples" / "demo" / "trips.csv"


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "domains").rglob("*")) if p.is_file()} | {
        "MANIFEST.md": (root / "MANIFEST.md").read_bytes()
    }


def _count_2024(memory) -> int:
    return memory.run("result = len([t for t in trips if t.start_date.year == 2024])").to_json()["result"]


def test_the_same_file_twice_is_a_no_op(memory):
    first = memory.import_records(TRIPS, domain="travel", collection="trips")
    in_2024 = _count_2024(memory)
    before = _tree(memory.root)
    again = memory.import_records(TRIPS, domain="travel", collection="trips")
    assert again.records_added == 0 and again.records_skipped == first.records_added
    assert again.records_total == first.records_total
    assert _tree(memory.root) == before
    assert _count_2024(memory) == in_2024


def test_a_grown_file_adds_only_its_new_records(memory, tmp_path):
    rows = list(csv.DictReader(TRIPS.open()))
    path = tmp_path / "trips.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows[:-2])
    memory.import_records(path, domain="travel", collection="trips")
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    grown = memory.import_records(path, domain="travel", collection="trips")
    assert grown.records_added == 2 and grown.records_total == len(rows)
    sources = [s for t in memory.state["travel"].trips for s in t.sources]
    assert len(sources) == len(set(sources)) == len(rows)


def test_replace_replaces_the_collection(memory, tmp_path):
    memory.import_records(TRIPS, domain="travel", collection="trips")
    other = tmp_path / "trips.json"
    other.write_text(json.dumps([{"city": "Oslo", "nights": 3}, {"city": "Rome", "nights": 2}]))
    report = memory.import_records(other, domain="travel", collection="trips", replace=True)
    assert report.replaced and report.records_added == 2 and report.records_total == 2
    assert [t.city for t in memory.state["travel"].trips] == ["Oslo", "Rome"]
    # the type changed with the file: the old fields are gone
    assert {f["name"] for f in report.fields} == {"city", "nights", "notes", "sources"}


def test_forget_removes_imported_data(memory, tmp_path, capsys):
    memory.import_records(TRIPS, domain="travel", collection="trips")
    visits = tmp_path / "visits.json"
    visits.write_text(json.dumps([{"doctor": "Lee", "day": "2024-01-05"}]))
    memory.import_records(visits, domain="travel", collection="visits")
    report = memory.forget(domain="travel", collection="trips")
    assert report.collections_removed == ["trips"] and report.records_removed > 0 and not report.domain_removed
    assert list(memory.sandbox_state()["travel"]) == ["visits"]
    assert "trips" not in (memory.root / "domains" / "travel" / "state.py").read_text()
    assert "class Trip" not in (memory.root / "domains" / "travel" / "schema.py").read_text()
    assert "trips" not in (memory.root / "MANIFEST.md").read_text()
    assert main(["forget", str(memory.root), "--domain", "travel", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["domain_removed"] and out["collections_removed"] == ["visits"]
    assert not (memory.root / "domains" / "travel").exists()
    assert "travel" not in (memory.root / "MANIFEST.md").read_text()
    with pytest.raises(DomainNotFound):
        memory.forget(domain="travel")


def test_a_conversation_is_refused_with_a_hint(memory, tmp_path):
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"messages": [{"role": "user", "content": "hi"}], "date": "2024-01-01"}]))
    lines = tmp_path / "chat.jsonl"
    lines.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n')
    locomo = Path(__file__).resolve().parents[1] / "analytical_bench" / "locomo" / "data" / "mini_locomo.json"
    for path in (chat, lines, locomo):
        with pytest.raises(InputError) as info:
            memory.import_records(path, domain="travel", collection="trips")
        assert "UserMemory.ingest()" in str(info.value)
    assert not (memory.root / "domains" / "travel").exists()


def test_a_collection_named_like_its_domain_is_reachable_as_written(memory, tmp_path):
    path = tmp_path / "medical.json"
    path.write_text(json.dumps([{"doctor": "Lee", "cost": 40}, {"doctor": "Kim", "cost": 60}]))
    memory.import_records(path, domain="medical", collection="medical")
    memory.import_records(path, domain="medical", collection="bills")
    state_py = (memory.root / "domains" / "medical" / "state.py").read_text()
    assert "medical: list[Medical]" in state_py
    code = (
        "result = [len(medical), sum(v.cost for v in medical), medical[0].doctor, len(medical.medical),"
        " len(medical.bills), len(bills), [v.doctor for v in sorted(medical, key=lambda v: v.cost)]]"
    )
    run = memory.run(code).to_json()
    assert run["ok"], run["error"]
    assert run["result"] == [2, 100, "Lee", 2, 2, 2, ["Lee", "Kim"]]
    blocked = memory.run("medical.append(1)").to_json()
    assert not blocked["ok"] and "read-only" in blocked["error"]["message"]
