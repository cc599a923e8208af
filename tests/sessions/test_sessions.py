"""Session input formats, detection, and bad input."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.fixtures.conversations import SEPARATOR_TURN
from uac.cli.vocabulary import CLI
from uac.errors import InputError
from uac.sessions import detect_format, load_sessions
from uac.sessions.dates import parse_date
from uac.sessions.model import Session
from uac.sessions.reader import MAX_TURN_CHARS


def test_locomo_sessions_dates_turn_ids_and_images(locomo_file):
    sessions = load_sessions(locomo_file, sample_id="conv-t1")
    assert [s.session_id for s in sessions] == ["conv-t1_s1", "conv-t1_s2", "conv-t1_s3"]
    first = sessions[0]
    assert first.date == dt.date(2023, 5, 8)
    assert first.date_text == "1:56 pm on 8 May, 2023"
    assert first.speakers == ("Caroline", "Melanie")
    assert [t.turn_id for t in first.turns] == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5"]
    image_turn = first.turn("D1:4")
    assert image_turn.image_caption == "a photo of a painting of a sunset over a lake"
    assert image_turn.full_text.endswith("[image: a photo of a painting of a sunset over a lake]")
    assert sessions[2].date == dt.date(2023, 7, 2)


def test_locomo_needs_sample_id_when_several(locomo_file):
    with pytest.raises(InputError, match="sample_id") as info:
        load_sessions(locomo_file)
    assert "conv-t1" in str(info.value) and "conv-t2" in str(info.value)
    assert "--sample-id" in info.value.hint_for(CLI)
    with pytest.raises(InputError, match="no conversation with sample id 'nope'"):
        load_sessions(locomo_file, sample_id="nope")


def test_locomo_ids_are_stable(locomo_file):
    a = load_sessions(locomo_file, sample_id="conv-t2")
    b = load_sessions(locomo_file, format="locomo", sample_id="conv-t2")
    assert a == b


def test_session_json_round_trip(locomo_file):
    for session in load_sessions(locomo_file, sample_id="conv-t1"):
        assert Session.from_json(json.loads(json.dumps(session.to_json()))) == session


def test_messages_object_with_date(messages_file):
    [session] = load_sessions(messages_file, user_name="Alice")
    assert session.source == "messages"
    assert session.date == dt.date(2024, 3, 1)
    assert session.session_id.startswith("s-")
    assert [t.speaker for t in session.turns] == ["Alice", "assistant", "Alice", "assistant"]  # system skipped
    assert session.turns[3].text == SEPARATOR_TURN
    assert session.turns[0].turn_id == f"{session.session_id}:1"
    again = load_sessions(messages_file, user_name="Alice")[0]
    assert again.session_id == session.session_id


def test_messages_jsonl_with_date_option(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"role": "user", "content": "I bought a red bike.", "name": "Sam"}\n'
        '{"role": "assistant", "content": "Nice!"}\n',
        "utf-8",
    )
    assert detect_format(path.read_text(), path) == "messages"
    with pytest.raises(InputError, match="date") as info:
        load_sessions(path)
    assert "--date" in info.value.hint_for(CLI)
    [session] = load_sessions(path, date="2024-02-03")
    assert session.date == dt.date(2024, 2, 3)
    assert session.turns[0].speaker == "Sam"


def test_messages_list_of_sessions_and_ids_differ(tmp_path):
    path = tmp_path / "many.json"
    path.write_text(
        json.dumps(
            [
                {"date": "2024-01-01", "messages": [{"role": "user", "content": "I like tea."}]},
                {"date": "2024-01-02", "messages": [{"role": "user", "content": "I like coffee."}]},
            ]
        ),
        "utf-8",
    )
    sessions = load_sessions(path)
    assert len({s.session_id for s in sessions}) == 2


def test_transcript_with_header_and_continuation(transcript_file):
    assert detect_format(transcript_file.read_text(), transcript_file) == "transcript"
    [session] = load_sessions(transcript_file)
    assert session.date == dt.date(2024, 3, 1)
    assert [t.speaker for t in session.turns] == ["Alice", "Bob", "Alice", "Bob"]
    assert session.turns[2].text == "Two hours and five minutes.\nIt was my first race."
    assert session.turns[3].text == SEPARATOR_TURN


def test_transcript_date_option(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Ann: I moved to Lisbon.\n", "utf-8")
    with pytest.raises(InputError, match="date") as info:
        load_sessions(path)
    assert "--date" in info.value.hint_for(CLI)
    assert load_sessions(path, date="2024-05-05")[0].date == dt.date(2024, 5, 5)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1:56 pm on 8 May, 2023", dt.date(2023, 5, 8)),
        ("10:37 am on 27 June, 2023", dt.date(2023, 6, 27)),
        ("2024-03-01", dt.date(2024, 3, 1)),
        ("2024-03-01T10:30:00Z", dt.date(2024, 3, 1)),
        ("May 8, 2023", dt.date(2023, 5, 8)),
        ("8th Sept 2021", dt.date(2021, 9, 8)),
        ("sometime", None),
    ],
)
def test_parse_date(text, expected):
    assert parse_date(text) == expected


# -- bad input ---------------------------------------------------------------------


def test_malformed_json_names_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"date": "2024-01-01",\n "messages": [\n  {"role": "user" "content": "x"}]}', "utf-8")
    with pytest.raises(InputError) as info:
        load_sessions(path)
    assert f"{path}:3:" in str(info.value)


def test_unknown_format(tmp_path):
    path = tmp_path / "odd.json"
    path.write_text('{"hello": 1}', "utf-8")
    with pytest.raises(InputError, match="neither a LoCoMo conversation nor chat messages"):
        load_sessions(path)
    path2 = tmp_path / "odd.txt"
    path2.write_text("just some words without a speaker\n", "utf-8")
    with pytest.raises(InputError, match="unknown session format"):
        load_sessions(path2)
    with pytest.raises(InputError, match="unknown format"):
        load_sessions(path2, format="yaml")


def test_missing_date_in_locomo(tmp_path):
    path = tmp_path / "nodate.json"
    path.write_text(
        json.dumps(
            {"sample_id": "x", "conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi there"}]}}
        )
    )
    with pytest.raises(InputError, match="date") as info:
        load_sessions(path)
    assert "--date" in info.value.hint_for(CLI)
    assert load_sessions(path, date="2023-01-01")[0].date == dt.date(2023, 1, 1)


def test_empty_inputs(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("", "utf-8")
    with pytest.raises(InputError, match="empty"):
        load_sessions(empty)
    no_messages = tmp_path / "m.json"
    no_messages.write_text('{"date": "2024-01-01", "messages": []}', "utf-8")
    with pytest.raises(InputError, match="empty session"):
        load_sessions(no_messages)
    only_header = tmp_path / "t.txt"
    only_header.write_text("# date: 2024-01-01\n", "utf-8")
    with pytest.raises(InputError):
        load_sessions(only_header)


def test_non_utf8(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes("# date: 2024-01-01\nAnn: caf\xe9 au lait\n".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8") as info:
        load_sessions(path)
    assert "offset" in str(info.value)


def test_huge_single_message_is_refused(tmp_path):
    path = tmp_path / "huge.json"
    big = "word " * (5 * 1024 * 1024 // 5)
    path.write_text(json.dumps({"date": "2024-01-01", "messages": [{"role": "user", "content": big}]}), "utf-8")
    with pytest.raises(InputError, match=f"up to {MAX_TURN_CHARS:,} characters"):
        load_sessions(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        load_sessions(tmp_path / "nope.json")
