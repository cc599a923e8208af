"""A tenant hammering health checks and plain reads leaves the shared threads to the others."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from uac.server.admission import ServerLimits

pytestmark = [pytest.mark.embeddings, pytest.mark.slow]


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def test_doctor_and_reads_of_one_tenant_do_not_hold_the_threads_another_needs(fresh_root):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    alice, bob = fresh_root.auth("alice"), fresh_root.auth("bob")
    limits = ServerLimits(threads=16)
    with TestClient(create_app(fresh_root.root, limits=limits)) as client:
        # a bigger memory, so that each health check of the noisy tenant takes a while
        lines = [
            {"role": "user", "content": f"On day {n} I walked {n % 7 + 1} km along the river with Rex."}
            for n in range(300)
        ]
        big = client.post(
            "/v1/projects/alice/sessions", json={"session": {"date": "2023-07-01", "messages": lines}}, headers=alice
        )
        assert big.status_code == 200, big.text
        assert client.post("/v1/projects/alice/doctor", headers=alice).status_code == 200
        stop = threading.Event()
        noisy: dict[str, int] = {}
        guard = threading.Lock()

        def hammer(n: int) -> None:
            # 96 clients of one tenant, each sending its next request as soon as one is answered
            while not stop.is_set():
                if n % 3 != 2:
                    response = client.post("/v1/projects/alice/doctor", headers=alice)
                elif n % 2:
                    response = client.get("/v1/projects/alice/facts", headers=alice)
                else:
                    response = client.get("/v1/projects/alice", headers=alice)
                with guard:
                    noisy[str(response.status_code)] = noisy.get(str(response.status_code), 0) + 1

        def quiet() -> list[float]:
            latencies = []
            for n in range(30):
                started = time.perf_counter()
                path = ("/v1/projects/bob/manifest", "/v1/projects/bob/facts", "/v1/projects/bob")[n % 3]
                assert client.get(path, headers=bob).status_code == 200
                latencies.append(time.perf_counter() - started)
            return latencies

        with ThreadPoolExecutor(96) as pool:
            for n in range(96):
                pool.submit(hammer, n)
            time.sleep(1.0)  # the noisy tenant is in full swing
            try:
                latencies = quiet()
            finally:
                stop.set()
        checks = client.app.state.workspace.admission
        assert checks.checks.peak_per_key == 1 and checks.reads.peak_per_key <= limits.reads_per_project
    # before: the noisy tenant's calls took all 16 threads and the quiet one queued behind them
    assert _p99(latencies) < 2.0, (_p99(latencies), noisy)
    assert noisy.get("200", 0) > 0 and set(noisy) <= {"200", "503"}, noisy
