"""``UserMemory.add_session`` takes what agent code has at hand: a dict or list of
chat messages, a Session, a path; anything else is a clear InputError that writes nothing."""

from __future__ import annotations

import pytest

from uac import InputError, SessionNotFound, UserMemory


def _log_lines(memory: UserMemory) -> int:
    path = memory.root / "memory" / "facts.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def test_a_dict_of_messages_is_a_session(memory):
    report = memory.add_session(
        {"date": "2024-05-02", "messages": [{"role": "user", "content": "I adopted a cat named Miso last week."}]}
    )
    assert len(report.sessions_added) == 1 and report.facts_appended >= 1
    (session,) = memory.sessions()
    assert session.date.isoformat() == "2024-05-02" and "Miso" in session.turns[0].text
    assert any("Miso" in hit.text for hit in memory.search("cat Miso", k=3))
    # the same value again is a no-op, as for a file
    again = memory.add_session(
        {"date": "2024-05-02", "messages": [{"role": "user", "content": "I adopted a cat named Miso last week."}]}
    )
    assert again.skipped and again.sessions_added == []


def test_a_list_of_messages_with_a_date_option(memory):
    report = memory.add_session([{"role": "user", "content": "We moved to Porto in March."}], date="2024-04-10")
    assert len(report.sessions_added) == 1
    assert memory.sessions()[0].date.isoformat() == "2024-04-10"


@pytest.mark.parametrize(
    ("value", "options", "words"),
    [
        ({"date": "2024-05-02", "messages": [{"content": "no role"}]}, {}, "role and content"),
        ({"date": "2024-05-02", "messages": [{"role": "user", "content": {"nested": 1}}]}, {}, "content"),
        ({"messages": [{"role": "user", "content": "x"}], "when": object()}, {}, "not plain JSON"),
        (42, {}, "got int"),
        (b"bytes", {}, "got bytes"),
        ([{"role": "user", "content": "x"}], {"colour": "blue"}, "unknown options"),
        ([{"role": "user", "content": "x"}], {"format": "transcript"}, "does not apply"),
    ],
)
def test_a_bad_value_is_an_input_error_and_writes_nothing(memory, value, options, words):
    before = _log_lines(memory)
    with pytest.raises(InputError) as caught:
        memory.add_session(value, **options)
    assert words in str(caught.value)
    assert _log_lines(memory) == before and memory.sessions() == []


def test_an_unknown_session_id_is_session_not_found(memory):
    with pytest.raises(SessionNotFound) as caught:
        memory.session("nope-1")
    assert "nope-1" in caught.value.message and "sessions()" in caught.value.hint


def test_open_or_create_creates_once_then_opens(tmp_path):
    first = UserMemory.open_or_create(tmp_path / "leo", user_name="Leo")
    first.add_session([{"role": "user", "content": "I run every Sunday."}], date="2024-01-07")
    second = UserMemory.open_or_create(tmp_path / "leo", user_name="Someone else")
    assert second.project.config.user.name == "Leo" and len(second.sessions()) == 1
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("not a project")
    from uac import NotAProject

    with pytest.raises(NotAProject):
        UserMemory.open_or_create(tmp_path / "notes")
    assert (tmp_path / "notes" / "todo.txt").read_text() == "not a project"
