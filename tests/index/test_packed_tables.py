"""The packed form of the saved search tables (``uac.packed``), and projects whose
tables an earlier version saved as ``.npz``: still read, converted on first use."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from uac import packed
from uac.facts import table as table_module
from uac.facts.table import FactTable
from uac.index import bm25 as bm25_module
from uac.index.bm25 import BM25
from uac.index.corpus import CorpusTable
from uac.memory import UserMemory


def test_arrays_come_back_as_written_small_and_large(tmp_path):
    small = {
        "a": np.arange(5, dtype=np.int64),
        "b": np.array([1.5, 2.5], dtype=np.float32),
        "text": packed.text_array(["x", "ü"]),
        "empty": np.zeros(0, dtype=np.int32),
    }
    packed.write_pack(tmp_path / "s.pack", "k", 3, small, {"stamp": [1, 2, 3]})
    got = packed.read_pack(tmp_path / "s.pack", "k", 3)
    assert got is not None and got.meta == {"stamp": [1, 2, 3]}
    for name, array in small.items():
        assert got[name].dtype == array.dtype and np.array_equal(got[name], array)
    assert json.loads(got.text("text")) == ["x", "ü"]
    big = {"m": np.arange(3 * packed.READ_LIMIT, dtype=np.int32).reshape(-1, 4)}
    packed.write_pack(tmp_path / "b.pack", "k", 3, big)
    fds = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    large = packed.read_pack(tmp_path / "b.pack", "k", 3)
    assert large is not None and np.array_equal(large["m"], big["m"])
    if fds is not None:
        assert len(os.listdir("/proc/self/fd")) == fds  # nothing stays open while the arrays live
    with pytest.raises(ValueError):
        large["m"][0, 0] = 1  # read-only
    packed.write_pack(tmp_path / "c.pack", "k", 3, {**big, "small": np.arange(3)})
    partial = packed.read_pack(tmp_path / "c.pack", "k", 3, skip=("m",))
    assert partial is not None and "m" not in partial.arrays and list(partial["small"]) == [0, 1, 2]


def test_another_kind_format_or_a_damaged_file_reads_as_none(tmp_path):
    path = tmp_path / "t.pack"
    packed.write_pack(path, "k", 1, {"a": np.arange(100, dtype=np.int64)})
    assert packed.read_pack(path, "other", 1) is None
    assert packed.read_pack(path, "k", 2) is None
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 200])  # cut short: an array would run past the end
    assert packed.read_pack(path, "k", 1) is None
    path.write_bytes(b"UACPACK1" + b"\xff" * 40)
    assert packed.read_pack(path, "k", 1) is None
    assert packed.read_pack(tmp_path / "missing.pack", "k", 1) is None


# -- the .npz files of earlier versions, written as those versions wrote them ----------------


def _npz(path: Path, **arrays) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _strings(values) -> np.ndarray:
    return np.frombuffer(json.dumps(values).encode("utf-8"), dtype=np.uint8)


def _legacy_corpus(table: CorpusTable, path: Path) -> None:
    _npz(
        path,
        format=np.array([1], dtype=np.int64),
        stamp=np.array(table.stamp, dtype=np.int64),
        ids=_strings(table.ids),
        ordinals=np.array(table.ordinals, dtype=np.int64),
        sessions=_strings(table.sessions),
        turns=_strings(table.turns),
        turn_offsets=np.array(table.turn_offsets, dtype=np.int64),
        offsets=np.array(table.offsets, dtype=np.int64),
    )


def _legacy_bm25(index: BM25, path: Path) -> None:
    indptr, docs, values = index._scores_matrix()
    _npz(
        path,
        format=np.array([1], dtype=np.int64),
        stamp=np.array(index.stamp, dtype=np.int64),
        vocab=_strings(index.vocab),
        doc_tokens=index.doc_tokens,
        doc_offsets=index.doc_offsets,
        indptr=indptr,
        docs=docs,
        values=values,
    )


def _legacy_facts(table: FactTable, path: Path) -> None:
    _npz(
        path,
        format=np.array([2], dtype=np.int64),
        stamp=np.array(table.stamp, dtype=np.int64),
        good_bytes=np.array([table.good_bytes], dtype=np.int64),
        digest=np.array([table.digest]),
        ids=_strings(table.ids),
        start=np.array(table.start, dtype=np.int32),
        end=np.array(table.end, dtype=np.int32),
        event=np.array(table.event, dtype=np.int32),
        event_end=np.array(table.event_end, dtype=np.int32),
    )


@pytest.mark.embeddings
def test_a_project_with_npz_tables_searches_the_same_and_is_converted(tmp_path, monkeypatch, one_session_memory):
    memory = one_session_memory(
        "I adopted a golden retriever named Rex yesterday.", "I also booked a trip to Lisbon for June."
    )
    queries = ["dog", "Lisbon trip", "what did I adopt"]
    expected = [[h.to_json() for h in memory.search(q, k=5)] for q in queries]
    index_dir = memory.root / ".uac" / "index"
    # turn the project into one saved by the earlier version: .npz tables only
    for channel in ("facts", "archive"):
        ci = memory.index.channel(channel)
        _legacy_corpus(CorpusTable.load(index_dir / f"{channel}.corpus.pack"), index_dir / f"{channel}.corpus.npz")
        _legacy_bm25(ci.bm25(), index_dir / f"{channel}.bm25.npz")
    _legacy_facts(FactTable.load(index_dir / "log-table.pack"), index_dir / "log-table.npz")
    memory.close()
    for path in index_dir.glob("*.pack"):
        path.unlink()
    assert all(zipfile.is_zipfile(p) for p in index_dir.glob("*.npz")) and len(list(index_dir.glob("*.npz"))) == 5

    # the old corpus tables are read, not parsed again (the fact table of format 2 has
    # no speakers: the log is folded again once; the old BM25 files were built with an
    # earlier tokenizer, and BM25 alone is built again)
    def refuse(*args, **kwargs):
        raise AssertionError("parsed instead of read")

    monkeypatch.setattr(CorpusTable, "read_lines", refuse)
    reopened = UserMemory.open(tmp_path / "p")
    assert [[h.to_json() for h in reopened.search(q, k=5)] for q in queries] == expected
    reopened.close()
    assert sorted(p.name for p in index_dir.glob("*.npz")) == []
    assert sorted(p.name for p in index_dir.glob("*.pack")) == [
        "archive.bm25.pack",
        "archive.corpus.pack",
        "facts.bm25.pack",
        "facts.corpus.pack",
        "log-table.pack",
    ]
    assert all(packed.is_pack(p) for p in index_dir.glob("*.pack"))
    assert bm25_module.FORMAT == 2 and table_module.FORMAT == 4
    # and once more from the packed files
    again = UserMemory.open(tmp_path / "p")
    assert [[h.to_json() for h in again.search(q, k=5)] for q in queries] == expected
    again.close()
