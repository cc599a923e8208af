"""The saved fact table answers validity and event dates exactly as the folded log."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.facts import table as table_module
from uac.facts.log import FactLog, Supersession
from uac.facts.model import Fact
from uac.facts.table import read_fact_table
from uac.packed import read_pack

SPEAKERS = {1: "Ana", 2: "Ben", 3: None}
DAYS = [
    None,
    dt.date(2022, 12, 31),
    dt.date(2023, 1, 5),
    dt.date(2023, 2, 1),
    dt.date(2023, 3, 10),
    dt.date(2024, 1, 1),
]


def _session(log: FactLog, number: int, day: dt.date, supersede: list[tuple[str, dt.date | None]] = ()) -> list[Fact]:
    sid = f"s{number}"
    facts = [
        Fact(
            f"{sid}-f{i}",
            f"fact {i} of {sid}",
            sid,
            day,
            (f"D{number}:{i}",),
            SPEAKERS[i],
            event_date=day - dt.timedelta(days=i) if i % 2 else None,
            valid_from=day if i == 1 else None,
        )
        for i in range(1, 4)
    ]
    sups = [Supersession(old, facts[0].id, when, sid) for old, when in supersede]
    log.append_session(sid, facts, sups)
    return facts


def _assert_same(table, log: FactLog) -> None:
    state = log.read()
    assert len(table) == len(state.facts)
    for fact in state.facts.values():
        for day in DAYS:
            assert table.is_valid_at(fact.id, day) == fact.is_valid_at(day), (fact, day)
        assert table.event_date(fact.id) == fact.event_date
        assert table.speaker_of(fact.id) == fact.speaker
    assert not table.is_valid_at("no-such-fact", None) and table.event_date("no-such-fact") is None
    assert table.speaker_of("no-such-fact") is None
    assert table.good_bytes == state.good_bytes and table.digest == state.digest


@pytest.fixture
def paths(tmp_path):
    return tmp_path / "facts.jsonl", tmp_path / "log-table.npz"


def test_the_table_equals_the_fold_and_is_extended_after_appends(paths, monkeypatch):
    log_path, table_path = paths
    log = FactLog(log_path)
    _session(log, 1, dt.date(2023, 1, 1))
    _session(log, 2, dt.date(2023, 2, 1), supersede=[("s1-f2", dt.date(2023, 2, 1))])
    _assert_same(read_fact_table(log_path, table_path), log)

    folded: list[int] = []
    real = table_module.parse_log
    monkeypatch.setattr(table_module, "parse_log", lambda data, path: folded.append(len(data)) or real(data, path))
    # a later session supersedes a fact of the first one, with and without an end date
    _session(log, 3, dt.date(2023, 3, 1), supersede=[("s1-f3", dt.date(2023, 3, 1)), ("s2-f2", None)])
    before = log_path.stat().st_size
    table = read_fact_table(log_path, table_path)
    _assert_same(table, log)
    assert len(folded) == 1 and folded[0] < before / 2  # only the appended bytes were folded
    # unchanged log: no folding at all, in this process or a new one
    assert read_fact_table(log_path, table_path).digest == table.digest and len(folded) == 1


def test_a_rewritten_log_is_folded_afresh(paths):
    log_path, table_path = paths
    log = FactLog(log_path)
    for number in range(1, 4):
        _session(log, number, dt.date(2023, number, 1))
    read_fact_table(log_path, table_path)
    log.rewrite(lambda record: record.get("session_id") != "s2")  # what forget does
    table = read_fact_table(log_path, table_path)
    _assert_same(table, log)
    assert "s2-f1" not in table and "s3-f1" in table


def test_a_changed_prefix_is_not_trusted(paths):
    log_path, table_path = paths
    log = FactLog(log_path)
    _session(log, 1, dt.date(2023, 1, 1))
    read_fact_table(log_path, table_path)
    saved = table_module.FactTable.load(table_path)
    saved.digest = "0" * 64  # as if the bytes it was folded from had been edited in place
    saved.stamp = (0, 0, saved.stamp[2])
    saved.save(table_path)
    _session(log, 2, dt.date(2023, 2, 1))
    _assert_same(read_fact_table(log_path, table_path), log)


def test_an_unfinished_tail_is_left_out_like_the_log_does(paths):
    log_path, table_path = paths
    log = FactLog(log_path)
    _session(log, 1, dt.date(2023, 1, 1))
    read_fact_table(log_path, table_path)
    with open(log_path, "ab") as handle:
        handle.write(b'{"kind":"fact","id":"torn')
    table = read_fact_table(log_path, table_path)
    _assert_same(table, log)
    assert "torn" not in table


def test_an_empty_project(paths):
    log_path, table_path = paths
    table = read_fact_table(log_path, table_path)
    assert len(table) == 0 and not table.is_valid_at("x", None)


def test_the_saved_table_holds_the_ids_then_each_column_as_int32(paths):
    log_path, table_path = paths
    log = FactLog(log_path)
    _session(log, 1, dt.date(2023, 1, 5))
    table = read_fact_table(log_path, table_path)
    pack = read_pack(table_path, table_module.KIND, table_module.FORMAT)
    assert list(pack.arrays) == ["ids", *table_module.COLUMNS]
    for name in table_module.COLUMNS:
        assert pack[name].dtype.name == "int32" and list(pack[name]) == list(getattr(table, name)), name
    again = table_module.FactTable.load(table_path)
    _assert_same(again, log)
