"""The search index of imported records: a damaged one never breaks a search, doctor
finds it and --repair makes it again; import-records and forget --domain change the
view, the manifest and the index whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uac.errors import RuntimeFailure
from uac.index.record_index import RecordIndex
from uac.view import manifest

ROWS = [{"city": "Kyoto", "nights": 7}, {"city": "Lisbon", "nights": 3}]
MORE = ROWS + [{"city": "Reykjavik", "nights": 4}]


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text(json.dumps(rows), "utf-8")
    return path


def _view(root: Path) -> dict[str, bytes]:
    """The view and the manifest, byte for byte."""
    files = {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "domains").rglob("*")) if p.is_file()}
    return files | {"MANIFEST.md": (root / "MANIFEST.md").read_bytes()}


def _cities(memory) -> set[str]:
    hits = memory.search("city", channel="records", k=20)
    return {h.text.split("city ")[1].split(",")[0] for h in hits if h.record["collection"] == "trips"}


def _edit_corpus(root: Path, edit) -> None:
    """Change records.jsonl and record the changed file as the one the index was written
    with: the index claims to be in step with the view."""
    index = root / ".uac" / "index"
    corpus = index / "records.jsonl"
    corpus.write_text(edit(corpus.read_text("utf-8")), "utf-8")
    meta = json.loads((index / "records.json").read_text())
    st = corpus.stat()
    meta["corpus"] = [st.st_size, st.st_mtime_ns, st.st_ino]
    (index / "records.json").write_text(json.dumps(meta))


def _damage(root: Path) -> None:
    """A line of records.jsonl cut in two (what a reader that split lines at U+2028 met)."""
    _edit_corpus(root, lambda text: text.replace('"text": "', '"text": "\n', 1))


@pytest.fixture
def imported(memory, tmp_path):
    memory.import_records(_write(tmp_path / "trips.json", ROWS), domain="travel", collection="trips")
    assert _cities(memory) == {"Kyoto", "Lisbon"}
    return memory


@pytest.mark.embeddings
def test_a_search_over_a_damaged_records_index_rebuilds_it(imported):
    _damage(imported.root)
    imported.project.kept.clear()  # a new process: nothing of the index in memory
    assert _cities(imported) == {"Kyoto", "Lisbon"}
    assert imported.doctor().check("records_index").status == "ok"


@pytest.mark.embeddings
def test_doctor_finds_a_damaged_records_index_and_repair_rebuilds_it(imported):
    _damage(imported.root)
    imported.project.kept.clear()
    report = imported.doctor()
    check = report.check("records_index")
    assert (
        not report.ok and check.status == "fail" and "records.jsonl line" in check.detail and "--repair" in check.detail
    )
    repaired = imported.doctor(repair=True).check("records_index")
    assert repaired.status == "ok" and repaired.repaired and "records.jsonl" in repaired.repaired
    assert imported.doctor().ok and _cities(imported) == {"Kyoto", "Lisbon"}


@pytest.mark.embeddings
def test_deep_doctor_finds_records_the_view_no_longer_holds(imported):
    _edit_corpus(imported.root, lambda text: text.replace("Kyoto", "Nara"))
    imported.project.kept.clear()
    check = imported.doctor(deep=True).check("records_index")
    assert check.status == "fail" and "text is not the view's" in check.detail
    assert imported.doctor(repair=True).check("records_index").status == "ok"
    assert _cities(imported) == {"Kyoto", "Lisbon"}


def _fail(*_args, **_kwargs):
    raise RuntimeFailure("the disk is full")


@pytest.mark.embeddings
@pytest.mark.parametrize("where", ["index", "manifest"])
def test_a_failed_import_changes_nothing(imported, tmp_path, monkeypatch, where):
    before = _view(imported.root)
    # the step after the swap fails: writing the records index, or rendering the manifest
    monkeypatch.setattr(*((RecordIndex, "write", _fail) if where == "index" else (manifest, "_count_lines", _fail)))
    with pytest.raises(RuntimeFailure):
        imported.import_records(_write(tmp_path / "trips.json", MORE), domain="travel", collection="trips")
    with pytest.raises(RuntimeFailure):
        imported.import_records(_write(tmp_path / "food.json", [{"dish": "ramen"}]), domain="food", collection="meals")
    monkeypatch.undo()
    assert _view(imported.root) == before
    assert _cities(imported) == {"Kyoto", "Lisbon"} and [d for d in imported.state] == ["travel"]
    # and the same import then goes through whole
    assert imported.import_records(tmp_path / "trips.json", domain="travel", collection="trips").records_added == 1
    assert _cities(imported) == {"Kyoto", "Lisbon", "Reykjavik"}


@pytest.mark.embeddings
@pytest.mark.parametrize("collection", [None, "trips"])
def test_a_failed_forget_of_imported_records_changes_nothing(imported, tmp_path, monkeypatch, collection):
    imported.import_records(_write(tmp_path / "stays.json", [{"hotel": "Ryokan"}]), domain="travel", collection="stays")
    before = _view(imported.root)
    monkeypatch.setattr(RecordIndex, "write", _fail)
    with pytest.raises(RuntimeFailure):
        imported.forget(domain="travel", collection=collection)
    monkeypatch.undo()
    assert _view(imported.root) == before
    assert _cities(imported) == {"Kyoto", "Lisbon"}
    imported.forget(domain="travel", collection=collection)
    assert _cities(imported) == set()


def test_nothing_to_index_is_no_lag(memory):
    check = memory.doctor().check("records_index")
    assert (
        check.status == "ok"
        and "behind" not in check.detail
        and memory.doctor(repair=True).check("records_index").repaired is None
    )
