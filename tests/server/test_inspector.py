"""The web inspector at /ui over HTTP: sign-in, CSRF, isolation, escaping, actions, bad input."""

from __future__ import annotations

import base64
import json
import re

import pytest
from fastapi.testclient import TestClient

from uac.server.http import create_app
from uac.server.ui.signin import COOKIE

from .conftest import snapshot_tree

#: what a browser sends with a form of the inspector's own pages
OWN = {"Origin": "http://testserver"}


def sign_in(client: TestClient, project: str, token: str):
    page = client.get("/ui/signin")
    nonce = re.search(r'name="nonce" value="([^"]+)"', page.text).group(1)
    return client.post(
        "/ui/signin", data={"nonce": nonce, "project": project, "token": token}, follow_redirects=False, headers=OWN
    )


def csrf_of(client: TestClient, url: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(url).text).group(1)


@pytest.fixture
def ui(fresh_root):
    with TestClient(create_app(fresh_root.root), headers=OWN) as client:
        yield client, fresh_root


def test_sign_in_sets_a_strict_httponly_cookie_and_no_token_in_urls(ui):
    client, root = ui
    response = sign_in(client, "alice", root.tokens["alice"])
    assert response.status_code == 303 and response.headers["location"] == "/ui/p/alice"
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/ui" in cookie
    page = client.get("/ui/p/alice")
    assert page.status_code == 200
    assert root.tokens["alice"] not in page.text
    assert "script-src" not in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert "<script" not in page.text
    # every form carries a CSRF token
    forms = re.findall(r"<form[^>]*>(.*?)</form>", page.text, re.S)
    assert forms and all('name="csrf"' in f for f in forms)


def test_wrong_tokens_and_unknown_projects_get_the_same_answer(ui):
    client, root = ui
    wrong = sign_in(client, "alice", root.tokens["bob"])
    missing = sign_in(client, "carol", root.tokens["bob"])
    assert wrong.status_code == missing.status_code == 401

    def strip(text):
        return re.sub(r'value="[^"]*"', "", text)

    assert strip(wrong.text).replace("carol", "alice") == strip(missing.text).replace("carol", "alice")
    assert COOKIE not in client.cookies


def test_sign_in_needs_its_form_nonce(ui):
    client, root = ui
    response = client.post(
        "/ui/signin",
        data={"nonce": "forged", "project": "alice", "token": root.tokens["alice"]},
        follow_redirects=False,
    )
    assert response.status_code == 403 and f"{COOKIE}=" not in response.headers.get("set-cookie", "")


def test_bobs_cookie_does_not_open_alices_pages(ui):
    client, root = ui
    sign_in(client, "bob", root.tokens["bob"])
    for url in ("/ui/p/alice", "/ui/p/alice/facts", "/ui/p/carol", "/ui/p/alice/fact?id=x"):
        page = client.get(url)
        assert page.status_code == 403, url
        assert "Rex" not in page.text and "golden" not in page.text
    assert client.get("/ui/p/bob").status_code == 200


def test_stale_and_forged_cookies_ask_to_sign_in_again(ui):
    client, root = ui
    # the cookie an older inspector set: the project and the token itself, base64 JSON
    raw_token = base64.urlsafe_b64encode(json.dumps({"p": "alice", "t": root.tokens["alice"]}).encode()).decode()
    for value in ("garbage", raw_token, root.tokens["alice"]):
        client.cookies.set(COOKIE, value, path="/ui")
        response = client.get("/ui/p/alice", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == "/ui/signin?reason=stale"
        assert 'uac_ui=""' in response.headers["set-cookie"]
        client.cookies.clear()
    # a revoked token signs its pages out
    sign_in(client, "alice", root.tokens["alice"])
    token_id = root.tokens["alice"].split("_")[1]
    from uac.server.tokens import TokenStore

    TokenStore.for_project(root.root / "alice").revoke(token_id)
    assert client.get("/ui/p/alice", follow_redirects=False).headers["location"] == "/ui/signin?reason=stale"


def test_posts_without_the_csrf_token_change_nothing(ui):
    client, root = ui
    sign_in(client, "alice", root.tokens["alice"])
    fact = client.get("/ui/p/alice/facts")
    fact_id = re.search(r'href="/ui/p/alice/fact\?id=([^"]+)"', fact.text).group(1)
    before = snapshot_tree(root.root / "alice")
    for data in ({"fact": fact_id, "confirm": "yes"}, {"fact": fact_id, "confirm": "yes", "csrf": "0" * 64}):
        response = client.post("/ui/p/alice/forget", data=data)
        assert response.status_code == 403 and "nothing was changed" in response.text
    response = client.post("/ui/p/alice/correct", data={"text": "Rex is a labrador."})
    assert response.status_code == 403
    assert snapshot_tree(root.root / "alice") == before


def test_bad_ids_and_empty_corrections_are_clear_pages(ui):
    client, root = ui
    sign_in(client, "alice", root.tokens["alice"])
    before = snapshot_tree(root.root / "alice")
    for url, words in (
        ("/ui/p/alice/fact?id=no-such-fact", "no fact 'no-such-fact'"),
        ("/ui/p/alice/fact", "no fact id given"),
        ("/ui/p/alice/d/nodomain", "no domain 'nodomain'"),
        ("/ui/p/alice/session?id=nope", "no session 'nope'"),
        ("/ui/p/alice/forget?fact=nope", "no fact 'nope'"),
        ("/ui/p/alice/fact?id=../../bob", "invalid fact id"),
    ):
        page = client.get(url)
        assert page.status_code in (400, 404), url
        assert words in page.text.replace("&#39;", "'"), (url, page.text)
        assert str(root.root) not in page.text
    csrf = csrf_of(client, "/ui/p/alice/correct")
    page = client.post("/ui/p/alice/correct", data={"csrf": csrf, "text": "   "})
    assert page.status_code == 400 and "needs its text" in page.text
    page = client.post("/ui/p/alice/forget", data={"csrf": csrf, "fact": "nope", "confirm": "yes"})
    assert page.status_code == 404
    assert snapshot_tree(root.root / "alice") == before


def test_forget_confirms_with_the_citing_records_then_removes(ui):
    client, root = ui
    from uac.memory import UserMemory

    memory = UserMemory.open(root.root / "alice")
    memory.compile()
    fact = next(f for f in memory.facts() if "Lisbon" in f.text)
    citing = memory.records_citing([fact.id])
    memory.close()
    assert citing
    sign_in(client, "alice", root.tokens["alice"])
    confirm = client.get(f"/ui/p/alice/forget?fact={fact.id}")
    assert confirm.status_code == 200
    assert f"{citing[0].domain}.{citing[0].collection} #{citing[0].position}" in confirm.text
    csrf = csrf_of(client, "/ui/p/alice/facts")
    done = client.post("/ui/p/alice/forget", data={"csrf": csrf, "fact": fact.id, "confirm": "yes"})
    assert done.status_code == 200 and "forgotten" in done.text
    assert client.get(f"/ui/p/alice/fact?id={fact.id}").status_code == 404
    assert "Lisbon" not in (root.root / "alice" / "memory" / "facts.jsonl").read_text("utf-8")


def test_a_correction_from_the_page(ui):
    client, root = ui
    sign_in(client, "alice", root.tokens["alice"])
    facts = client.get("/ui/p/alice/facts").text
    rex = re.search(
        r'href="/ui/p/alice/fact\?id=([^"]+)"><bdi>[^<]*</bdi></a> <bdi>[^<]*golden retriever', facts
    ).group(1)
    form = client.get(f"/ui/p/alice/correct?supersedes={rex}")
    assert form.status_code == 200 and "golden retriever" in form.text
    csrf = csrf_of(client, "/ui/p/alice/correct")
    page = client.post("/ui/p/alice/correct", data={"csrf": csrf, "text": "Rex is a labrador.", "supersedes": rex})
    assert page.status_code == 200 and "Rex is a labrador." in page.text and "correction" in page.text
    old = client.get(f"/ui/p/alice/fact?id={rex}").text
    assert "superseded by" in old


def test_conversation_text_is_escaped(fresh_root):
    from uac.memory import UserMemory

    memory = UserMemory.open(fresh_root.root / "alice")
    memory.correct('I like <script>alert("x")</script> and <a href="javascript:alert(1)">links</a>.')
    memory.compile()
    memory.close()
    with TestClient(create_app(fresh_root.root), headers=OWN) as client:
        sign_in(client, "alice", fresh_root.tokens["alice"])
        page = client.get("/ui/p/alice/facts")
        assert "&lt;script&gt;alert(" in page.text
        assert "<script" not in page.text and 'href="javascript:' not in page.text


def test_search_console_and_ask_without_a_model(ui):
    client, root = ui
    sign_in(client, "alice", root.tokens["alice"])
    csrf = csrf_of(client, "/ui/p/alice/search")
    page = client.post("/ui/p/alice/search", data={"csrf": csrf, "q": "Lisbon trip", "channel": "facts"})
    assert page.status_code == 200 and "Lisbon" in page.text and 'class="tag">facts' in page.text
    page = client.post("/ui/p/alice/console", data={"csrf": csrf, "code": "result = 6 * 7"})
    assert re.search(r'id="run-result"><bdi>42</bdi><', page.text)
    page = client.post("/ui/p/alice/console", data={"csrf": csrf, "code": "import os"})
    assert 'id="run-error"' in page.text
    page = client.get("/ui/p/alice/ask")
    assert 'id="no-model"' in page.text


def test_corrections_over_the_api(fresh_client, fresh_root):
    facts = fresh_client.get("/v1/projects/alice/facts", headers=fresh_root.auth("alice")).json()["facts"]
    rex = next(f["id"] for f in facts if "Rex" in f["text"])
    response = fresh_client.post(
        "/v1/projects/alice/corrections",
        headers=fresh_root.auth("alice"),
        json={"text": "Rex is a labrador.", "supersedes": [rex]},
    )
    assert response.status_code == 201 and response.json()["superseded"] == [rex]
    response = fresh_client.post(
        "/v1/projects/alice/corrections",
        headers=fresh_root.auth("alice"),
        json={"text": "again", "supersedes": ["nope"]},
    )
    assert response.status_code == 404 and response.json()["error"]["code"] == "fact_not_found"
    response = fresh_client.post("/v1/projects/alice/corrections", headers=fresh_root.auth("bob"), json={"text": "x"})
    assert response.status_code == 403


def test_the_changes_page_links_records_facts_and_the_forget_flow(ui):
    client, root = ui
    from uac.memory import UserMemory

    with UserMemory.open(root.root / "alice") as memory:
        memory.compile()
        change = memory.history().changes[-1].to_json()
        fact = next(f for f in memory.facts() if "Lisbon" in f.text)
    sign_in(client, "alice", root.tokens["alice"])
    timeline = client.get("/ui/p/alice/changes")
    assert timeline.status_code == 200 and 'id="changes"' in timeline.text
    assert change["record"] in timeline.text and 'class="record-link"' in timeline.text
    assert f"/ui/p/alice/d/{change['domain']}?q=" in timeline.text
    assert f"/ui/p/alice/fact?id={fact.id}" in timeline.text
    assert (
        f"/ui/p/alice/forget?fact={fact.id}" in timeline.text
        and f"/ui/p/alice/correct?supersedes={fact.id}" in timeline.text
    )
    only = client.get(f"/ui/p/alice/changes?domain={change['domain']}").text
    assert only.count('class="change ') == sum(
        1 for c in UserMemory.open(root.root / "alice").history().changes if c.change.domain == change["domain"]
    )
    assert client.get("/ui/p/alice/changes?domain=../x").status_code == 400
    # forgetting from a change goes through the page's confirm and CSRF flow; the change goes with the fact
    csrf = csrf_of(client, "/ui/p/alice/facts")
    assert client.post("/ui/p/alice/forget", data={"fact": fact.id, "confirm": "yes"}).status_code == 403
    done = client.post("/ui/p/alice/forget", data={"csrf": csrf, "fact": fact.id, "confirm": "yes"})
    assert done.status_code == 200
    assert "Lisbon" not in client.get("/ui/p/alice/changes").text
