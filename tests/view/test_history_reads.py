"""Reading a long change log: a range reads only its bytes (the segment index), the facts'
sentences are read without folding the fact log, the text listing is bounded and the
JSON one complete and streamed."""

from __future__ import annotations

import datetime as dt
import io
import json
import random

import pytest
from typer.testing import CliRunner

from uac.changelog import stream_history
from uac.cli import app
from uac.facts.log import FactLog
from uac.facts.lookup import FactLookup
from uac.facts.model import Fact
from uac.memory import UserMemory
from uac.view import change_index, changes
from uac.view.change_index import ChangeRange

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
DOMAINS = ["travel", "work", "food"]


def build(root, compiles=60, per_compile=5, segment=100, seed=3):
    """A project whose log has ``compiles`` compiles (one an hour) of ``per_compile``
    changes, each citing facts of a session of the fact log; segments of ``segment``."""
    UserMemory.create(root, user_name="Ann")
    memory = UserMemory.open(root)
    facts = memory.context.fact_log()
    head = facts.head()
    for c in range(compiles):
        sid = f"s-c{c:03d}"
        head = facts.append_session(
            sid,
            [Fact(f"{sid}-f{n}", f"Ann said thing {c}.{n}.", sid, START.date()) for n in (1, 2)],
            session_hash=sid,
            base=head,
        )
    rnd = random.Random(seed)
    state = changes.read_state(memory.project)
    old = changes.SEGMENT_CHANGES
    changes.SEGMENT_CHANGES = segment
    try:
        for c in range(compiles):
            seq = state["next_seq"]
            state["next_seq"] = seq + 1
            at = (START + dt.timedelta(hours=c)).isoformat(timespec="seconds")
            lines = [
                changes.Change(
                    seq,
                    at,
                    "incremental",
                    rnd.choice(DOMAINS),
                    "items",
                    f"r-{c}-{k}",
                    "added",
                    None,
                    None,
                    {"id": f"r-{c}-{k}", "n": k},
                    [f"s-c{c:03d}-f{1 + k % 2}"],
                ).to_json()
                for k in range(per_compile)
            ]
            changes.write_lines(memory.project, state, lines)
    finally:
        changes.SEGMENT_CHANGES = old
    changes._write_state(memory.project, state)
    return memory


def keys(read):
    return [(c.seq, c.record) for c in read.changes]


def test_a_range_reads_only_the_bytes_of_its_compiles(tmp_path):
    memory = build(tmp_path / "ann")
    project = memory.project
    everything = changes.read_changes(project)
    assert everything.total == 300 and everything.damaged == 0
    # garble every line before compile 50 of the last segment, keeping their length: a
    # range after them never reads them (and so never counts them as damaged)
    segment = changes.segment_paths(project)[-1]
    runs = change_index.read_runs(segment, segment.stat().st_size)
    cut = next(r[2] for r in runs if r[0] == 50)
    data = segment.read_bytes()
    garbled = b"".join(b"x" * (len(line) - 1) + b"\n" for line in data[:cut].splitlines(keepends=True))
    segment.write_bytes(garbled + data[cut:])
    since = changes.read_changes(project, ChangeRange(since_seq=49))
    assert since.damaged == 0 and keys(since) == [k for k in keys(everything) if k[0] > 49]
    at = (START + dt.timedelta(hours=49)).isoformat(timespec="seconds")
    assert keys(changes.read_changes(project, ChangeRange(since_at=at))) == keys(since)
    garbled_lines = data[:cut].count(b"\n")
    assert changes.read_changes(project).damaged == garbled_lines  # a full read meets them
    last = changes.read_changes(project, tail=5)  # and so does a count of the whole log
    assert (last.total, last.damaged) == (300 - garbled_lines, garbled_lines) and keys(last) == keys(everything)[-5:]


def _read(project, query: dict, **more):
    """``read_changes`` with the bounds and the filters of ``query``."""
    filters = {k: v for k, v in query.items() if k in ("domain", "record")}
    within = ChangeRange(**{k: v for k, v in query.items() if k not in filters})
    return changes.read_changes(project, within, **filters, **more)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ranges_through_the_index_are_those_of_a_full_read(tmp_path, seed):
    memory = build(tmp_path / "ann", seed=seed)
    project = memory.project
    rnd = random.Random(seed)
    queries = []
    for _ in range(25):
        a, b = sorted(rnd.sample(range(0, 62), 2))
        moment = (START + dt.timedelta(hours=rnd.randrange(62), minutes=rnd.choice([0, 30]))).isoformat(
            timespec="seconds"
        )
        queries.append(
            rnd.choice(
                [
                    {"since_seq": a},
                    {"until_seq": b},
                    {"since_seq": a, "until_seq": b},
                    {"since_at": moment},
                    {"until_at": moment},
                    {"since_seq": a, "domain": "work"},
                    {"since_at": moment, "record": "r-40-1"},
                ]
            )
        )
    indexed = [_read(project, q) for q in queries]
    tails = [_read(project, q, tail=7) for q in queries]
    for index in tmp_path.rglob("changes-*.idx"):
        index.unlink()
    for q, fast, tail in zip(queries, indexed, tails):
        whole = _read(project, q)
        assert keys(fast) == keys(whole), q
        assert tail.total == whole.total and keys(tail) == keys(whole)[-7:], q


def test_an_index_that_does_not_describe_its_segment_is_not_trusted(tmp_path):
    memory = build(tmp_path / "ann")
    project = memory.project
    expected = keys(changes.read_changes(project, ChangeRange(since_seq=55)))
    segment = changes.segment_paths(project)[-1]
    # a line put in by hand at the front: every offset of the index is off
    first = segment.read_bytes().splitlines(keepends=True)[0]
    segment.write_bytes(first + segment.read_bytes())
    got = changes.read_changes(project, ChangeRange(since_seq=55))
    assert keys(got) == expected and got.damaged == 0
    assert "changes-000003.jsonl" in changes.check(project, {}).unindexed


def test_lines_the_index_missed_are_read_and_the_next_write_indexes_them(tmp_path):
    """A crash after a segment's append and before its index line: the lines after the
    index are read one by one; the next append writes the index again."""
    memory = build(tmp_path / "ann")
    project = memory.project
    segment = changes.segment_paths(project)[-1]
    index = change_index.index_path(segment)
    index.write_bytes(b"".join(index.read_bytes().splitlines(keepends=True)[:-2]))
    assert [k[0] for k in keys(changes.read_changes(project, ChangeRange(since_seq=57)))] == [58] * 5 + [59] * 5 + [
        60
    ] * 5
    assert changes.read_changes(project, ChangeRange(since_seq=57), tail=3).total == 15
    state = changes.read_state(project)
    changes.write_lines(
        project,
        state,
        [
            changes.Change(
                61,
                "2026-01-04T00:00:00+00:00",
                "incremental",
                "food",
                "items",
                "r-x",
                "added",
                None,
                None,
                {"id": "r-x"},
                [],
            ).to_json()
        ],
    )
    runs = change_index.read_runs(segment, segment.stat().st_size)
    assert runs[-1][0] == 61 and runs[-1][3] == segment.stat().st_size
    assert changes.check(project, {}).unindexed == []


def test_sentences_are_read_without_folding_the_fact_log(tmp_path, monkeypatch):
    memory = build(tmp_path / "ann")
    expected = [[s["text"] for s in e.to_json()["sentences"]] for e in memory.history(since="c55").changes]
    assert expected[0] == ["Ann said thing 55.1."]

    def no_fold(self):
        raise AssertionError("the whole fact log was folded")

    monkeypatch.setattr(FactLog, "read", no_fold)
    memory = UserMemory.open(tmp_path / "ann")
    got = [[s["text"] for s in e.to_json()["sentences"]] for e in memory.history(since="c55").changes]
    assert got == expected


def test_the_lookup_answers_as_the_fold_does(tmp_path):
    memory = build(tmp_path / "ann", compiles=12)
    log = memory.context.fact_log()
    folded = log.read().facts
    ids = list(folded) + ["s-c003-f9", "s-nope-f1", "odd-id"]
    from uac.facts import log as log_module

    log_module._CACHE.clear()
    found = FactLookup(log).get(ids)
    assert {k: (f.text, f.session_id) for k, f in found.items()} == {
        k: (f.text, f.session_id) for k, f in folded.items()
    }
    # a fact whose id names no session it is in: the lookup folds, and still finds it
    sid = "s-odd"
    log.append_session(sid, [Fact("lonely", "Ann has a lonely fact.", sid, START.date())], session_hash=sid)
    log_module._CACHE.clear()
    assert FactLookup(log).get(["lonely", "s-c001-f1"])["lonely"].text == "Ann has a lonely fact."


def test_the_text_listing_is_bounded_and_json_is_complete(tmp_path):
    build(tmp_path / "ann")
    root = str(tmp_path / "ann")
    runner = CliRunner()
    out = runner.invoke(app, ["history", root])
    assert out.exit_code == 0, out.output
    text = out.output.splitlines()
    assert text[0] == "(200 older changes in this range not shown; use --limit 300 to list them, or --json for all)"
    assert sum(1 for line in text if line.startswith("c")) == 100 and text[1].startswith("c41 ")
    assert (
        sum(
            1
            for line in runner.invoke(app, ["history", root, "--limit", "300"]).output.splitlines()
            if line.startswith("c")
        )
        == 300
    )
    streamed = runner.invoke(app, ["history", root, "--json"]).output
    memory = UserMemory.open(root)
    assert json.loads(streamed) == memory.history().to_json()
    assert json.loads(streamed)["total"] == 300
    assert json.loads(runner.invoke(app, ["history", root, "--json", "--limit", "5"]).output)["truncated"] is True


def test_the_stream_writes_what_the_report_says(tmp_path):
    memory = build(tmp_path / "ann", compiles=20)
    for query in ({}, {"since": "c4", "until": "c9"}, {"domain": "food"}, {"record": "r-7-2"}, {"since": "2999-01-01"}):
        out = io.StringIO()
        written = stream_history(memory.context, out.write, **query)
        expected = json.dumps(memory.history(**query).to_json(), ensure_ascii=False) + "\n"
        assert out.getvalue() == expected and written == json.loads(expected)["total"], query


def test_changed_domains_come_from_the_state(tmp_path):
    memory = build(tmp_path / "ann", compiles=10)
    assert memory.changed_domains() == sorted({c.change.domain for c in memory.history().changes})
    # a segment state.json does not describe (a crash before it was written) is read
    state = changes.read_state(memory.project)
    for meta in state["segments"]:
        meta.pop("domains")
    changes._write_state(memory.project, state)
    assert memory.changed_domains() == sorted({c.change.domain for c in memory.history().changes})


def test_a_compile_writes_the_state_once_and_a_stale_state_never_reuses_a_compile(project, monkeypatch):
    from .conftest import open_scripted, write_session

    writes = []
    real = changes._write_state
    monkeypatch.setattr(changes, "_write_state", lambda p, state: (writes.append(state["next_seq"]), real(p, state)))
    memory = open_scripted(project)
    memory.ingest(
        write_session(
            project.parent / "c.json",
            "2024-05-01",
            ["I flew to Oslo for a ski trip.", "I now work at Initech as a nurse."],
        ),
        extractor="rules",
    )
    assert memory.compile(mode="incremental").ok
    assert {c.change.domain for c in memory.history(since="c2").changes} >= {"travel", "work"}
    assert writes == [4]  # one write of state.json for the compile c3, whatever it wrote
    # a state.json left behind by a crash (or lost): the next compile number is still new
    state = changes.read_state(memory.project)
    state["next_seq"] = 2
    real(memory.project, state)
    assert changes.read_state(memory.project)["next_seq"] == 4


def test_a_change_range_holds_what_its_bounds_say():
    assert ChangeRange().holds(1, "2026-05-01T10:00:00+00:00")
    numbered = ChangeRange(since_seq=3, until_seq=5)
    assert [seq for seq in range(1, 8) if numbered.holds(seq, "")] == [4, 5]
    timed = ChangeRange(since_at="2026-05-02", until_at="2026-05-04")
    days = ["2026-05-01", "2026-05-02", "2026-05-03", "2026-05-04"]
    assert [at for at in days if timed.holds(1, at)] == ["2026-05-02", "2026-05-03"]
    assert changes.WHOLE_LOG == ChangeRange()
