"""Chroma server mode: the same search against a real ``chroma run`` on loopback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from uac.errors import ConfigError, StoreError
from uac.facts.log import FactLog
from uac.index.client import resolve_settings
from uac.memory import UserMemory

from .conftest import ALICE_SESSION, BOB_SESSION, free_port, stop, wait_http

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]

CHROMA = Path(sys.executable).with_name("chroma")
MORE = {
    "date": "2023-09-01",
    "messages": [
        {"role": "user", "content": "I sold my old car to a neighbour on Friday."},
        {"role": "user", "content": "Rex learned to fetch the newspaper."},
    ],
}


class ChromaServer:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [str(CHROMA), "run", "--path", str(self.path), "--host", "127.0.0.1", "--port", str(self.port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_http(f"http://127.0.0.1:{self.port}/api/v2/heartbeat", self.proc, timeout=60)

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None

    def collections(self) -> list[str]:
        import chromadb

        client = chromadb.HttpClient(host="127.0.0.1", port=self.port)
        return sorted(c.name for c in client.list_collections())


@pytest.fixture(scope="module")
def chroma(tmp_path_factory):
    server = ChromaServer(tmp_path_factory.mktemp("chroma") / "data")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def on_server(chroma, monkeypatch):
    """Point every project opened in this test at the server (the environment override)."""
    if chroma.proc is None:
        chroma.start()
    monkeypatch.setenv("UAC_INDEX_BACKEND", "http")
    monkeypatch.setenv("UAC_CHROMA_HOST", "127.0.0.1")
    monkeypatch.setenv("UAC_CHROMA_PORT", str(chroma.port))
    return chroma


def _project(path: Path, *sessions: dict) -> UserMemory:
    memory = UserMemory.create(path, user_name="Alice")
    for n, session in enumerate(sessions):
        file = path.parent / f"{path.name}-{n}.json"
        file.write_text(json.dumps(session))
        memory.ingest(file)
    return memory


def _hits(memory: UserMemory, query: str, **options) -> list[tuple[str, str, float]]:
    return [(h.channel, h.id, h.score) for h in memory.search(query, **options)]


QUERIES = [
    ("dog named Rex", {}),
    ("trip to Lisbon", {"channel": "facts"}),
    ("car", {"channel": "archive", "k": 3}),
    ("Rex", {"as_of": "2023-06-30"}),
    ("newspaper", {"k": 2}),
]


def test_search_on_the_server_matches_the_embedded_index(tmp_path, chroma, monkeypatch):
    embedded = _project(tmp_path / "embedded", ALICE_SESSION, MORE)
    monkeypatch.setenv("UAC_INDEX_BACKEND", "http")
    monkeypatch.setenv("UAC_CHROMA_PORT", str(chroma.port))
    served = _project(tmp_path / "served", ALICE_SESSION, MORE)
    assert served.index.backend == "http"
    assert not (tmp_path / "served" / ".uac" / "chroma").exists()
    for query, options in QUERIES:
        here = _hits(embedded, query, **options)
        there = _hits(served, query, **options)
        assert there == here, query
        assert there, query
    # as_of: facts of the September session are invisible in June
    june = {i for _, i, _ in _hits(served, "Rex newspaper fetch", as_of="2023-06-30", channel="facts")}
    assert june and not any("newspaper" in f.text for f in served.facts() if f.id in june)


def test_projects_share_one_server_without_mixing(tmp_path, on_server):
    alice = _project(tmp_path / "alice", ALICE_SESSION)
    bob = _project(tmp_path / "bob", BOB_SESSION)
    names = on_server.collections()
    assert alice.index.collection_name("facts") in names
    assert bob.index.collection_name("facts") in names
    assert alice.index.collection_name("facts") != bob.index.collection_name("facts")
    # a server takes every vector at ingest (there is no flat copy to fill it later)
    assert alice.index.channel("facts").flat is None
    for memory in (alice, bob):
        for name in ("facts", "archive"):
            assert memory.index.channel(name).vector_count() == len(memory.index.channel(name)) > 0
    assert all(len(n) >= 3 for n in names)
    alice_ids = {f.id for f in alice.facts()}
    assert all(i in alice_ids or c == "archive" for c, i, _ in _hits(alice, "cello sister Toronto"))
    assert not any("cello" in h.text for h in alice.search("cello"))
    assert any("cello" in h.text for h in bob.search("cello"))
    # forgetting removes the vectors on the server
    fact = next(f for f in alice.facts() if "Rex" in f.text)
    alice.forget(fact=fact.id)
    assert fact.id not in {i for _, i, _ in _hits(alice, "Rex golden retriever")}
    assert alice.index.channel("facts").vector_count() == len(alice.facts())


def test_projects_on_one_server_share_one_client(tmp_path, on_server):
    from uac.index.client import close_shared_clients, shared_client_count

    close_shared_clients()
    alice = _project(tmp_path / "alice", ALICE_SESSION)
    bob = _project(tmp_path / "bob", BOB_SESSION)
    assert alice.index.client() is bob.index.client() and shared_client_count() == 1
    assert not alice.index.client_open  # the shared client is not the project's own
    alice.close()  # closing one project leaves the others' connection pool alone
    assert any("cello" in h.text for h in bob.search("cello"))
    assert any("Rex" in h.text for h in UserMemory.open(tmp_path / "alice").search("Rex"))
    assert shared_client_count() == 1
    close_shared_clients()
    assert shared_client_count() == 0
    assert any("cello" in h.text for h in bob.search("cello"))  # reopened on demand


def test_a_server_that_goes_away_is_a_clear_error_and_repair_restores(tmp_path, on_server):
    memory = _project(tmp_path / "alice", ALICE_SESSION)
    log = tmp_path / "alice" / "memory" / "facts.jsonl"
    facts_before = len(FactLog(log).read().facts)
    on_server.stop()
    try:
        with pytest.raises(StoreError) as caught:
            memory.search("dog")
        message = str(caught.value)
        assert f"127.0.0.1:{on_server.port}" in message and "chroma run" in message
        # a write while the server is down: the log and the archive keep the session
        file = tmp_path / "more.json"
        file.write_text(json.dumps(MORE))
        with pytest.raises(StoreError):
            UserMemory.open(tmp_path / "alice").ingest(file)
        state = FactLog(log).read()
        assert len(state.facts) > facts_before
        assert any("newspaper" in f.text for f in state.facts.values())
        # the HTTP API answers 503 with the same message
        from fastapi.testclient import TestClient

        from uac.server.http import create_app
        from uac.server.tokens import TokenStore

        token, _ = TokenStore.for_project(tmp_path / "alice").create()
        with TestClient(create_app(tmp_path)) as client:
            response = client.post(
                "/v1/projects/alice/search", json={"query": "dog"}, headers={"Authorization": f"Bearer {token}"}
            )
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "store_error"
        assert f"127.0.0.1:{on_server.port}" in response.json()["error"]["message"]
        # so does the CLI, in one line
        cli = subprocess.run(
            [sys.executable, "-m", "uac", "search", str(tmp_path / "alice"), "dog"],
            capture_output=True,
            text=True,
            env={**_env(), "UAC_INDEX_BACKEND": "http", "UAC_CHROMA_PORT": str(on_server.port)},
        )
        assert cli.returncode != 0 and "is not reachable" in cli.stderr and "Traceback" not in cli.stderr
    finally:
        on_server.start()
    reopened = UserMemory.open(tmp_path / "alice")
    report = reopened.doctor()
    assert not report.ok  # the fact written while the server was down is not indexed yet
    repaired = UserMemory.open(tmp_path / "alice").doctor(repair=True)
    assert repaired.ok, repaired.to_json()
    assert UserMemory.open(tmp_path / "alice").doctor().ok
    hits = UserMemory.open(tmp_path / "alice").search("newspaper", channel="facts")
    assert any("newspaper" in h.text for h in hits)


def test_a_server_that_lost_its_data_is_rebuilt_by_repair(tmp_path, monkeypatch):
    first = ChromaServer(tmp_path / "data-1")
    first.start()
    try:
        monkeypatch.setenv("UAC_INDEX_BACKEND", "http")
        monkeypatch.setenv("UAC_CHROMA_PORT", str(first.port))
        _project(tmp_path / "alice", ALICE_SESSION)
    finally:
        first.stop()
    second = ChromaServer(tmp_path / "data-2")  # a new, empty server at the same address
    second.port = first.port
    second.start()
    try:
        report = UserMemory.open(tmp_path / "alice").doctor()
        assert not report.ok and "vector" in json.dumps(report.to_json())
        assert UserMemory.open(tmp_path / "alice").doctor(repair=True).ok
        hits = UserMemory.open(tmp_path / "alice").search("golden retriever", channel="facts")
        assert any("Rex" in h.text for h in hits)
    finally:
        second.stop()


def test_environment_overrides_and_bad_settings(monkeypatch):
    from uac.config import IndexConfig

    config = IndexConfig(backend="embedded", chroma_host="10.0.0.1", chroma_port=9000)
    assert resolve_settings(config, env={}).backend == "embedded"
    settings = resolve_settings(config, env={"UAC_INDEX_BACKEND": "http", "UAC_CHROMA_PORT": "8123"})
    assert (settings.backend, settings.host, settings.port) == ("http", "10.0.0.1", 8123)
    with pytest.raises(ConfigError, match="UAC_CHROMA_PORT"):
        resolve_settings(config, env={"UAC_CHROMA_PORT": "eighty"})
    with pytest.raises(ConfigError, match="UAC_INDEX_BACKEND"):
        resolve_settings(config, env={"UAC_INDEX_BACKEND": "cloud"})


def test_no_server_at_all_fails_at_open_with_the_address(tmp_path, monkeypatch):
    memory = UserMemory.create(tmp_path / "alice")
    monkeypatch.setenv("UAC_INDEX_BACKEND", "http")
    monkeypatch.setenv("UAC_CHROMA_PORT", str(free_port()))
    with pytest.raises(StoreError, match="is not reachable"):
        UserMemory.open(memory.root).search("anything")


def _env() -> dict[str, str]:
    from .conftest import child_env

    return child_env()
