"""Compile-job status is kept in the project and survives a server restart."""

from __future__ import annotations

import json
import threading
import time

import pytest

from uac.server.http.jobs import JobRunner, JobStore

pytestmark = pytest.mark.embeddings


def _app(root):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    return TestClient(create_app(root))


def _finished(client, url, headers, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(url, headers=headers).json()
        if job["status"] in ("succeeded", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job at {url} did not finish")


def test_a_compile_jobs_status_survives_a_server_restart(fresh_root):
    alice, bob = fresh_root.auth("alice"), fresh_root.auth("bob")
    with _app(fresh_root.root) as client:
        started = client.post("/v1/projects/alice/compile", json={"mode": "offline"}, headers=alice)
        assert started.status_code == 202
        url = started.headers["Location"]
        done = _finished(client, url, alice)
    assert done["status"] == "succeeded" and done["result"]
    record = fresh_root.root / "alice" / ".uac" / "jobs" / f"{done['id']}.json"
    assert json.loads(record.read_text())["status"] == "succeeded"

    with _app(fresh_root.root) as restarted:  # a new server: nothing in memory
        assert restarted.get(url, headers=alice).json() == done
        assert restarted.get(f"/v1/jobs/{done['id']}", headers=alice).json() == done
        # another project's token learns nothing about the job
        for path in (f"/v1/jobs/{done['id']}", f"/v1/projects/bob/compile/{done['id']}"):
            missing = restarted.get(path, headers=bob)
            assert missing.status_code == 404 and missing.json()["error"]["code"] == "job_not_found"


def test_a_job_its_server_did_not_finish_is_reported_interrupted(fresh_root):
    store = JobStore(fresh_root.root)
    release = threading.Event()
    first = JobRunner(1, store)
    job = first.submit("alice", "compile", lambda: release.wait(30) and {"done": True})
    deadline = time.monotonic() + 10
    while store.load("alice", job.id).status != "running" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert store.load("alice", job.id).status == "running"

    other = JobRunner(1, store)  # another server on the same root: the job runs, it says so
    assert other.get(job.id, "alice").status == "running"
    assert store.load("alice", job.id).status == "running"
    other.shutdown()

    first._liveness.release()  # as if its process had died
    second = JobRunner(1, store)  # the server restarted while the job ran
    seen = second.get(job.id, "alice")
    assert seen.status == "failed" and seen.error["code"] == "job_interrupted" and seen.finished
    assert store.load("alice", job.id).status == "failed"
    assert second.get(job.id) == seen and second.get(job.id, "bob") is None
    release.set()
    first.shutdown()
    second.shutdown()


def test_each_project_keeps_its_newest_finished_jobs(fresh_root, monkeypatch):
    import uac.server.http.jobs as jobs

    monkeypatch.setattr(jobs, "KEEP_FINISHED", 3)
    runner = JobRunner(1, JobStore(fresh_root.root))
    ids = []
    for n in range(6):
        job = runner.submit("alice", "compile", lambda n=n: {"n": n})
        while runner.get(job.id).finished is None:
            time.sleep(0.01)
        ids.append(job.id)
    runner.shutdown()
    kept = {p.stem for p in (fresh_root.root / "alice" / ".uac" / "jobs").glob("*.json")}
    assert kept == set(ids[-3:])
    assert JobStore(fresh_root.root).load("alice", "not-a-job-id") is None
    assert JobStore(fresh_root.root).load("bob", ids[-1]) is None  # an id names its project


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def test_job_lookups_with_any_token_read_one_project_however_many_there_are(fresh_root):
    """400 lookups of unknown jobs with junk tokens, beside 5,000 projects, while a quiet tenant reads."""
    from concurrent.futures import ThreadPoolExecutor

    for n in range(5_000):
        (fresh_root.root / f"p{n:05d}" / ".uac" / "jobs").mkdir(parents=True)
    bob = fresh_root.auth("bob")
    alice_token = fresh_root.tokens["alice"]
    tokens = ["junk", "uac_00000000_" + "a" * 43, alice_token[:-2] + "xx"]
    with _app(fresh_root.root) as client:
        job = client.post(
            "/v1/projects/alice/compile", json={"mode": "offline"}, headers=fresh_root.auth("alice")
        ).json()
        assert job["id"].startswith("alice.")
        client.get("/v1/projects/bob/manifest", headers=bob)

        def lookup(n: int) -> int:
            job_id = f"p{n:05d}.{n:032x}" if n % 4 == 0 else f"{n:032x}"
            return client.get(f"/v1/jobs/{job_id}", headers={"Authorization": f"Bearer {tokens[n % 3]}"}).status_code

        def quiet(_: int) -> float:
            started = time.perf_counter()
            assert client.get("/v1/projects/bob/manifest", headers=bob).status_code == 200
            return time.perf_counter() - started

        started = time.perf_counter()
        with ThreadPoolExecutor(24) as pool:
            lookups = [pool.submit(lookup, n) for n in range(400)]
            latencies = list(ThreadPoolExecutor(2).map(quiet, range(40)))
            statuses = [f.result() for f in lookups]
        took = time.perf_counter() - started
        # the job itself, with another project's token and with its own
        assert client.get(f"/v1/jobs/{job['id']}", headers=bob).status_code == 404
        assert _finished(client, f"/v1/jobs/{job['id']}", fresh_root.auth("alice"))["status"] == "succeeded"
    assert set(statuses) == {404}
    # before: each lookup looked through every project (72 ms at 5,000), 400 of them took
    # tens of seconds of the shared threads and the quiet tenant waited for them
    assert took < 10 and _p99(latencies) < 2.0, (took, _p99(latencies))


def test_projects_take_turns_in_the_job_queue(fresh_root):
    """200 queued jobs of one project delay another project's first job by about one job."""
    from uac.errors import ProjectLocked

    runner = JobRunner(1, JobStore(fresh_root.root), max_queued=200)
    started: dict[str, float] = {}

    def work(name: str) -> dict:
        started[name] = time.monotonic()
        time.sleep(0.02)
        return {}

    release = threading.Event()
    try:
        runner.submit("alice", "compile", lambda: release.wait(10) and work("alice-first"))
        while runner.queued("alice"):  # until the first one runs
            time.sleep(0.005)
        for n in range(200):  # one running (waiting to be released), 200 queued
            runner.submit("alice", "compile", lambda n=n: work(f"alice-{n}"))
        with pytest.raises(ProjectLocked, match="200 jobs are already queued") as refused:
            runner.submit("alice", "compile", lambda: work("alice-extra"))
        assert refused.value.retry_after >= 1
        submitted = time.monotonic()
        bob = runner.submit("bob", "compile", lambda: work("bob"))
        release.set()
        deadline = time.monotonic() + 10
        while runner.get(bob.id).finished is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert runner.get(bob.id).status == "succeeded"
    finally:
        runner.shutdown()
    # before: bob's job waited behind all 200 of alice's (4 s here; minutes each with a model)
    assert started["bob"] - submitted < 0.5, started["bob"] - submitted
    assert sum(name.startswith("alice") for name in started) < 20  # alice's queue was left, not run first
    # a project runs one job at a time: alice's jobs never overlapped
    alice = sorted(t for name, t in started.items() if name.startswith("alice"))
    assert all(b - a >= 0.015 for a, b in zip(alice, alice[1:]))


def test_compile_jobs_over_http_are_bounded_per_project_and_fair(fresh_root):
    from fastapi.testclient import TestClient

    from uac.server.admission import ServerLimits
    from uac.server.http import create_app

    alice, bob = fresh_root.auth("alice"), fresh_root.auth("bob")
    with TestClient(create_app(fresh_root.root, job_workers=1, limits=ServerLimits(queued_per_project=6))) as client:
        began = time.monotonic()
        one = client.post("/v1/projects/bob/compile", json={"mode": "offline"}, headers=bob).json()
        _finished(client, f"/v1/jobs/{one['id']}", bob)
        single = time.monotonic() - began
        answers, queued = [], []
        for _ in range(12):
            answers.append(client.post("/v1/projects/alice/compile", json={"mode": "offline"}, headers=alice))
            queued.append(client.app.state.jobs.queued("alice"))
        submitted = time.monotonic()
        mine = client.post("/v1/projects/bob/compile", json={"mode": "offline"}, headers=bob)
        assert mine.status_code == 202
        done = _finished(client, mine.headers["Location"], bob)
        waited = time.monotonic() - submitted
    statuses = [a.status_code for a in answers]
    # one running and at most six queued; the rest refused at once, changing nothing
    assert max(queued) == 6 and set(statuses) == {202, 423} and statuses[:6] == [202] * 6, (statuses, queued)
    refused = next(a for a in answers if a.status_code == 423)
    assert refused.json()["error"]["code"] == "project_locked" and int(refused.headers["Retry-After"]) >= 1
    assert done["status"] == "succeeded"
    assert waited < 3 * single + 2, (waited, single)
