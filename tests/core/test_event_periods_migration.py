"""The named migration that gives old event dates their precision."""

from __future__ import annotations

import datetime as dt
import json

from uac import UserMemory
from uac.dates import Period
from uac.facts.log import encode_record
from uac.fsutil import read_utf8, split_lines
from uac.project import Project


def _old_fact(fact_id: str, text: str, event_date: str | None, precision: str | None) -> dict:
    meta = {"extractor": "rules"}
    if precision:
        meta["date_precision"] = precision
    return {
        "kind": "fact",
        "id": fact_id,
        "text": text,
        "session_id": "s1",
        "session_date": "2023-06-09",
        "evidence": ["D1:1"],
        "speaker": "Sam",
        "event_date": event_date,
        "valid_from": None,
        "invalid_at": None,
        "superseded_by": None,
        "meta": meta,
    }


def _old_project(tmp_path):
    """A project as an earlier uac left it: the first two migrations applied, stand-in days in the log."""
    root = Project.create(tmp_path / "p").root
    toml = root / "uac.toml"
    toml.write_text(toml.read_text().replace(', "0003_event_periods", "0004_change_log"', ""))
    records = [
        _old_fact("s1-f1", "Sam painted a lake last year (in 2022).", "2022-06-09", "year"),
        _old_fact("s1-f2", "Sam moves next month (in July 2023).", "2023-07-09", "month"),
        _old_fact("s1-f3", "Sam ran 3 weeks ago (the week of 15 May 2023).", "2023-05-19", "week"),
        _old_fact("s1-f4", "Sam hiked last weekend (the weekend of 3 June 2023).", "2023-06-03", "weekend"),
        _old_fact("s1-f5", "Sam swam yesterday (on 8 June 2023).", "2023-06-08", "day"),
        _old_fact("s1-f6", "Sam met Ann on 2 May 2023.", "2023-05-02", None),
        _old_fact("s1-f7", "Sam likes tea.", None, None),
        {
            "kind": "commit",
            "session_id": "s1",
            "facts": 7,
            "supersessions": 0,
            "session_hash": "",
            "extractor": "rules",
            "committed_at": "2023-06-09T00:00:00+00:00",
        },
    ]
    (root / "memory" / "facts.jsonl").write_bytes(b"".join(encode_record(r) for r in records))
    return root


def test_stand_in_days_become_periods_and_exact_days_stay(tmp_path):
    root = _old_project(tmp_path)
    memory = UserMemory.open(root)
    facts = {f.id: f for f in memory.facts()}
    assert facts["s1-f1"].event_date == Period.year(2022) and facts["s1-f1"].event_date.render() == "2022"
    assert facts["s1-f2"].event_date.code == "2023-07"
    assert facts["s1-f3"].event_date.code == "2023-05-15/2023-05-21"
    assert facts["s1-f4"].event_date.render() == "the weekend of 3 June 2023"
    assert facts["s1-f5"].event_date == dt.date(2023, 6, 8) and facts["s1-f5"].event_date.precision == "day"
    assert facts["s1-f6"].event_date == dt.date(2023, 5, 2) and facts["s1-f6"].event_date.is_day
    assert facts["s1-f7"].event_date is None
    assert all("date_precision" not in f.meta for f in facts.values())
    # the log stays valid: every line's checksum matches, the exact days are byte-identical
    lines = [json.loads(line) for line in split_lines(read_utf8(root / "memory" / "facts.jsonl"))]
    assert [line["event_date"] for line in lines if line["kind"] == "fact"] == [
        "2022",
        "2023-07",
        "2023-05-15/2023-05-21",
        "2023-06-03/2023-06-04",
        "2023-06-08",
        "2023-05-02",
        None,
    ]


def test_migration_runs_once_and_is_recorded(tmp_path):
    root = _old_project(tmp_path)
    Project.open(root)
    after = (root / "memory" / "facts.jsonl").read_bytes()
    project = Project.open(root)
    assert (root / "memory" / "facts.jsonl").read_bytes() == after
    assert "0003_event_periods" in project.config.migrations
