"""Records, compile jobs, domain code and the sandbox over HTTP."""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.embeddings

TRIPS = [
    {"city": "Lisbon", "date": "2024-03-01", "cost": 120.5},
    {"city": "Rome", "date": "2024-05-02", "cost": 80},
    {"city": "Oslo", "date": "2023-11-20", "cost": 310},
]


def _wait(client, url, headers, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(url, headers=headers).json()
        if job["status"] in ("succeeded", "failed"):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job at {url} did not finish")


def test_import_records_then_compute_in_the_sandbox(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    imported = fresh_client.post(
        "/v1/projects/alice/records", json={"domain": "travel", "collection": "trips", "records": TRIPS}, headers=alice
    )
    assert imported.status_code == 200, imported.text
    assert imported.json()["records_added"] == 3
    code = fresh_client.get("/v1/projects/alice/domains/travel", headers=alice).json()["files"]
    assert "class Trip" in code["schema.py"] and "Lisbon" in code["state.py"]
    assert "travel" in fresh_client.get("/v1/projects/alice/manifest", headers=alice).json()["manifest"]

    ran = fresh_client.post(
        "/v1/projects/alice/repl",
        json={
            "code": "result = {'total': sum(t.cost for t in trips), 'in_2024': len([t for t in travel.trips if t.date.year == 2024])}"
        },
        headers=alice,
    )
    assert ran.status_code == 200, ran.text
    # the session the fixture ingested (its catch-up off) is not in the view: the reply says so
    assert ran.json() == {
        "ok": True,
        "result": {"total": 510.5, "in_2024": 2},
        "stdout": "",
        "error": None,
        "view": {"facts_not_included": 2, "catching_up": False},
    }

    failing = fresh_client.post("/v1/projects/alice/repl", json={"code": "trips.append(1)"}, headers=alice).json()
    assert failing["ok"] is False and failing["error"]["type"]
    escape = fresh_client.post(
        "/v1/projects/alice/repl", json={"code": "result = ().__class__.__bases__"}, headers=alice
    ).json()
    assert escape["ok"] is False

    # bob's sandbox sees bob's state only
    bob = fresh_client.post(
        "/v1/projects/bob/repl", json={"code": "result = len(trips)"}, headers=fresh_root.auth("bob")
    )
    assert bob.status_code == 200
    assert bob.json()["ok"] is False and "trips" in bob.json()["error"]["message"]


def test_records_as_csv_and_bad_records(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    csv_text = "title,year\nDune,1965\nEmma,1815\n"
    ok = fresh_client.post(
        "/v1/projects/alice/records", json={"domain": "books", "collection": "books", "csv": csv_text}, headers=alice
    )
    assert ok.status_code == 200, ok.text
    both = fresh_client.post(
        "/v1/projects/alice/records",
        json={"domain": "books", "collection": "books", "csv": csv_text, "records": []},
        headers=alice,
    )
    assert both.status_code == 400
    bad_domain = fresh_client.post(
        "/v1/projects/alice/records", json={"domain": "../x", "collection": "c", "records": TRIPS}, headers=alice
    )
    assert bad_domain.status_code == 400 and bad_domain.json()["error"]["code"] == "invalid_name"


def test_compile_is_a_background_job(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    started = fresh_client.post("/v1/projects/alice/compile", json={"mode": "offline"}, headers=alice)
    assert started.status_code == 202, started.text
    job = started.json()
    assert job["status"] in ("queued", "running", "succeeded") and job["kind"] == "compile"
    assert started.headers["location"] == f"/v1/projects/alice/compile/{job['id']}"
    done = _wait(fresh_client, started.headers["location"], alice)
    assert done["status"] == "succeeded", done
    assert done["result"]["mode"] == "offline"
    assert fresh_client.get(f"/v1/jobs/{job['id']}", headers=alice).json()["status"] == "succeeded"
    # another user's token cannot see the job, under either route
    bob = fresh_root.auth("bob")
    assert fresh_client.get(f"/v1/jobs/{job['id']}", headers=bob).status_code == 404
    assert fresh_client.get(f"/v1/projects/bob/compile/{job['id']}", headers=bob).status_code == 404
    assert fresh_client.get("/v1/jobs/nope", headers=alice).status_code == 404


def test_a_compile_that_needs_a_model_fails_as_a_job_with_the_envelope(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    started = fresh_client.post("/v1/projects/alice/compile", json={"mode": "incremental"}, headers=alice)
    assert started.status_code == 202
    done = _wait(fresh_client, f"/v1/jobs/{started.json()['id']}", alice)
    assert done["status"] == "failed"
    assert done["error"]["code"] == "model_not_configured"
    assert "UAC_LLM_PROVIDER" in done["error"]["hint"]
