"""The append-only fact log: commit units, checksums, torn tails, supersession."""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from uac.errors import StoreError
from uac.facts.log import FactLog, Supersession, encode_record
from uac.facts.model import Fact
from uac.fsutil import read_utf8, split_lines

DAY = dt.date(2023, 5, 8)


def make_facts(session_id: str, n: int, day: dt.date = DAY) -> list[Fact]:
    return [
        Fact(f"{session_id}-f{i}", f"fact {i} of {session_id}", session_id, day, (f"D1:{i}",), valid_from=day)
        for i in range(1, n + 1)
    ]


def test_append_and_read_back(tmp_path):
    log = FactLog(tmp_path / "facts.jsonl")
    log.append_session("s1", make_facts("s1", 3), session_hash="abc")
    state = FactLog(tmp_path / "facts.jsonl").read()
    assert list(state.facts) == ["s1-f1", "s1-f2", "s1-f3"]
    assert state.facts["s1-f2"].evidence == ("D1:2",)
    assert state.sessions["s1"]["facts"] == 3
    lines = split_lines(read_utf8(tmp_path / "facts.jsonl"))
    assert len(lines) == 4
    first = json.loads(lines[0])
    for key in (
        "id",
        "text",
        "session_id",
        "session_date",
        "evidence",
        "valid_from",
        "invalid_at",
        "superseded_by",
        "checksum",
    ):
        assert key in first
    assert json.loads(lines[-1])["kind"] == "commit"


def test_duplicate_session_refused(tmp_path):
    log = FactLog(tmp_path / "facts.jsonl")
    log.append_session("s1", make_facts("s1", 1))
    with pytest.raises(StoreError, match="already"):
        log.append_session("s1", make_facts("s1", 1))


def test_torn_last_line_is_dropped_then_truncated(tmp_path, caplog):
    path = tmp_path / "facts.jsonl"
    log = FactLog(path)
    log.append_session("s1", make_facts("s1", 2))
    good = path.read_bytes()
    torn = encode_record({"kind": "fact", **make_facts("s9", 1)[0].to_json()})[:60]
    path.write_bytes(good + torn)
    with caplog.at_level(logging.WARNING):
        state = FactLog(path).read()
    assert "incomplete" in caplog.text
    assert list(state.facts) == ["s1-f1", "s1-f2"]
    assert "incomplete" in state.dropped
    # the next write truncates the torn bytes first
    FactLog(path).append_session("s2", make_facts("s2", 1))
    data = path.read_bytes()
    assert data.startswith(good) and torn not in data
    assert list(FactLog(path).read().facts) == ["s1-f1", "s1-f2", "s2-f1"]


def test_uncommitted_session_is_ignored(tmp_path):
    path = tmp_path / "facts.jsonl"
    FactLog(path).append_session("s1", make_facts("s1", 1))
    with open(path, "ab") as handle:  # a writer died after its fact lines, before its commit
        for fact in make_facts("s2", 2):
            handle.write(encode_record({"kind": "fact", **fact.to_json()}))
    state = FactLog(path).read()
    assert list(state.facts) == ["s1-f1"]
    assert "uncommitted" in state.dropped and "s2" in state.dropped
    assert not FactLog(path).has_session("s2")


def test_corrupt_middle_line_is_an_error_naming_the_line(tmp_path):
    path = tmp_path / "facts.jsonl"
    log = FactLog(path)
    log.append_session("s1", make_facts("s1", 2))
    log.append_session("s2", make_facts("s2", 1))
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b"fact 2", b"fact X")  # checksum no longer matches
    path.write_bytes(b"\n".join(lines))
    with pytest.raises(StoreError, match="line 2 is corrupt"):
        FactLog(path).read()
    assert FactLog(path).line_problems() == ["line 2: checksum mismatch"]


def test_corrupt_last_line_is_treated_as_torn(tmp_path):
    path = tmp_path / "facts.jsonl"
    FactLog(path).append_session("s1", make_facts("s1", 1))
    path.write_bytes(path.read_bytes() + b'{"kind": "fact", "garbage\n')
    state = FactLog(path).read()
    assert list(state.facts) == ["s1-f1"] and "corrupt" in state.dropped


def test_supersession_folds_without_rewriting(tmp_path):
    path = tmp_path / "facts.jsonl"
    log = FactLog(path)
    old = make_facts("s1", 1)[0]
    log.append_session("s1", [old])
    before = path.read_bytes()
    new_day = dt.date(2023, 6, 1)
    new = Fact("s2-f1", "Caroline lives in Boston.", "s2", new_day, ("D2:1",), valid_from=new_day)
    log.append_session("s2", [new], [Supersession(old.id, new.id, new_day, "s2")])
    assert path.read_bytes().startswith(before)  # the old line is untouched
    state = FactLog(path).read()
    folded = state.facts[old.id]
    assert folded.invalid_at == new_day and folded.superseded_by == "s2-f1"
    assert folded.is_valid_at(dt.date(2023, 5, 20)) and not folded.is_valid_at(dt.date(2023, 6, 2))
    assert not folded.is_valid_at(None)


def test_rewrite_keeps_committed_records(tmp_path):
    path = tmp_path / "facts.jsonl"
    log = FactLog(path)
    log.append_session("s1", make_facts("s1", 3))
    state = log.rewrite(lambda r: r.get("id") != "s1-f2")
    assert list(state.facts) == ["s1-f1", "s1-f3"]
    assert b"fact 2 of s1" not in path.read_bytes()


WRITER = textwrap.dedent(
    """
    import datetime as dt, sys
    from pathlib import Path
    from uac.facts.log import FactLog
    from uac.facts.model import Fact
    from uac.lock import project_lock

    path = Path(sys.argv[1])
    log = FactLog(path)
    day = dt.date(2023, 5, 8)
    n = 0
    print("ready", flush=True)
    while True:
        n += 1
        sid = f"s{n}"
        facts = [Fact(f"{sid}-f{i}", "x" * 400 + f" fact {i}", sid, day, (f"D{n}:{i}",), valid_from=day)
                 for i in range(3000)]
        with project_lock(path.parent / "lock", purpose="test writer"):
            log.append_session(sid, facts)
    """
)


def test_kill_9_mid_write_leaves_a_readable_log(tmp_path):
    """A real writer process is killed at arbitrary moments; whatever it left behind
    reads as whole sessions only, and the next writer continues cleanly.  The loop
    runs until at least one kill landed inside a session's write."""
    path = tmp_path / "facts.jsonl"
    script = tmp_path / "writer.py"
    script.write_text(WRITER, "utf-8")
    interrupted = 0
    for attempt in range(12):
        proc = subprocess.Popen([sys.executable, str(script), str(path)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3 + 0.11 * attempt)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        state = FactLog(path).read()
        interrupted += state.dropped is not None
        # every session in the folded log is complete: 3000 facts each
        counts: dict[str, int] = {}
        for fact in state.facts.values():
            counts[fact.session_id] = counts.get(fact.session_id, 0) + 1
        assert set(counts) == set(state.sessions)
        assert all(c == 3000 for c in counts.values())
        # a new writer after the crash continues cleanly
        FactLog(path).append_session(f"after{attempt}", make_facts(f"after{attempt}", 2))
        again = FactLog(path).read()
        assert again.dropped is None
        assert f"after{attempt}-f2" in again.facts
        assert len(again.facts) == len(state.facts) + 2
        path.unlink()
        if interrupted >= 2:
            break
    assert interrupted, "no kill landed mid-session in 12 attempts"
