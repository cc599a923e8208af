"""Two ``uac serve http`` processes on one root: concurrent writes to the same
projects are neither lost nor duplicated, and each server sees the other's."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from uac.facts.log import FactLog
from uac.fsutil import read_utf8, split_lines
from uac.memory import UserMemory

from .conftest import REPO, child_env, free_port, stop, wait_http

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]

USERS = ("alice", "bob")
SESSIONS = 10


def _start(root) -> tuple[str, subprocess.Popen]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uac",
            "serve",
            "http",
            "--root",
            str(root),
            "--port",
            str(port),
            "--lock-wait",
            "120",
            "--warm-projects",
            "1",
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    return f"http://127.0.0.1:{port}", proc


def _session(user: str, n: int) -> dict:
    return {
        "session_id": f"{user}-visit-{n}",
        "date": f"2023-10-{1 + n:02d}",
        "messages": [
            {"role": "user", "content": f"I visited museum number {n} with {user.capitalize()}'s cousin today."}
        ],
    }


def test_two_servers_on_one_root_never_lose_or_duplicate_a_write(fresh_root):
    served = fresh_root
    logs = {u: served.root / u / "memory" / "facts.jsonl" for u in USERS}
    before = {u: len(FactLog(logs[u]).read().facts) for u in USERS}
    servers = [_start(served.root), _start(served.root)]
    try:
        for base, proc in servers:
            wait_http(base + "/v1/health", proc)

        def add(job: tuple[int, str, int]) -> dict:
            server, user, n = job
            base = servers[server][0]
            response = httpx.post(
                f"{base}/v1/projects/{user}/sessions",
                json={"session": _session(user, n)},
                headers=served.auth(user),
                timeout=180,
            )
            assert response.status_code == 200, response.text
            return {"user": user, "n": n, **response.json()}

        # every session goes to both servers at once: one of them adds it, the other finds it there
        jobs = [(server, user, n) for n in range(SESSIONS) for user in USERS for server in (0, 1)]
        with ThreadPoolExecutor(8) as pool:
            reports = list(pool.map(add, jobs))

        for user in USERS:
            mine = [r for r in reports if r["user"] == user]
            for n in range(SESSIONS):
                pair = [r for r in mine if r["n"] == n]
                added = [r for r in pair if r["sessions_added"] == [f"{user}-visit-{n}"]]
                skipped = [r for r in pair if r["sessions_skipped"] == [f"{user}-visit-{n}"]]
                assert len(added) == 1 and len(skipped) == 1, pair
            state = FactLog(logs[user]).read()
            appended = sum(r["facts_appended"] for r in mine)
            assert len(state.facts) == before[user] + appended
            museum = [f for f in state.facts.values() if "museum number" in f.text]
            assert sorted({f.session_id for f in museum}) == sorted(f"{user}-visit-{n}" for n in range(SESSIONS))
            assert len({f.text for f in museum}) == len(museum)  # no fact twice
            # the log's lines: each session's facts written once, none torn or interleaved
            lines = [json.loads(line) for line in split_lines(read_utf8(logs[user]))]
            ids = [line["id"] for line in lines if "id" in line]
            assert len(ids) == len(set(ids))
            # the search index holds every fact once
            corpus = served.root / user / ".uac" / "index" / "facts.jsonl"
            entry_ids = [json.loads(line)["id"] for line in split_lines(read_utf8(corpus))]
            assert len(entry_ids) == len(set(entry_ids)) == len(state.facts)
            assert UserMemory.open(served.root / user).doctor().ok

        # each server answers from the other's writes (its warm copy follows the files)
        for base, _proc in servers:
            for user in USERS:
                response = httpx.post(
                    f"{base}/v1/projects/{user}/search",
                    timeout=60,
                    headers=served.auth(user),
                    json={"query": "museum number 7", "k": 20, "channel": "facts"},
                )
                assert response.status_code == 200, response.text
                assert any("museum number 7" in r["text"] for r in response.json()["results"])
    finally:
        for _base, proc in servers:
            stop(proc)
    for _base, proc in servers:
        errors = proc.stderr.read() if proc.stderr else ""
        assert "Traceback" not in errors, errors
