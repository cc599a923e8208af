"""The corpus table agrees with the corpus file through appends, rewrites and damage."""

from __future__ import annotations

import json

import pytest

from uac.errors import StoreError
from uac.fsutil import read_utf8, split_lines
from uac.index import corpus as corpus_module
from uac.index.corpus import CorpusTable, read_corpus_table
from uac.index.entry import Entry


def _write(path, entries, mode="a"):
    with open(path, mode, encoding="utf-8") as handle:
        for e in entries:
            handle.write(json.dumps(e.to_json(), ensure_ascii=False) + "\n")


def _entries(start, n):
    return [
        Entry(
            f"e{i}",
            f"text {i} é",
            f"text {i}",
            f"s{i // 3}",
            f"2023-01-{1 + i % 28:02d}" if i % 5 else None,
            [f"D{i}:1", f"D{i}:2"][: 1 + i % 2],
        )
        for i in range(start, start + n)
    ]


def _assert_matches(table: CorpusTable, path):
    lines = [json.loads(line) for line in split_lines(read_utf8(path)) if line.strip()]
    assert table.ids == [r["id"] for r in lines]
    assert [table.evidence(i) for i in range(len(lines))] == [r["evidence"] for r in lines]
    assert list(table.sessions) == [r["session_id"] for r in lines]
    raw = path.read_bytes()
    for i, record in enumerate(lines):
        assert json.loads(raw[int(table.offsets[i]) : int(table.offsets[i + 1])]) == record
        assert (table.ordinals[i] == 0) == (record["session_date"] is None)


def _counting_reads(monkeypatch) -> list[int]:
    parsed: list[int] = []
    real = CorpusTable.read_lines
    monkeypatch.setattr(
        CorpusTable,
        "read_lines",
        lambda self, data, path, first_number=1: parsed.append(len(data)) or real(self, data, path, first_number),
    )
    return parsed


def test_appends_extend_the_table(tmp_path, monkeypatch):
    corpus, saved = tmp_path / "facts.jsonl", tmp_path / "facts.corpus.npz"
    _write(corpus, _entries(0, 10))
    _assert_matches(read_corpus_table(corpus, saved), corpus)
    _write(corpus, _entries(10, 5))
    parsed = _counting_reads(monkeypatch)
    table = read_corpus_table(corpus, saved)
    _assert_matches(table, corpus)
    assert len(parsed) == 1 and parsed[0] < corpus.stat().st_size / 2  # only the new lines


def test_a_few_appended_lines_do_not_rewrite_the_table(tmp_path, monkeypatch):
    """The saved table stays as it was; each load reads just the appended lines,
    until more than SAVE_AFTER_LINES have built up."""
    corpus, saved = tmp_path / "facts.jsonl", tmp_path / "facts.corpus.npz"
    _write(corpus, _entries(0, 10))
    read_corpus_table(corpus, saved)
    first_save = saved.stat().st_mtime_ns, saved.read_bytes()
    _write(corpus, _entries(10, 5))
    parsed = _counting_reads(monkeypatch)
    for _ in range(2):
        _assert_matches(read_corpus_table(corpus, saved), corpus)
    assert (saved.stat().st_mtime_ns, saved.read_bytes()) == first_save
    assert len(parsed) == 2 and parsed[0] == parsed[1] < corpus.stat().st_size / 2
    monkeypatch.setattr(corpus_module, "SAVE_AFTER_LINES", 4)
    _assert_matches(read_corpus_table(corpus, saved), corpus)  # 5 new lines: saved now
    assert saved.read_bytes() != first_save[1]
    _assert_matches(read_corpus_table(corpus, saved), corpus)
    assert len(parsed) == 3  # nothing left to read


def test_a_rewrite_is_read_afresh(tmp_path):
    corpus, saved = tmp_path / "facts.jsonl", tmp_path / "facts.corpus.npz"
    _write(corpus, _entries(0, 12))
    read_corpus_table(corpus, saved)
    tmp = tmp_path / "new.jsonl"
    _write(tmp, _entries(3, 4), mode="w")
    tmp.replace(corpus)
    _assert_matches(read_corpus_table(corpus, saved), corpus)


def test_a_file_that_is_not_the_one_extended_is_read_afresh(tmp_path):
    corpus, saved = tmp_path / "facts.jsonl", tmp_path / "facts.corpus.npz"
    _write(corpus, _entries(0, 6))
    read_corpus_table(corpus, saved)
    # same inode, but the bytes where the table's last line was are another entry now
    with open(corpus, "r+", encoding="utf-8") as handle:
        handle.seek(0)
        handle.truncate()
        for e in _entries(40, 9):
            handle.write(json.dumps(e.to_json()) + "\n")
    _assert_matches(read_corpus_table(corpus, saved), corpus)


def test_a_damaged_line_names_the_file_and_line(tmp_path):
    corpus = tmp_path / "facts.jsonl"
    _write(corpus, _entries(0, 3))
    with open(corpus, "a") as handle:
        handle.write("{not json}\n")
    with pytest.raises(StoreError, match=r"facts.jsonl:4 is damaged"):
        read_corpus_table(corpus, tmp_path / "t.npz")


def test_a_line_being_written_is_left_for_later(tmp_path):
    corpus, saved = tmp_path / "facts.jsonl", tmp_path / "facts.corpus.npz"
    _write(corpus, _entries(0, 3))
    with open(corpus, "a") as handle:
        handle.write('{"id": "half')
    table = read_corpus_table(corpus, saved)
    assert table.ids == ["e0", "e1", "e2"] and table.stamp[0] == -2  # used once, not saved as current
    assert not saved.exists() or CorpusTable.load(saved).stamp != corpus_module.file_stamp(corpus)


def test_an_add_leaves_the_channel_as_a_fresh_load_would(tmp_path):
    """ChannelIndex.add takes its own lines into the loaded table instead of reading
    the corpus again: rows, order, entries, dates, evidence and the flat copy agree
    with a channel opened afresh, after several adds and an upsert of an old id."""
    import numpy as np

    from uac.index.store import MemoryIndex

    rng = np.random.default_rng(3)

    def vectors(n):
        v = rng.normal(size=(n, 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    index = MemoryIndex(tmp_path / ".uac")
    channel = index.channel("facts")
    channel.add(_entries(0, 30), vectors(30))
    channel.add(_entries(30, 7), vectors(7))
    channel.add(_entries(37, 2) + _entries(5, 1), vectors(3))  # e5 again: its newer line wins
    fresh = MemoryIndex(tmp_path / ".uac").channel("facts")
    assert channel.rows.line_ids == fresh.rows.line_ids and channel.rows.order == fresh.rows.order
    assert channel.rows.row_of == fresh.rows.row_of and channel.rows.row_of["e5"] == 39
    assert [channel.entry(i).to_json() for i in channel.rows.order] == [
        fresh.entry(i).to_json() for i in fresh.rows.order
    ]
    assert list(channel.rows.table.ordinals) == list(fresh.rows.table.ordinals)
    assert [channel.rows.table.evidence(r) for r in range(40)] == [fresh.rows.table.evidence(r) for r in range(40)]
    assert channel.vectors.in_step() and fresh.vectors.in_step()
    query = vectors(1)[0]
    assert channel.dense(query, 10) == fresh.dense(query, 10)
    assert channel.lexical(["38"], 3) == fresh.lexical(["38"], 3) == ["e38"]
    index.close()


def test_lines_added_before_and_after_the_saved_sessions_are_decoded_keep_their_order(tmp_path):
    corpus, saved = tmp_path / "facts.jsonl", tmp_path / "facts.corpus.npz"
    _write(corpus, _entries(0, 10))
    read_corpus_table(corpus, saved)
    _write(corpus, _entries(10, 5))
    table = read_corpus_table(corpus, saved)  # the saved 10 still encoded, 5 lines added to them
    _write(corpus, _entries(15, 2))
    table.read_lines(corpus.read_bytes()[int(table.offsets[-1]) :], corpus)  # 2 more, still before decoding
    assert table.sessions[-3:] == ["s4", "s5", "s5"] and table.evidence(16) == ["D16:1"]
    _write(corpus, _entries(17, 3))
    table.read_lines(corpus.read_bytes()[int(table.offsets[-1]) :], corpus)  # after decoding
    _assert_matches(table, corpus)
