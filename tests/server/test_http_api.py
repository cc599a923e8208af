"""The HTTP API over real projects (FastAPI's TestClient, the library underneath)."""

from __future__ import annotations

import io
import json
import tarfile

import pytest

from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings

TRANSCRIPT = "Alice: I ran my first marathon in Berlin.\nBob: Well done!\n"


def test_openapi_schema_describes_the_routes_with_models(shared_client):
    schema = shared_client.get("/openapi.json").json()
    search = schema["paths"]["/v1/projects/{project}/search"]["post"]
    assert search["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/SearchRequest")
    assert "ErrorResponse" in schema["components"]["schemas"]
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    for route in ("/manifest", "/repl", "/ask", "/domains/{domain}", "/compile", "/export", "/sessions"):
        assert f"/v1/projects/{{project}}{route}" in schema["paths"], route


def test_the_change_log_routes_read_and_bound_their_query_the_same_way(shared_client):
    paths = shared_client.get("/openapi.json").json()["paths"]
    for path, bounds in (
        ("/history", {"domain": 64, "record": 200, "since": 40, "until": 40}),
        ("/diff", {"since": 40, "until": 40, "domain": 64}),
        ("/history/domains/{domain}", {"at": 40}),
    ):
        route = paths[f"/v1/projects/{{project}}{path}"]["get"]
        assert route["tags"] == ["read"] and route["summary"], path
        query = {p["name"]: p for p in route["parameters"] if p["in"] == "query"}
        lengths = {
            name: p["schema"].get("maxLength") or p["schema"]["anyOf"][0]["maxLength"]
            for name, p in query.items()
            if name in bounds
        }
        assert lengths == bounds, path
        assert all(
            query[name]["required"] is (name in ("at",) or (path == "/diff" and name == "since")) for name in bounds
        )


def test_search_returns_the_search_json_shape(shared_client, shared_root):
    response = shared_client.post(
        "/v1/projects/alice/search", json={"query": "dog named Rex", "k": 5}, headers=shared_root.auth("alice")
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert results and len(results) <= 5
    assert set(results[0]) == {"id", "channel", "text", "score", "session_id", "session_date", "evidence"}
    assert any("Rex" in r["text"] for r in results)
    facts_only = shared_client.post(
        "/v1/projects/alice/search", json={"query": "Rex", "channel": "facts"}, headers=shared_root.auth("alice")
    ).json()["results"]
    assert facts_only and {r["channel"] for r in facts_only} == {"facts"}
    # bob's memory never leaks into alice's results
    assert not any("cello" in r["text"] for r in results)


def test_search_as_of_before_any_session_finds_no_facts(shared_client, shared_root):
    response = shared_client.post(
        "/v1/projects/alice/search",
        json={"query": "Rex", "channel": "facts", "as_of": "2020-01-01"},
        headers=shared_root.auth("alice"),
    )
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_validation_errors_use_the_envelope(shared_client, shared_root):
    alice = shared_root.auth("alice")
    for body in (
        {"query": "x", "k": "many"},
        {"k": 3},
        {"query": "x", "channel": "everything"},
        {"query": "x", "bogus": 1},
    ):
        response = shared_client.post("/v1/projects/alice/search", json=body, headers=alice)
        assert response.status_code == 422, body
        error = response.json()["error"]
        assert error["code"] == "validation_error"
        assert error["message"].startswith("the request is invalid: body.")
    not_json = shared_client.post(
        "/v1/projects/alice/search", content=b"{not json", headers={**alice, "Content-Type": "application/json"}
    )
    assert not_json.status_code == 400 and not_json.json()["error"]["code"] == "input_error"
    assert "not valid JSON" in not_json.json()["error"]["message"]


def test_ask_without_a_model_returns_the_ranked_evidence(shared_client, shared_root):
    response = shared_client.post(
        "/v1/projects/alice/ask", json={"question": "What is my dog called?"}, headers=shared_root.auth("alice")
    )
    assert response.status_code == 200
    body = response.json()
    assert {"answer", "channels", "usage"} <= set(body)
    assert any("Rex" in f["text"] for f in body["channels"]["facts"])


def test_manifest_domains_and_project_info(shared_client, shared_root):
    alice = shared_root.auth("alice")
    manifest = shared_client.get("/v1/projects/alice/manifest", headers=alice).json()
    assert manifest["project"] == "alice"
    assert manifest["manifest"] == (shared_root.root / "alice" / "MANIFEST.md").read_text()
    info = shared_client.get("/v1/projects/alice", headers=alice).json()
    assert info["user_name"] == "Alice"
    assert info["facts"] == len(UserMemory.open(shared_root.root / "alice").facts()) > 0
    assert shared_client.get("/v1/projects/alice/domains", headers=alice).json() == {"domains": info["domains"]}
    missing = shared_client.get("/v1/projects/alice/domains/travel", headers=alice)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "domain_not_found"


def test_domain_code_is_served_from_the_project(fresh_client, fresh_root):
    folder = fresh_root.root / "alice" / "domains" / "pets"
    folder.mkdir(parents=True)
    (folder / "schema.py").write_text("from dataclasses import dataclass\n\n\n@dataclass\nclass Pet:\n    name: str\n")
    (folder / "state.py").write_text("from .schema import Pet\n\npets = [Pet(name='Rex')]\n")
    response = fresh_client.get("/v1/projects/alice/domains/pets", headers=fresh_root.auth("alice"))
    assert response.status_code == 200
    assert response.json()["files"]["state.py"].endswith("pets = [Pet(name='Rex')]\n")
    assert fresh_client.get("/v1/projects/alice/domains", headers=fresh_root.auth("alice")).json()["domains"] == [
        "pets"
    ]


def test_add_session_as_json_then_as_transcript_upload(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    session = {"date": "2023-07-02", "messages": [{"role": "user", "content": "I bought a red bicycle today."}]}
    first = fresh_client.post("/v1/projects/alice/sessions", json={"session": session}, headers=alice)
    assert first.status_code == 200, first.text
    assert first.json()["facts_appended"] >= 1 and first.json()["file"] is None
    again = fresh_client.post("/v1/projects/alice/sessions", json={"session": session}, headers=alice).json()
    assert again["sessions_added"] == [] and again["skipped"] is True
    upload = fresh_client.post(
        "/v1/projects/alice/sessions/upload?format=transcript&date=2023-08-01",
        content=TRANSCRIPT.encode(),
        headers={**alice, "Content-Type": "text/plain"},
    )
    assert upload.status_code == 200, upload.text
    assert upload.json()["sessions_added"]
    hits = fresh_client.post("/v1/projects/alice/search", json={"query": "marathon Berlin"}, headers=alice).json()
    assert any("marathon" in h["text"] for h in hits["results"])
    assert any("bicycle" in f.text for f in UserMemory.open(fresh_root.root / "alice").facts())


def test_bad_session_input_is_a_400_naming_the_request_body(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    log = (fresh_root.root / "alice" / "memory" / "facts.jsonl").read_bytes()
    bad = fresh_client.post(
        "/v1/projects/alice/sessions/upload", content=b'{"date": "2023-01-01", "messages": [', headers=alice
    )
    assert bad.status_code == 400
    error = bad.json()["error"]
    assert error["code"] == "input_error"
    assert "the request body" in error["message"] and "/tmp" not in error["message"]
    both = fresh_client.post("/v1/projects/alice/sessions", json={"session": {}, "text": "A: hi"}, headers=alice)
    assert both.status_code == 400
    no_date = fresh_client.post(
        "/v1/projects/alice/sessions",
        json={"session": {"messages": [{"role": "user", "content": "hi"}]}},
        headers=alice,
    )
    assert no_date.status_code == 400 and "date" in no_date.json()["error"]["message"]
    assert (fresh_root.root / "alice" / "memory" / "facts.jsonl").read_bytes() == log


def test_a_step_that_needs_a_model_answers_503_with_the_how_to(fresh_client, fresh_root):
    session = {"date": "2023-07-02", "messages": [{"role": "user", "content": "I like tea."}]}
    response = fresh_client.post(
        "/v1/projects/alice/sessions", json={"session": session, "extractor": "llm"}, headers=fresh_root.auth("alice")
    )
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "model_not_configured"
    assert "UAC_LLM_PROVIDER" in error["hint"]


def test_forget_a_fact_and_a_session(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    facts = fresh_client.get("/v1/projects/alice/facts", headers=alice).json()["facts"]
    assert [f["id"] for f in facts] == [f.id for f in UserMemory.open(fresh_root.root / "alice").facts()]
    assert len(facts) >= 2
    gone = fresh_client.delete(f"/v1/projects/alice/facts/{facts[0]['id']}", headers=alice)
    assert gone.status_code == 200, gone.text
    left = fresh_client.get("/v1/projects/alice/facts", headers=alice).json()["facts"]
    assert [f["id"] for f in left] == [f["id"] for f in facts[1:]]
    hits = fresh_client.post(
        "/v1/projects/alice/search", json={"query": "golden retriever Rex", "channel": "facts"}, headers=alice
    ).json()["results"]
    assert facts[0]["id"] not in {h["id"] for h in hits}
    session_id = facts[1]["session_id"]
    assert fresh_client.delete(f"/v1/projects/alice/sessions/{session_id}", headers=alice).status_code == 200
    assert fresh_client.get("/v1/projects/alice/facts", headers=alice).json()["facts"] == []
    unknown = fresh_client.delete("/v1/projects/alice/facts/nope-f1", headers=alice)
    assert unknown.status_code in (400, 404) and "error" in unknown.json()


def test_export_is_a_tarball_without_derived_data_or_tokens(shared_client, shared_root):
    response = shared_client.get("/v1/projects/alice/export", headers=shared_root.auth("alice"))
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/gzip"
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as tar:
        names = tar.getnames()
    assert "alice/uac.toml" in names and "alice/memory/facts.jsonl" in names
    assert not any(n.startswith(("alice/.uac", "alice/auth")) for n in names)


def test_create_project_with_the_admin_token(fresh_client, fresh_root):
    admin = {"Authorization": f"Bearer {fresh_root.admin}"}
    created = fresh_client.post("/v1/projects", json={"name": "carol", "user_name": "Carol"}, headers=admin)
    assert created.status_code == 201, created.text
    token = created.json()["token"]
    carol = {"Authorization": f"Bearer {token}"}
    assert fresh_client.get("/v1/projects/carol", headers=carol).json()["user_name"] == "Carol"
    assert fresh_client.get("/v1/projects/alice", headers=carol).status_code == 403
    twice = fresh_client.post("/v1/projects", json={"name": "carol"}, headers=admin)
    assert twice.status_code == 409 and twice.json()["error"]["code"] == "project_exists"
    for bad in ("../evil", "/etc", ".hidden", "a/b", ""):
        refused = fresh_client.post("/v1/projects", json={"name": bad}, headers=admin)
        assert refused.status_code in (400, 422), bad
    assert not (fresh_root.root.parent / "evil").exists()
    bad_zone = fresh_client.post("/v1/projects", json={"name": "dave", "timezone": "Mars/Olympus"}, headers=admin)
    assert bad_zone.status_code == 400 and not (fresh_root.root / "dave").exists()


def test_oversized_bodies_are_refused_before_reading(fresh_root):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    with TestClient(create_app(fresh_root.root, max_body_bytes=2_000)) as client:
        alice = fresh_root.auth("alice")
        big = {"query": "x" * 5_000}
        response = client.post("/v1/projects/alice/search", json=big, headers=alice)
        assert response.status_code == 413
        assert response.json()["error"]["code"] == "request_too_large"

        def chunks():
            for _ in range(10):
                yield b"A: " + b"y" * 500 + b"\n"

        streamed = client.post("/v1/projects/alice/sessions/upload", content=chunks(), headers=alice)
        assert streamed.status_code == 413
        small = client.post("/v1/projects/alice/search", json={"query": "Rex"}, headers=alice)
        assert small.status_code == 200


def test_unknown_routes_and_methods_use_the_envelope(shared_client, shared_root):
    response = shared_client.get("/v1/nothing-here")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    wrong = shared_client.put("/v1/projects/alice/search", headers=shared_root.auth("alice"))
    assert wrong.status_code == 405 and wrong.json()["error"]["code"] == "method_not_allowed"


def test_error_status_mapping_covers_the_exception_tree():
    from uac import errors as e
    from uac.server.errors import code_for, status_for

    assert status_for(e.ProjectLocked("x")) == 423
    assert status_for(e.ModelNotConfigured("x")) == 503
    assert status_for(e.SandboxError("x")) == 500
    assert status_for(e.ProjectNotFound("x")) == 404
    assert status_for(e.ProjectExists("x")) == 409
    assert status_for(e.InputError("x")) == 400
    assert status_for(e.StoreError("x")) == 503
    assert code_for(e.ModelNotConfigured("x")) == "model_not_configured"
    assert status_for(e.AccessDenied("x")) == 403


def test_doctor_route_reports_and_repairs(fresh_client, fresh_root):
    import shutil

    alice = fresh_root.auth("alice")
    healthy = fresh_client.post("/v1/projects/alice/doctor", headers=alice)
    assert healthy.status_code == 200 and healthy.json()["ok"] is True
    shutil.rmtree(fresh_root.root / "alice" / ".uac" / "index")
    broken = fresh_client.post("/v1/projects/alice/doctor", json={"repair": False}, headers=alice).json()
    assert broken["ok"] is False
    repaired = fresh_client.post("/v1/projects/alice/doctor", json={"repair": True}, headers=alice).json()
    assert repaired["ok"] is True
    hits = fresh_client.post("/v1/projects/alice/search", json={"query": "Rex"}, headers=alice).json()["results"]
    assert any("Rex" in h["text"] for h in hits)


def test_parallel_readers_and_writers_share_the_warm_projects(fresh_root):
    from concurrent.futures import ThreadPoolExecutor

    from uac.server.workspace import ServedWorkspace

    workspace = ServedWorkspace(fresh_root.root)
    sessions = [
        {"date": "2023-10-02", "messages": [{"role": "user", "content": f"I repaired bicycle number {n}."}]}
        for n in range(6)
    ]

    def read(user: str) -> int:
        with workspace.instances.searching(user) as memory:
            return len(memory.search("dog Rex cello", k=5))

    def write(n: int) -> int:
        path = fresh_root.root.parent / f"s{n}.json"
        path.write_text(json.dumps(sessions[n]))
        return workspace.instances.writer("alice").ingest(path).facts_appended

    with ThreadPoolExecutor(12) as pool:
        reads = [pool.submit(read, user) for user in ("alice", "bob") * 12]
        writes = [pool.submit(write, n) for n in range(6)]
        assert all(f.result() > 0 for f in reads)
        appended = sum(f.result() for f in writes)
    texts = [f.text for f in UserMemory.open(fresh_root.root / "alice").facts()]
    assert appended >= 6 and sum("bicycle number" in t for t in texts) == 6
    with workspace.instances.searching("alice") as memory:
        found = memory.search("repaired bicycle", channel="facts", k=10)
    assert sum("bicycle number" in h.text for h in found) == 6


def test_search_returns_imported_records_with_their_pointer(fresh_client, fresh_root, tmp_path):
    from uac.memory import UserMemory

    (tmp_path / "trips.csv").write_text("city,start\nKyoto,2023-04-02\n", "utf-8")
    memory = UserMemory.open(fresh_root.root / "alice")
    memory.import_records(tmp_path / "trips.csv", domain="travel", collection="trips")
    memory.close()
    results = fresh_client.post(
        "/v1/projects/alice/search", json={"query": "Who went to Kyoto?", "k": 5}, headers=fresh_root.auth("alice")
    ).json()["results"]
    record = next(r for r in results if r["channel"] == "records")
    assert record["record"] == {
        "domain": "travel",
        "collection": "trips",
        "position": 0,
        "record_type": "Trip",
        "source": "record:trips.csv#0",
    }
    assert "Kyoto" in record["text"] and record["session_id"] == "" and record["evidence"] == []
    others = [r for r in results if r["channel"] != "records"]
    assert others and all("record" not in r for r in others)
    only = fresh_client.post(
        "/v1/projects/alice/search", json={"query": "Kyoto", "channel": "records"}, headers=fresh_root.auth("alice")
    ).json()["results"]
    assert [r["channel"] for r in only] == ["records"]


def test_history_diff_and_as_of_routes(fresh_client, fresh_root):
    from uac.memory import UserMemory

    alice = fresh_root.auth("alice")
    with UserMemory.open(fresh_root.root / "alice") as memory:
        memory.compile(mode="offline")
        expected = memory.history().to_json()
        domain = expected["changes"][0]["domain"]
    assert expected["total"] >= 1
    history = fresh_client.get("/v1/projects/alice/history", headers=alice)
    assert history.status_code == 200 and history.json() == expected
    assert fresh_client.get("/v1/projects/alice/history?limit=1", headers=alice).json()["truncated"] == (
        expected["total"] > 1
    )
    diff = fresh_client.get("/v1/projects/alice/diff?since=2000-01-01", headers=alice).json()
    assert diff["changes"] == expected["total"]
    at = fresh_client.get(f"/v1/projects/alice/history/domains/{domain}?at=c1", headers=alice).json()
    assert at["domain"] == domain and at["compile"] == "c1"
    assert fresh_client.get("/v1/projects/alice/history?since=c99", headers=alice).status_code == 404
    assert fresh_client.get("/v1/projects/alice/history?since=someday", headers=alice).status_code == 400
    assert fresh_client.get("/v1/projects/alice/history?since=2999-01-01", headers=alice).json()["total"] == 0
    assert fresh_client.get("/v1/projects/alice/history/domains/..%2Fx?at=c1", headers=alice).status_code in (400, 404)
