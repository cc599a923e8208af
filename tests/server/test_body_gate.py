"""Request bodies are read only once their request is authenticated, within a memory budget."""

from __future__ import annotations

import asyncio
import select
import socket
import threading
import time

import pytest

from uac.errors import ServerBusy
from uac.server.admission import ByteBudget

from .serving import resident_mb, server_process

MiB = 1024 * 1024


# --- the gate, driven as an ASGI application -------------------------------------------------


def _call(app, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bool]:
    """(status, whether the application asked for the body)."""
    asked = []
    sent: list[dict] = []

    async def receive():
        asked.append(True)
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "server": ("t", 80),
        "client": ("c", 1),
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
    }
    asyncio.run(app(scope, receive, send))
    return next(m["status"] for m in sent if m["type"] == "http.response.start"), bool(asked)


@pytest.mark.embeddings
def test_no_body_is_read_before_its_request_is_authenticated(shared_root):
    from uac.server.http import create_app

    app = create_app(shared_root.root)
    declared = {"content-length": str(10 * MiB), "content-type": "application/json"}
    bob = {**declared, "authorization": f"Bearer {shared_root.tokens['bob']}"}
    for path, headers, status in (
        ("/v1/projects/alice/sessions/upload", declared, 401),  # no token
        ("/v1/projects/alice/search", {**declared, "authorization": "Bearer junk"}, 403),
        ("/v1/projects/alice/search", bob, 403),  # another project's token
        ("/v1/projects/nobody/search", bob, 403),  # a project that does not exist
        ("/v1/projects/../search", bob, 400),  # not a project name
        ("/v1/projects/a b/search", bob, 400),
        ("/v1/projects", bob, 403),  # needs an admin token
    ):
        answered, read = _call(app, path, headers)
        assert (answered, read) == (status, False), (path, answered, read)
    # with the right token the body is read and the route answers
    body = b'{"query": "dog"}'
    alice = {
        "content-length": str(len(body)),
        "content-type": "application/json",
        "authorization": f"Bearer {shared_root.tokens['alice']}",
    }
    assert _call(app, "/v1/projects/alice/manifest", alice, body)[1] is True


def test_the_body_budget_bounds_each_key_and_the_total():
    async def scenario() -> list[str]:
        budget = ByteBudget(100, 60, max_waiting=1, refuse=lambda key, why: ServerBusy(f"{key} {why}"))
        seen = []
        async with budget.reserve("a", 60, wait=1):
            try:  # a's share is full: a second body of a waits, then is refused
                async with budget.reserve("a", 10, wait=0.05):
                    seen.append("a got in")
            except ServerBusy as exc:
                seen.append(exc.message)
            async with budget.reserve("b", 40, wait=0):  # b has room: 100 in all
                assert budget.in_use() == 100
                waiter = asyncio.create_task(_held(budget, "c", 10, 1.0))
                await asyncio.sleep(0.01)
                try:  # c has one waiter already: the next is refused at once
                    async with budget.reserve("c", 5, wait=1):
                        seen.append("c got in")
                except ServerBusy as exc:
                    seen.append(exc.message)
            seen.append(await waiter)  # b gave back its 40: c's waiter got in
        assert budget.in_use() == 0 and budget.peak_total == 100
        return seen

    assert asyncio.run(scenario()) == ["a timeout", "c queue", "c in"]


async def _held(budget: ByteBudget, key: str, size: int, wait: float) -> str:
    async with budget.reserve(key, size, wait):
        return f"{key} in"


# --- on a real socket ---------------------------------------------------------------------


def _hostile(port: int, path: str, send_bytes: int) -> int | None:
    """Declare a 16 MiB body, send the first part, and wait for an answer; the status or None."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {16 * MiB}\r\n\r\n".encode()
        )
        chunk, sent = b"A: " + b"z" * (64 * 1024 - 4) + b"\n", 0
        while sent < send_bytes:
            if select.select([sock], [], [], 0)[0]:
                break  # answered already: send no more
            try:
                sock.sendall(chunk)
            except OSError:
                break
            sent += len(chunk)
        if not select.select([sock], [], [], 10)[0]:
            return None
        try:
            head = sock.recv(64)
        except OSError:
            return None
        return int(head.split()[1]) if head.startswith(b"HTTP/1.1 ") else None


@pytest.mark.slow
@pytest.mark.embeddings
def test_token_less_uploads_cost_the_server_no_memory(fresh_root, tmp_path):
    with server_process(fresh_root.root, "--log-level", "warning", log=tmp_path / "server.log") as (base, proc):
        port = int(base.rsplit(":", 1)[1])
        before = resident_mb(proc.pid)
        statuses: list[int | None] = []
        guard = threading.Lock()

        def one(_: int) -> None:
            status = _hostile(port, "/v1/projects/alice/sessions/upload", 4 * MiB)
            with guard:
                statuses.append(status)

        started = time.monotonic()
        threads = [threading.Thread(target=one, args=(n,)) for n in range(150)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        took = time.monotonic() - started
        after = resident_mb(proc.pid)
    # before: the server read every body before looking at the token (1.9 GB for 150 full ones)
    assert statuses.count(401) == 150, statuses
    assert after - before < 48, (before, after)
    assert took < 30, took


@pytest.mark.slow
@pytest.mark.embeddings
def test_bodies_beyond_the_budget_wait_then_get_503(fresh_root, tmp_path):
    args = ("--log-level", "warning", "--max-body-mb", "1", "--body-buffer-mb", "1", "--busy-wait", "0.5")
    with server_process(fresh_root.root, *args, log=tmp_path / "server.log") as (base, _proc):
        import httpx

        port = int(base.rsplit(":", 1)[1])
        alice = fresh_root.tokens["alice"]
        # alice streams a chunked upload slowly: it holds the whole budget (1 MiB, a chunked body's most)
        slow = socket.create_connection(("127.0.0.1", port), timeout=30)
        slow.sendall(
            f"POST /v1/projects/alice/sessions/upload?format=transcript&date=2023-05-08 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {alice}\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
        )
        line = b"Alice: I adopted a cat named Tom.\n"
        slow.sendall(b"%x\r\n%s\r\n" % (len(line), line))
        time.sleep(0.3)
        bob = {"Authorization": f"Bearer {fresh_root.tokens['bob']}"}
        busy = httpx.post(f"{base}/v1/projects/bob/search", json={"query": "cello"}, headers=bob, timeout=30)
        assert busy.status_code == 503 and busy.json()["error"]["code"] == "server_busy", busy.text
        assert int(busy.headers["retry-after"]) >= 1
        slow.sendall(b"0\r\n\r\n")  # alice's body is complete: her upload goes through
        answer = slow.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200 "), answer
        slow.close()
        ok = httpx.post(f"{base}/v1/projects/bob/search", json={"query": "cello"}, headers=bob, timeout=30)
        assert ok.status_code == 200, ok.text
