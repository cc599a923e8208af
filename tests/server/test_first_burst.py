"""A burst of first requests right after start behaves like later traffic, and health
reports a process that cannot search."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from uac import heavy
from uac.errors import StoreError

from .conftest import ALICE_SESSION, BOB_SESSION, REPO, child_env, make_root
from .serving import server_process

# several threads reach the library's first imports of numpy, onnxruntime and chromadb
# at the same moment, in a fresh interpreter (before the fix: every run failed with
# "cannot import name 'NDArray' from partially initialized module 'numpy._typing'")
FIRST_IMPORTS = r"""
import json, sys, tempfile, threading
from pathlib import Path
from uac.index.client import ChromaSettings, build_client
from uac.index.embeddings import get_embedder
from uac.index.flat import FlatVectors

work = Path(tempfile.mkdtemp())

def embed():
    assert get_embedder().encode(["a dog named Rex"]).shape == (1, 384)

def chroma():
    build_client(ChromaSettings(), work / f"chroma-{threading.get_ident()}").close()

def vectors():
    flat = FlatVectors(work / f"flat-{threading.get_ident()}.f32")
    flat.replace([[1.0] + [0.0] * 383], corpus_stamp=(0, 0, 0))
    assert flat.read_all().shape == (1, 384)

calls = [embed, chroma, vectors] * 2
barrier = threading.Barrier(len(calls))
failures = []

def run(call):
    barrier.wait()
    try:
        call()
    except BaseException as exc:
        failures.append(f"{call.__name__}: {type(exc).__name__}: {exc}")

threads = [threading.Thread(target=run, args=(call,)) for call in calls]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(failures))
"""


@pytest.mark.slow
@pytest.mark.embeddings
def test_first_imports_from_several_threads_at_once_all_succeed():
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", FIRST_IMPORTS],
            cwd=REPO,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_a_stack_that_does_not_import_is_reported_and_tried_again(monkeypatch):
    monkeypatch.setitem(heavy.STACKS, "missing", ("json", "uac_no_such_package"))
    for _ in range(2):  # not remembered as loaded: the second call tries (and fails) again
        with pytest.raises(StoreError, match="cannot import uac_no_such_package .ModuleNotFoundError"):
            heavy.load("missing")
        assert not heavy.loaded("missing")
    monkeypatch.setitem(heavy.STACKS, "missing", ("json",))
    heavy.load("missing")
    assert heavy.loaded("missing")


def _burst(base: str, served, round_: int) -> list[tuple[str, int, str]]:
    """32 first requests of 8 kinds over 4 tenants, all at once."""
    users = sorted(served.tokens)

    def one(n: int) -> tuple[str, int, str]:
        user = users[n % len(users)]
        api, headers = f"{base}/v1/projects/{user}", served.auth(user)
        kind = ("search", "archive", "doctor", "facts", "session", "repl", "manifest", "info")[n % 8]
        if kind == "search":
            response = httpx.post(api + "/search", json={"query": "dog", "k": 3}, headers=headers, timeout=120)
        elif kind == "archive":
            response = httpx.post(
                api + "/search", json={"query": "cello", "channel": "archive"}, headers=headers, timeout=120
            )
        elif kind == "doctor":
            response = httpx.post(api + "/doctor", json={}, headers=headers, timeout=120)
        elif kind == "facts":
            response = httpx.get(api + "/facts", headers=headers, timeout=120)
        elif kind == "session":
            session = {
                "date": "2023-09-01",
                "messages": [{"role": "user", "content": f"I rode bike number {round_}-{n}."}],
            }
            response = httpx.post(api + "/sessions", json={"session": session}, headers=headers, timeout=120)
        elif kind == "repl":
            response = httpx.post(api + "/repl", json={"code": "result = 6 * 7"}, headers=headers, timeout=120)
        elif kind == "manifest":
            response = httpx.get(api + "/manifest", headers=headers, timeout=120)
        else:
            response = httpx.get(api, headers=headers, timeout=120)
        return kind, response.status_code, response.text[:300]

    with ThreadPoolExecutor(32) as pool:
        return list(pool.map(one, range(32)))


@pytest.mark.slow
@pytest.mark.embeddings
def test_a_burst_of_first_requests_right_after_start_all_succeed(tmp_path):
    served = make_root(
        tmp_path / "root", {"alice": ALICE_SESSION, "bob": BOB_SESSION, "carol": ALICE_SESSION, "dave": BOB_SESSION}
    )
    for round_ in range(3):  # three fresh processes; the burst is each one's first traffic
        with server_process(
            served.root, "--log-level", "warning", log=tmp_path / f"server-{round_}.log", ready=None
        ) as (base, _proc):
            outcomes = _burst(base, served, round_)
            failed = [o for o in outcomes if o[1] != 200]
            assert not failed, (failed, (tmp_path / f"server-{round_}.log").read_text()[-3000:])
            health = httpx.get(base + "/v1/health", timeout=30)
            assert health.status_code == 200 and health.json()["status"] == "ok", health.text


def test_health_reports_a_process_whose_search_stack_fails(fresh_root):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app
    from uac.server.readiness import Readiness

    broken = [True]

    def probe() -> None:
        if broken[0]:
            raise StoreError("numpy is half-imported")

    readiness = Readiness(probe, ttl=0)  # every health request checks again
    with TestClient(create_app(fresh_root.root, readiness=readiness)) as client:
        response = client.get("/v1/health")
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "server_broken" and error["details"]["status"] == "broken"
        assert (
            "numpy is half-imported" in error["details"]["checks"]["search"]
            and error["details"]["checks"]["imports"] == "ok"
        )
        assert "Restart the server" in error["hint"] and "numpy is half-imported" in error["message"]
        broken[0] = False  # the problem went away: health says so on its next check
        again = client.get("/v1/health")
        assert again.status_code == 200 and again.json()["checks"] == {"imports": "ok", "search": "ok"}


# a server whose onnxruntime cannot be imported (as after a failed first import)
POISONED = "import sys; sys.modules['onnxruntime'] = None; from uac.cli import run; sys.argv[0] = 'uac'; run()"


@pytest.mark.slow
def test_a_server_that_cannot_import_its_search_stack_says_so(fresh_root, tmp_path):
    with server_process(
        fresh_root.root,
        "--log-level",
        "warning",
        log=tmp_path / "server.log",
        ready=None,
        launcher=[sys.executable, "-c", POISONED],
    ) as (base, _proc):
        health = httpx.get(base + "/v1/health", timeout=30)
        assert health.status_code == 503, health.text
        assert "cannot import onnxruntime" in health.json()["error"]["details"]["checks"]["imports"]
        search = httpx.post(
            base + "/v1/projects/alice/search", json={"query": "dog"}, headers=fresh_root.auth("alice"), timeout=30
        )
        assert search.status_code == 503 and search.json()["error"]["code"] == "store_error"
    assert "cannot import onnxruntime" in (tmp_path / "server.log").read_text()


def test_a_server_without_the_chroma_extra_is_healthy(monkeypatch):
    """Without chromadb the flat vector copies serve every search: health must not ask for it."""
    from uac.index import client as index_client
    from uac.server.readiness import Readiness

    real_load = heavy.load

    def load(stack: str) -> None:
        if stack == "chroma":
            raise StoreError("this process cannot import chromadb (ModuleNotFoundError: No module named 'chromadb').")
        real_load(stack)

    monkeypatch.setattr(heavy, "load", load)
    monkeypatch.setattr(index_client, "chroma_installed", lambda: False)
    assert "imports" not in Readiness(probe=lambda: None).check()
    monkeypatch.setattr(index_client, "chroma_installed", lambda: True)  # installed but broken: reported
    assert "chromadb" in Readiness(probe=lambda: None).check()["imports"]
