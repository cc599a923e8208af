"""``uac serve http`` as a real uvicorn process on loopback."""

from __future__ import annotations

import http.client
import json
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

import httpx
import pytest

from uac.facts.log import FactLog

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]


def _raw_get(base: str, path: str, headers: dict[str, str]) -> tuple[int, dict]:
    """GET with the path sent byte for byte (no client-side normalisation of '..')."""
    url = urlparse(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        for name, value in headers.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        conn.close()


def test_served_over_loopback_with_parallel_users(uvicorn_server):
    base, served = uvicorn_server
    alice, bob = served.auth("alice"), served.auth("bob")

    for path in (
        "/v1/projects/../alice/manifest",
        "/v1/projects/%2e%2e/manifest",
        "/v1/projects/%2e%2e%2f%2e%2e/manifest",
        "/v1//etc/passwd",
        "/v1/projects//etc/manifest",
        "/v1/projects/alice/domains/..%2f..%2fuac.toml",
    ):
        status, body = _raw_get(base, path, alice)
        assert status in (400, 403, 404), (path, status)
        assert set(body) == {"error"}, path

    def search(user: str, query: str) -> list[str]:
        response = httpx.post(
            f"{base}/v1/projects/{user}/search", json={"query": query, "k": 3}, headers=served.auth(user), timeout=30
        )
        assert response.status_code == 200, response.text
        return [r["text"] for r in response.json()["results"]]

    with ThreadPoolExecutor(8) as pool:
        alice_runs = [pool.submit(search, "alice", "dog") for _ in range(8)]
        bob_runs = [pool.submit(search, "bob", "cello") for _ in range(8)]
        alice_texts = {t for f in alice_runs for t in f.result()}
        bob_texts = {t for f in bob_runs for t in f.result()}
    assert any("Rex" in t for t in alice_texts) and not any("cello" in t for t in alice_texts)
    assert any("cello" in t for t in bob_texts) and not any("Rex" in t for t in bob_texts)

    # concurrent writers to one project: serialised, nothing lost
    def add(n: int) -> int:
        session = {
            "date": "2023-10-01",
            "messages": [{"role": "user", "content": f"I visited museum number {n} today."}],
        }
        response = httpx.post(f"{base}/v1/projects/bob/sessions", json={"session": session}, headers=bob, timeout=60)
        assert response.status_code == 200, response.text
        return response.json()["facts_appended"]

    before = len(FactLog(served.root / "bob" / "memory" / "facts.jsonl").read().facts)
    with ThreadPoolExecutor(6) as pool:
        appended = sum(pool.map(add, range(12)))
    state = FactLog(served.root / "bob" / "memory" / "facts.jsonl").read()
    assert len(state.facts) == before + appended and appended >= 12
    assert len({f.text for f in state.facts.values() if "museum number" in f.text}) == 12

    # the body limit holds on a real socket too (the server runs with --max-body-mb 0.01)
    big = httpx.post(f"{base}/v1/projects/alice/search", json={"query": "x" * 20_000}, headers=alice, timeout=10)
    assert big.status_code == 413 and big.json()["error"]["code"] == "request_too_large"

    def stream():
        for _ in range(40):
            yield b"Alice: " + b"z" * 1000 + b"\n"

    chunked = httpx.post(f"{base}/v1/projects/alice/sessions/upload", content=stream(), headers=alice, timeout=10)
    assert chunked.status_code == 413
    assert httpx.get(f"{base}/v1/projects/alice/manifest", headers=bob, timeout=10).status_code == 403
