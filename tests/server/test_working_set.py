"""The bounded working set of a server: warm projects in an LRU with an idle
timeout, closed when they leave; what stays open; projects that vanish or
break while warm; the open-file check at start."""

from __future__ import annotations

import os
import resource
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from uac.errors import NotAProject, ProjectNotFound
from uac.memory import UserMemory
from uac.server.admission import ServerLimits
from uac.server.capacity import check_open_files, files_needed
from uac.server.warm import WarmSet

from .conftest import ALICE_SESSION, BOB_SESSION, make_root

pytestmark = pytest.mark.embeddings


class _Memory:
    """Stands for a UserMemory in the WarmSet's own tests: counts its closes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_least_recently_used_project_leaves_and_is_closed():
    warm = WarmSet(2, 600)
    opened: dict[str, _Memory] = {}

    def use(name: str) -> _Memory:
        with warm.use(name, ("sig",), lambda: opened.setdefault(name, _Memory(name))) as entry:
            return entry.memory

    a, b = use("a"), use("b")
    use("a")  # a is now the most recent
    c = use("c")
    assert warm.names() == ["a", "c"] and b.closed == 1 and a.closed == 0 and c.closed == 0
    assert warm.counts == {"opened": 3, "evicted": 1, "expired": 0, "dropped": 0}
    assert use("a") is a  # still warm: not opened again


def test_a_project_in_use_is_closed_when_its_last_request_ends():
    warm = WarmSet(1, 600)
    memory = _Memory("a")
    with warm.use("a", ("sig",), lambda: memory):
        with warm.use("b", ("sig",), lambda: _Memory("b")):
            assert warm.names() == ["b"]
            assert memory.closed == 0  # evicted while in use: stays open for its request
        assert memory.closed == 0
    assert memory.closed == 1


def test_a_changed_signature_opens_afresh_and_closes_the_old():
    warm = WarmSet(4, 600)
    first, second = _Memory("a"), _Memory("a")
    with warm.use("a", ("v1",), lambda: first):
        pass
    with warm.use("a", ("v2",), lambda: second) as entry:
        assert entry.memory is second
    assert first.closed == 1 and second.closed == 0 and warm.counts["dropped"] == 1


def test_idle_projects_expire():
    clock = _Clock()
    warm = WarmSet(10, 60, clock=clock)
    memories = {n: _Memory(n) for n in "abc"}
    for name in "ab":
        with warm.use(name, (), lambda name=name: memories[name]):
            pass
    clock.now += 30
    with warm.use("c", (), lambda: memories["c"]):
        clock.now += 40  # a and b: 70 s idle; c: in use
        assert warm.expire() == 2
    assert warm.names() == ["c"] and memories["a"].closed == memories["b"].closed == 1
    assert memories["c"].closed == 0 and warm.counts["expired"] == 2
    clock.now += 61
    assert warm.expire() == 1 and memories["c"].closed == 1 and len(warm) == 0


# --- the served workspace ------------------------------------------------------------------


def _root(tmp_path: Path, users: int):
    sessions = {}
    for n in range(users):
        sessions[f"user{n}"] = ALICE_SESSION if n % 2 == 0 else BOB_SESSION
    return make_root(tmp_path / "root", sessions)


def _client(root: Path, **limits):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    return TestClient(create_app(root, limits=ServerLimits(**limits)))


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def _threads() -> int:
    return threading.active_count()


def test_the_server_keeps_at_most_its_working_set_and_warm_projects_hold_nothing_open(tmp_path):
    served = _root(tmp_path, 6)
    with _client(served.root, warm_projects=2) as client:

        def search(user: str) -> None:
            r = client.post(f"/v1/projects/{user}/search", json={"query": "dog", "k": 3}, headers=served.auth(user))
            assert r.status_code == 200, r.text

        search("user0")  # loads the embedder and the server's own threads
        files, threads = _open_files(), _threads()
        for n in range(6):
            search(f"user{n}")
        workspace = client.app.state.workspace
        assert workspace.warm.names() == ["user4", "user5"]
        status = client.get("/v1/server", headers={"Authorization": f"Bearer {served.admin}"}).json()
        assert status["warm"] == 2 and status["warm_limit"] == 2 and status["evicted"] == 4
        assert status["open_files_limit"] != 0
        # warm projects keep their tables, not a vector store: nothing open, no thread
        for entry_name in workspace.warm.names():
            memory = workspace.instances.reader(entry_name)
            assert not (memory.context.index_open and memory.index.client_open)
        assert _open_files() <= files + 2
        assert _threads() <= threads + 2
        # the admin route needs the admin token
        assert client.get("/v1/server", headers=served.auth("user0")).status_code == 403


def test_a_burst_over_more_projects_than_the_working_set_gets_no_errors(tmp_path):
    served = _root(tmp_path, 8)
    with _client(served.root, warm_projects=2) as client:

        def search(n: int) -> int:
            user = f"user{n % 8}"
            r = client.post(f"/v1/projects/{user}/search", json={"query": "dog", "k": 3}, headers=served.auth(user))
            return r.status_code

        with ThreadPoolExecutor(12) as pool:
            codes = list(pool.map(search, range(48)))
        assert codes == [200] * 48
        assert len(client.app.state.workspace.warm) <= 2


def test_a_project_deleted_while_warm_is_dropped_and_reported(tmp_path, caplog):
    served = make_root(tmp_path / "root", {"alice": ALICE_SESSION, "bob": BOB_SESSION})
    with _client(served.root) as client:
        alice = served.auth("alice")
        assert client.post("/v1/projects/alice/search", json={"query": "dog"}, headers=alice).status_code == 200
        workspace = client.app.state.workspace
        memory = workspace.instances.reader("alice")
        assert "alice" in workspace.warm.names()
        shutil.rmtree(served.root / "alice")
        gone = client.post("/v1/projects/alice/search", json={"query": "dog"}, headers=alice)
        assert gone.status_code == 403  # its tokens went with it
        with caplog.at_level("WARNING", logger="uac.server.warm"):
            with pytest.raises((ProjectNotFound, NotAProject)):
                workspace.instances.reader("alice")
        assert "alice" not in workspace.warm.names() and workspace.warm.counts["dropped"] == 1
        assert any("alice" in r.getMessage() and "gone" in r.getMessage() for r in caplog.records)
        assert not memory.context.index_open  # closed when it left


def test_a_project_corrupted_while_warm_is_not_served_stale(tmp_path):
    served = make_root(tmp_path / "root", {"alice": ALICE_SESSION, "bob": BOB_SESSION})
    with _client(served.root) as client:
        alice = served.auth("alice")
        ok = client.post("/v1/projects/alice/search", json={"query": "dog"}, headers=alice)
        assert ok.status_code == 200 and ok.json()["results"]
        corpus = served.root / "alice" / ".uac" / "index" / "facts.jsonl"
        corpus.write_text("{ this is not json\n" * 3)
        broken = client.post("/v1/projects/alice/search", json={"query": "dog", "channel": "facts"}, headers=alice)
        assert broken.status_code != 200
        assert "alice" not in client.app.state.workspace.warm.names()
        # bob is not affected
        assert (
            client.post("/v1/projects/bob/search", json={"query": "cello"}, headers=served.auth("bob")).status_code
            == 200
        )


def test_idle_projects_leave_the_working_set_by_themselves(tmp_path):
    served = make_root(tmp_path / "root", {"alice": ALICE_SESSION})
    with _client(served.root, idle_seconds=0.2) as client:
        workspace = client.app.state.workspace
        workspace.sweeper._period = 0.05
        assert (
            client.post("/v1/projects/alice/search", json={"query": "dog"}, headers=served.auth("alice")).status_code
            == 200
        )
        deadline = threading.Event()
        for _ in range(100):
            if not workspace.warm.names():
                break
            deadline.wait(0.05)
        assert workspace.warm.names() == [] and workspace.warm.counts["expired"] == 1


def test_the_open_file_check_raises_the_soft_limit_and_says_what_it_holds():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    limits = ServerLimits(threads=8, writes=2, sandbox_workers=2, warm_projects=500)
    need = files_needed(limits, 1)
    if hard != resource.RLIM_INFINITY and hard < need + 100:
        pytest.skip("the hard open-file limit is too low to test raising the soft one")
    low = need - 10
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))
    try:
        budget = check_open_files(limits, 1)
        assert budget.raised_from == low and budget.limit > low
        assert budget.limit == resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert budget.connections == budget.limit - need and budget.enough
        line = budget.describe()
        assert f"raised from {low}" in line and "500 warm projects" in line and str(budget.connections) in line
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_settings_bound_the_working_set():
    with pytest.raises(ValueError, match="warm_projects"):
        ServerLimits(warm_projects=0)
    with pytest.raises(ValueError, match="idle_seconds"):
        ServerLimits(idle_seconds=-1)


def test_a_search_that_falls_back_to_chroma_closes_its_client_again(tmp_path):
    served = make_root(tmp_path / "root", {"alice": ALICE_SESSION})
    # an ingest leaves Chroma to take the vectors when it is next opened: the deep check does
    assert UserMemory.open(served.root / "alice").doctor(deep=True).ok
    for channel in ("facts", "archive"):  # the flat copies are gone: the search asks Chroma
        (served.root / "alice" / ".uac" / "index" / f"{channel}.vectors").unlink()
    with _client(served.root) as client:
        r = client.post("/v1/projects/alice/search", json={"query": "dog"}, headers=served.auth("alice"))
        assert r.status_code == 200 and r.json()["results"]
        memory = client.app.state.workspace.instances.reader("alice")
        assert memory.context.index_open and not memory.index.client_open
        # and the flat copies were written again from Chroma's vectors
        assert (served.root / "alice" / ".uac" / "index" / "facts.vectors").exists()
