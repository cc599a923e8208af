"""Authentication and isolation: every project route needs a token of that project."""

from __future__ import annotations

import re

import pytest

from uac.server.tokens import TokenStore

pytestmark = pytest.mark.embeddings

OPEN_ROUTES = {("get", "/v1/health")}
ADMIN_ROUTES = {("get", "/v1/projects"), ("post", "/v1/projects")}


def _routes(client):
    for path, item in client.app.openapi()["paths"].items():
        for method in item:
            yield method, path


def _fill(path: str, project: str = "alice") -> str:
    return re.sub(r"\{[a-z_]+\}", "x1", path.replace("{project}", project))


def test_every_project_route_refuses_requests_without_a_token(shared_client):
    checked = 0
    for method, path in _routes(shared_client):
        if (method, path) in OPEN_ROUTES:
            continue
        response = shared_client.request(method, _fill(path), json={})
        assert response.status_code == 401, (method, path, response.text)
        assert response.json()["error"]["code"] == "unauthenticated"
        assert response.headers["www-authenticate"] == "Bearer"
        checked += 1
    assert checked >= 20


def test_a_token_of_one_user_opens_nothing_of_another(shared_client, shared_root):
    bob = shared_root.auth("bob")
    checked = 0
    for method, path in _routes(shared_client):
        if (method, path) in OPEN_ROUTES or (method, path) in ADMIN_ROUTES:
            continue
        response = shared_client.request(method, _fill(path, "alice"), json={}, headers=bob)
        expected = 404 if path.startswith("/v1/jobs/") else 403
        assert response.status_code == expected, (method, path, response.text)
        assert "error" in response.json()
        checked += 1
    assert checked >= 18
    # and bob's own project answers
    assert shared_client.get("/v1/projects/bob/manifest", headers=bob).status_code == 200


def test_wrong_and_malformed_tokens_are_refused(shared_client, shared_root):
    alice_token = shared_root.tokens["alice"]
    for token in ("nope", alice_token + "x", alice_token[:-1], "uac_00000000_" + "a" * 43, shared_root.admin):
        response = shared_client.post(
            "/v1/projects/alice/search", json={"query": "dog"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 403, token
    response = shared_client.post(
        "/v1/projects/alice/search", json={"query": "dog"}, headers={"Authorization": f"Basic {alice_token}"}
    )
    assert response.status_code == 401


def test_unknown_project_looks_the_same_as_a_foreign_one(shared_client, shared_root):
    alice = shared_root.auth("alice")
    missing = shared_client.get("/v1/projects/carol/manifest", headers=alice)
    foreign = shared_client.get("/v1/projects/bob/manifest", headers=alice)
    assert missing.status_code == foreign.status_code == 403
    assert missing.json()["error"]["code"] == foreign.json()["error"]["code"] == "forbidden"


def test_admin_routes_need_the_admin_token(shared_client, shared_root):
    assert shared_client.get("/v1/projects", headers=shared_root.auth("alice")).status_code == 403
    response = shared_client.get("/v1/projects", headers={"Authorization": f"Bearer {shared_root.admin}"})
    assert response.status_code == 200
    assert response.json() == {"projects": ["alice", "bob"]}


def test_admin_token_from_the_environment(shared_client, monkeypatch):
    monkeypatch.setenv("UAC_ADMIN_TOKEN", "operator-secret-123")
    ok = shared_client.get("/v1/projects", headers={"Authorization": "Bearer operator-secret-123"})
    assert ok.status_code == 200
    monkeypatch.delenv("UAC_ADMIN_TOKEN")
    assert shared_client.get("/v1/projects", headers={"Authorization": "Bearer operator-secret-123"}).status_code == 403


@pytest.mark.parametrize(
    "path",
    [
        "/v1/projects/%2e%2e/manifest",
        "/v1/projects/..%2F..%2Fetc/manifest",
        "/v1/projects/%2Fetc%2Fpasswd/manifest",
        "/v1/projects/.uac-admin/manifest",
        "/v1/projects/alice%00/manifest",
        "/v1/projects/alice/domains/..%2F..%2Fuac.toml",
        "/v1/projects/alice/domains/%2e%2e",
        "/v1/projects/alice/domains/__init__",
    ],
)
def test_traversal_attempts_are_refused(shared_client, shared_root, path):
    response = shared_client.get(path, headers=shared_root.auth("alice"))
    assert response.status_code in (400, 403, 404), response.text
    body = response.json()
    assert set(body) == {"error"}
    assert "format_version" not in response.text and "root:" not in response.text


def test_tokens_are_stored_hashed_outside_derived_data(fresh_root):
    store = TokenStore.for_project(fresh_root.root / "alice")
    text = store.path.read_text()
    assert store.path.relative_to(fresh_root.root / "alice").parts[0] == "auth"
    assert fresh_root.tokens["alice"] not in text
    secret = fresh_root.tokens["alice"].split("_", 2)[2]  # the secret may itself hold "_"
    assert len(secret) >= 40 and secret not in text
    assert store.verify(fresh_root.tokens["alice"]) is not None


def test_tokens_survive_doctor_repair_that_rebuilds_internal_data(fresh_root, fresh_client):
    import shutil

    from uac.memory import UserMemory

    shutil.rmtree(fresh_root.root / "alice" / ".uac")
    UserMemory.open(fresh_root.root / "alice").doctor(repair=True)
    response = fresh_client.post("/v1/projects/alice/search", json={"query": "dog"}, headers=fresh_root.auth("alice"))
    assert response.status_code == 200
    assert response.json()["results"]


def test_revoked_token_is_refused_and_new_tokens_work(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    created = fresh_client.post("/v1/projects/alice/tokens", json={"name": "laptop"}, headers=alice)
    assert created.status_code == 201
    new = created.json()
    assert new["token"].startswith("uac_") and new["name"] == "laptop"
    second = {"Authorization": f"Bearer {new['token']}"}
    assert fresh_client.get("/v1/projects/alice/manifest", headers=second).status_code == 200
    listed = fresh_client.get("/v1/projects/alice/tokens", headers=alice).json()["tokens"]
    assert {t["id"] for t in listed} >= {new["id"]}
    assert all("sha256" not in t for t in listed)
    assert fresh_client.delete(f"/v1/projects/alice/tokens/{new['id']}", headers=alice).status_code == 200
    assert fresh_client.get("/v1/projects/alice/manifest", headers=second).status_code == 403
    assert fresh_client.get("/v1/projects/alice/manifest", headers=alice).status_code == 200
