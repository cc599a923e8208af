"""Chat exports as people have them: JSONL, one message per line, with timestamps."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uac.errors import InputError
from uac.sessions import load_sessions


def _jsonl(path, messages):
    path.write_text("".join(json.dumps(m) + "\n" for m in messages))
    return path


def test_one_message_per_line_is_a_session(tmp_path):
    path = _jsonl(
        tmp_path / "chat.jsonl",
        [
            {"role": "user", "content": "I adopted a cat named Miso.", "timestamp": "2024-03-01T10:00:00Z"},
            {"role": "assistant", "content": "Congratulations!", "timestamp": "2024-03-01T10:00:05Z"},
        ],
    )
    (session,) = load_sessions(path, user_name="Ana")
    assert session.date == dt.date(2024, 3, 1)
    assert [(t.speaker, t.text) for t in session.turns] == [
        ("Ana", "I adopted a cat named Miso."),
        ("assistant", "Congratulations!"),
    ]


def test_a_single_line_export_is_accepted(tmp_path):
    path = _jsonl(
        tmp_path / "one.jsonl", [{"role": "user", "content": "Hi there, I moved to Porto.", "timestamp": 1709287200}]
    )
    (session,) = load_sessions(path)
    assert session.date == dt.date(2024, 3, 1) and session.turns[0].text == "Hi there, I moved to Porto."
    # the same line in a file without the .jsonl suffix is detected too
    other = tmp_path / "one.txt"
    other.write_text(path.read_text())
    assert load_sessions(other)[0].turns == session.turns


def test_a_file_spanning_days_splits_into_sessions_by_date(tmp_path):
    path = _jsonl(
        tmp_path / "week.jsonl",
        [
            {"role": "user", "content": "Day one: I started a new job.", "timestamp": "2024-03-01T09:00:00"},
            {"role": "assistant", "content": "Good luck!"},
            {"role": "user", "content": "Day two: the team is nice.", "created_at": "2024-03-02T18:30:00"},
            {"role": "assistant", "content": "Glad to hear.", "created_at": "2024-03-02T18:31:00"},
            {"role": "user", "content": "Day five: first project shipped.", "time": 1709805600000},
        ],
    )
    sessions = load_sessions(path, user_name="Ana")
    assert [s.date for s in sessions] == [dt.date(2024, 3, 1), dt.date(2024, 3, 2), dt.date(2024, 3, 7)]
    assert [len(s.turns) for s in sessions] == [2, 2, 1]
    assert len({s.session_id for s in sessions}) == 3
    # stable ids: reading the file again gives the same sessions
    assert [s.session_id for s in load_sessions(path, user_name="Ana")] == [s.session_id for s in sessions]


def test_timestamps_are_read_in_the_project_time_zone(tmp_path):
    path = _jsonl(
        tmp_path / "late.jsonl",
        [{"role": "user", "content": "Late night thoughts.", "timestamp": "2024-03-01T23:30:00Z"}],
    )
    assert load_sessions(path, timezone="UTC")[0].date == dt.date(2024, 3, 1)
    assert load_sessions(path, timezone="Europe/Berlin")[0].date == dt.date(2024, 3, 2)


def test_a_session_date_wins_over_message_timestamps(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "date": "2023-01-01",
                "messages": [
                    {"role": "user", "content": "a", "timestamp": "2024-03-01T10:00:00"},
                    {"role": "user", "content": "b", "timestamp": "2024-03-02T10:00:00"},
                ],
            }
        )
    )
    (session,) = load_sessions(path)
    assert session.date == dt.date(2023, 1, 1) and len(session.turns) == 2


def test_an_unreadable_timestamp_is_a_clear_error(tmp_path):
    path = _jsonl(tmp_path / "bad.jsonl", [{"role": "user", "content": "x", "timestamp": "yesterday-ish"}])
    with pytest.raises(InputError) as info:
        load_sessions(path)
    assert "bad.jsonl" in str(info.value) and "timestamp" in str(info.value)


def test_ingest_of_a_jsonl_export_dates_the_facts(memory, tmp_path):
    path = _jsonl(
        tmp_path / "chat.jsonl",
        [
            {"role": "user", "content": "I adopted a cat named Miso.", "timestamp": "2024-03-01T10:00:00Z"},
            {"role": "user", "content": "Miso learned to open doors.", "timestamp": "2024-04-15T10:00:00Z"},
        ],
    )
    report = memory.ingest(path, extractor="rules")
    assert len(report.sessions_added) == 2
    dates = sorted({f.session_date for f in memory.facts()})
    assert dates == [dt.date(2024, 3, 1), dt.date(2024, 4, 15)]
    assert memory.ingest(path, extractor="rules").skipped
