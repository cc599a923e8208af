"""A session id names one content: the same again is a no-op, other content is a conflict."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.conversations import tree_hash
from uac.cli import main
from uac.errors import SessionConflict
from uac.memory import UserMemory


def _session(path, text: str, session_id: str = "chat-1"):
    path.write_text(
        json.dumps({"session_id": session_id, "date": "2024-03-01", "messages": [{"role": "user", "content": text}]})
    )
    return path


def test_same_id_same_content_is_a_no_op(memory, tmp_path):
    path = _session(tmp_path / "a.json", "I adopted a cat named Miso.")
    first = memory.ingest(path, extractor="rules")
    before = tree_hash(memory.root / "memory")
    again = memory.ingest(path, extractor="rules")
    assert first.sessions_added == ["chat-1"] and again.sessions_skipped == ["chat-1"] and again.skipped
    assert tree_hash(memory.root / "memory") == before


def test_same_id_different_content_is_a_conflict_and_changes_nothing(memory, tmp_path, capsys):
    memory.ingest(_session(tmp_path / "a.json", "I adopted a cat named Miso."), extractor="rules")
    before = tree_hash(memory.root / "memory")
    changed = _session(tmp_path / "b.json", "I adopted a dog named Rex.")
    with pytest.raises(SessionConflict) as info:
        memory.ingest(changed, extractor="rules")
    assert "chat-1" in info.value.message and "different content" in info.value.message
    assert tree_hash(memory.root / "memory") == before
    assert [f.text for f in memory.facts() if "Rex" in f.text] == []
    # the CLI: a clear error on stderr, non-zero exit, nothing on stdout
    assert main(["ingest", str(memory.root), str(changed), "--extractor", "rules", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "different content" in captured.err


def test_a_conflict_anywhere_in_the_input_writes_none_of_it(memory, tmp_path):
    memory.ingest(_session(tmp_path / "a.json", "I adopted a cat named Miso."), extractor="rules")
    before = tree_hash(memory.root / "memory")
    both = tmp_path / "both.json"
    both.write_text(
        json.dumps(
            [
                {
                    "session_id": "chat-2",
                    "date": "2024-03-02",
                    "messages": [{"role": "user", "content": "A new session."}],
                },
                {
                    "session_id": "chat-1",
                    "date": "2024-03-01",
                    "messages": [{"role": "user", "content": "Other content."}],
                },
            ]
        )
    )
    with pytest.raises(SessionConflict):
        memory.ingest(both, extractor="rules")
    assert tree_hash(memory.root / "memory") == before


def test_the_same_id_twice_in_one_input_with_different_content_is_a_conflict(memory, tmp_path):
    twice = tmp_path / "twice.json"
    twice.write_text(
        json.dumps(
            [
                {"session_id": "x", "date": "2024-03-02", "messages": [{"role": "user", "content": "One."}]},
                {"session_id": "x", "date": "2024-03-02", "messages": [{"role": "user", "content": "Two."}]},
            ]
        )
    )
    with pytest.raises(SessionConflict):
        memory.ingest(twice, extractor="rules")
    assert memory.facts() == []


def test_http_answers_409(fresh_conflict_client):
    client, headers = fresh_conflict_client
    body = {
        "session": {"session_id": "s-9", "date": "2024-03-01", "messages": [{"role": "user", "content": "I like tea."}]}
    }
    assert client.post("/v1/projects/alice/sessions", json=body, headers=headers).status_code == 200
    same = client.post("/v1/projects/alice/sessions", json=body, headers=headers)
    assert same.status_code == 200 and same.json()["skipped"] is True
    body["session"]["messages"][0]["content"] = "I like coffee."
    other = client.post("/v1/projects/alice/sessions", json=body, headers=headers)
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "session_conflict"


@pytest.fixture
def fresh_conflict_client(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from uac.server.http import create_app
    from uac.server.tokens import TokenStore

    root = tmp_path / "root"
    root.mkdir()
    memory = UserMemory.create(root / "alice", user_name="Alice")
    token, _ = TokenStore.for_project(memory.root).create("test")
    with TestClient(create_app(root)) as client:
        yield client, {"Authorization": f"Bearer {token}"}
