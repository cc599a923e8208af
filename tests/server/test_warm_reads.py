"""What a warm search costs: no file of the project is read (only ``stat``), a
write by another process is still seen by the next search, and what the server
keeps in memory follows its working set, not the projects it has touched."""

from __future__ import annotations

import builtins
import gc
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from uac.facts.table import FactTable
from uac.index.bm25 import BM25
from uac.server.admission import ServerLimits

from .conftest import ALICE_SESSION, BOB_SESSION, REPO, child_env, make_root

pytestmark = pytest.mark.embeddings


def _client(root: Path, **limits):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    return TestClient(create_app(root, limits=ServerLimits(**limits)))


class _Opens:
    """Records every file opened under ``root`` while active (open, io.open, os.open)."""

    def __init__(self, root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = str(root)
        self.paths: list[str] = []
        real_open, real_io_open, real_os_open = builtins.open, io.open, os.open

        def seen(path: object) -> None:
            if isinstance(path, (str, os.PathLike)) and os.path.abspath(os.fspath(path)).startswith(self.root):
                self.paths.append(os.fspath(path))

        def builtin_open(file, *args, **kwargs):
            seen(file)
            return real_open(file, *args, **kwargs)

        def io_open(file, *args, **kwargs):
            seen(file)
            return real_io_open(file, *args, **kwargs)

        def os_open(path, *args, **kwargs):
            seen(path)
            return real_os_open(path, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", builtin_open)
        monkeypatch.setattr(io, "open", io_open)
        monkeypatch.setattr(os, "open", os_open)


def _search(client, served, user: str, query: str, **extra) -> list[dict]:
    body = {"query": query, "k": 5, **extra}
    r = client.post(f"/v1/projects/{user}/search", json=body, headers=served.auth(user))
    assert r.status_code == 200, r.text
    return r.json()["results"]


def test_a_warm_search_reads_no_file_of_the_project(tmp_path, monkeypatch):
    served = make_root(tmp_path / "root", {"alice": ALICE_SESSION})
    with _client(served.root) as client:
        first = _search(client, served, "alice", "golden retriever", k=1)
        opens = _Opens(served.root / "alice", monkeypatch)
        again = _search(client, served, "alice", "golden retriever", k=1)
        other = _search(client, served, "alice", "Lisbon trip", as_of="2023-06-01")  # entries not read before
        monkeypatch.undo()
        assert opens.paths == []
        assert again == first and any("Rex" in hit["text"] for hit in first)
        assert any("Lisbon" in hit["text"] for hit in other)


def _cli(*args: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "uac", *args, "--json"],
        cwd=REPO,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


@pytest.mark.slow
def test_a_warm_project_sees_ingest_and_forget_from_another_process(tmp_path):
    served = make_root(tmp_path / "root", {"alice": ALICE_SESSION})
    project = served.root / "alice"
    with _client(served.root) as client:
        assert not any("saxophone" in hit["text"] for hit in _search(client, served, "alice", "saxophone lessons"))
        assert "alice" in client.app.state.workspace.warm.names()
        session = tmp_path / "sax.json"
        session.write_text(
            json.dumps(
                {
                    "session_id": "sax",
                    "date": "2023-07-02",
                    "messages": [{"role": "user", "content": "I signed up for saxophone lessons on Saturdays."}],
                }
            )
        )
        _cli("ingest", str(project), str(session))  # another process writes while the server keeps alice warm
        found = [hit for hit in _search(client, served, "alice", "saxophone lessons") if "saxophone" in hit["text"]]
        assert found and found[0]["session_id"] == "sax"
        facts = [hit for hit in found if hit["channel"] == "facts"]
        assert facts
        _cli("forget", str(project), "--session", "sax")
        assert not any("saxophone" in hit["text"] for hit in _search(client, served, "alice", "saxophone lessons"))


def _live(kind: type) -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if type(obj) is kind)


def test_what_the_server_keeps_follows_its_working_set_not_the_projects_touched(tmp_path):
    users = {f"user{n}": (ALICE_SESSION if n % 2 == 0 else BOB_SESSION) for n in range(6)}
    served = make_root(tmp_path / "root", users)
    tables_before, indexes_before = _live(FactTable), _live(BM25)
    with _client(served.root, warm_projects=2) as client:
        for user in users:
            _search(client, served, user, "dog")
        assert len(client.app.state.workspace.warm) == 2
        # two warm projects: one fact table each, one BM25 index per channel
        assert _live(FactTable) - tables_before <= 2
        assert _live(BM25) - indexes_before <= 4
