"""MCP over HTTP: sessions only for valid tokens, bounded per token, per project and in all,
closed when idle or when their token is revoked; SIGTERM stops a server with many sessions."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from uac.server.tokens import TokenStore

from .serving import server_process

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _open(client: httpx.Client, url: str, token: str) -> httpx.Response:
    return client.post(url, json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {token}"})


def _ping(client: httpx.Client, url: str, token: str, session: str) -> int:
    headers = {**ACCEPT, "Authorization": f"Bearer {token}", "mcp-session-id": session}
    return client.post(url, json=PING, headers=headers).status_code


def _sessions(base: str) -> int:
    return httpx.get(base + "/health", timeout=10).json()["sessions"]


def _until(condition, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_sessions_need_a_valid_token_and_are_bounded(fresh_root, tmp_path):
    args = ("--sessions", "8", "--sessions-per-token", "3", "--sessions-per-project", "5")
    with server_process(fresh_root.root, *args, kind="mcp", ready="/health", log=tmp_path / "mcp.log") as (base, _):
        url, alice = f"{base}/mcp?project=alice", fresh_root.tokens["alice"]
        with httpx.Client(timeout=30) as client:
            # 1,000 initialize calls with junk tokens: none opens a session
            junk = ["junk", "uac_00000000_" + "a" * 43, alice[:-2] + "zz"]
            with ThreadPoolExecutor(16) as pool:
                statuses = list(pool.map(lambda n: _open(client, url, junk[n % 3]).status_code, range(1000)))
            assert set(statuses) == {403} and _sessions(base) == 0
            # one token: the fourth session closes its least recently used
            opened = [_open(client, url, alice).headers["mcp-session-id"] for _ in range(4)]
            assert _until(lambda: _sessions(base) == 3), (_sessions(base), opened)
            assert _ping(client, url, alice, opened[0]) == 404
            assert [_ping(client, url, alice, s) for s in opened[1:]] == [200, 200, 200]
            # a session answers only its own token
            other, _ = TokenStore.for_project(fresh_root.root / "alice").create("second")
            assert _ping(client, url, other, opened[1]) == 404
            # a project's tokens together: at most 5 (the sixth closes the project's oldest)
            more = [_open(client, url, other).headers["mcp-session-id"] for _ in range(3)]
            assert _until(lambda: _sessions(base) == 5)
            assert _ping(client, url, alice, opened[1]) == 404 and _ping(client, url, other, more[-1]) == 200
            # all tokens together: at most 8; beyond, 503 with Retry-After
            bob, bob_url = fresh_root.tokens["bob"], f"{base}/mcp?project=bob"
            assert [_open(client, bob_url, bob).status_code for _ in range(3)] == [200, 200, 200]
            assert _sessions(base) == 8
            extra, _ = TokenStore.for_project(fresh_root.root / "bob").create("extra")
            full = _open(client, bob_url, extra)
            assert full.status_code == 503 and full.json()["error"]["code"] == "server_busy"
            assert int(full.headers["retry-after"]) >= 1
            # the legitimate tenant still works: its own token's sessions make room for it
            assert _open(client, url, alice).status_code == 200


def test_sessions_of_a_revoked_token_and_idle_sessions_close(fresh_root, tmp_path):
    with server_process(
        fresh_root.root, "--session-idle", "3", kind="mcp", ready="/health", log=tmp_path / "mcp.log"
    ) as (base, _):
        url = f"{base}/mcp?project=alice"
        store = TokenStore.for_project(fresh_root.root / "alice")
        doomed, record = store.create("doomed")
        with httpx.Client(timeout=30) as client:
            session = _open(client, url, doomed).headers["mcp-session-id"]
            keep = _open(client, url, fresh_root.tokens["alice"]).headers["mcp-session-id"]
            assert _ping(client, url, doomed, session) == 200 and _sessions(base) == 2
            store.revoke(record.id)
            assert _ping(client, url, doomed, session) == 403  # refused at once, and its sessions go
            assert _until(lambda: _sessions(base) == 1)
            # the other session, left idle, closes after --session-idle (3 s) plus a sweep
            assert _until(lambda: _sessions(base) == 0, timeout=12)
            assert _ping(client, url, fresh_root.tokens["alice"], keep) == 404


def test_sigterm_stops_a_server_with_as_many_sessions_as_it_holds(fresh_root, tmp_path):
    """At its default cap of 1,000 sessions, some with open event streams, SIGTERM stops the
    server in seconds (before the cap, junk tokens opened 10,000 and a SIGTERM hung)."""
    import socket

    args = ("--sessions-per-token", "2000", "--sessions-per-project", "2000")
    with server_process(fresh_root.root, *args, kind="mcp", ready="/health", log=tmp_path / "mcp.log") as (base, proc):
        url, alice = f"{base}/mcp?project=alice", fresh_root.tokens["alice"]
        with httpx.Client(timeout=60) as client, ThreadPoolExecutor(16) as pool:
            opened = list(pool.map(lambda _: _open(client, url, alice), range(1000)))
            assert [r.status_code for r in opened].count(200) == 1000 and _sessions(base) == 1000
            assert _open(client, url, alice).status_code == 503
        port = int(base.rsplit(":", 1)[1])
        streams = []
        for response in opened[:20]:  # event streams a client keeps open
            sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            sock.sendall(
                f"GET /mcp?project=alice HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
                f"Authorization: Bearer {alice}\r\nmcp-session-id: {response.headers['mcp-session-id']}\r\n\r\n".encode()
            )
            streams.append(sock)
        assert all(s.recv(64).startswith(b"HTTP/1.1 200") for s in streams)
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        try:
            proc.wait(timeout=30)
        except Exception:
            pytest.fail(f"the server did not stop within 30 s of SIGTERM: {(tmp_path / 'mcp.log').read_text()[-2000:]}")
        finally:
            for sock in streams:
                sock.close()
        assert time.monotonic() - started < 10
