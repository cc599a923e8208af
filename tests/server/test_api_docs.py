"""/docs and /redoc: served from this server's own files, under a policy that keeps them away from the
inspector, with no script of another site and none inline."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from uac.server.http import create_app, docs


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with TestClient(create_app(tmp_path_factory.mktemp("docs-root"))) as client:
        yield client


def _directives(policy: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (p.strip() for p in policy.split(";")) if d}


@pytest.mark.parametrize(
    "url, bundle, name",
    [("/docs", "swagger-ui-bundle.js", "SwaggerUIBundle"), ("/redoc", "redoc.standalone.js", "Redoc")],
)
def test_the_docs_pages_load_only_this_servers_files(client, url, bundle, name):
    page = client.get(url)
    assert page.status_code == 200
    # nothing from another site, nothing inline
    sources = re.findall(r'(?:src|href)="([^"]*)"', page.text)
    assert sources and all(s.startswith("/docs/assets/") for s in sources), sources
    assert "//" not in page.text.replace("<!doctype html>", "")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts and all('src="' in attrs and not body.strip() for attrs, body in scripts)
    assert f"/docs/assets/{bundle}" in page.text
    for source in sources:
        asset = client.get(source)
        assert asset.status_code == 200, source
        assert asset.headers["x-content-type-options"] == "nosniff"
    code = client.get(f"/docs/assets/{bundle}")
    assert code.headers["content-type"].startswith("text/javascript") and len(code.content) > 100_000
    assert name in code.text[:5000] or name in code.text


def test_the_docs_policy_allows_scripts_from_here_and_requests_to_the_api_only(client):
    for url in ("/docs", "/redoc", "/docs/assets/swagger-start.js"):
        policy = _directives(client.get(url).headers["content-security-policy"])
        assert policy["default-src"] == ["'none'"]
        assert policy["script-src"] == ["'self'"]  # no inline script, no eval, no other site
        assert policy["connect-src"] == ["http://testserver/openapi.json", "http://testserver/v1/"]
        assert policy["form-action"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
        assert policy["base-uri"] == ["'none'"]
    # Swagger UI needs no inline style; ReDoc adds <style> elements and runs its search in a worker
    assert _directives(client.get("/docs").headers["content-security-policy"])["style-src"] == ["'self'"]
    redoc = _directives(client.get("/redoc").headers["content-security-policy"])
    assert redoc["style-src"] == ["'self'", "'unsafe-inline'"] and redoc["worker-src"] == ["blob:"]
    # a Host the policy cannot name safely gets no requests at all
    for host in ("a.b;script-src", "x'y", "x,y"):
        odd = client.get("/docs", headers={"Host": host})
        assert _directives(odd.headers["content-security-policy"])["connect-src"] == ["'none'"], host
    assert client.get("/openapi.json").json()["info"]["title"] == "uac"
    missing = client.get("/docs/assets/nope.js")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_without_the_assets_package_the_pages_say_what_to_install(client, monkeypatch):
    monkeypatch.setattr(docs, "assets_dir", lambda: None)
    for url in ("/docs", "/redoc"):
        page = client.get(url)
        assert page.status_code == 503 and "pip install 'uac[server]'" in page.text.replace("&#x27;", "'")
        assert "<script" not in page.text
