"""The inspector's sign-in: server-side sessions, the origin check, and every route's answer to every
kind of credential."""

from __future__ import annotations

import base64
import binascii
import re

import pytest
from fastapi.testclient import TestClient

from uac.memory import UserMemory
from uac.server.http import create_app
from uac.server.tokens import TokenStore
from uac.server.ui.pages import router as ui_router
from uac.server.ui.sessions import InspectorState, NonceStore, SessionLimits, SessionStore
from uac.server.ui.signin import COOKIE, LOGIN_COOKIE

from .conftest import snapshot_tree

OWN = {"Origin": "http://testserver"}
#: what a browser sends with a form posted from a page on another port of the same host
OTHER_PORT = {"Origin": "http://testserver:8999", "Sec-Fetch-Site": "same-site"}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    """alice and bob with a token each and nothing ingested (nothing here needs the model)."""
    root = tmp_path_factory.mktemp("bare") / "root"
    tokens = {}
    for user in ("alice", "bob"):
        UserMemory.create(root / user, user_name=user.capitalize()).close()
        tokens[user], _ = TokenStore.for_project(root / user).create("test")
    return root, tokens


@pytest.fixture
def app(bare):
    return create_app(bare[0])


def client_of(app, **headers) -> TestClient:
    return TestClient(app, headers={**OWN, **headers})


def nonce_of(client: TestClient) -> str:
    return re.search(r'name="nonce" value="([^"]+)"', client.get("/ui/signin").text).group(1)


def sign_in(client: TestClient, project: str, token: str):
    return client.post(
        "/ui/signin", data={"nonce": nonce_of(client), "project": project, "token": token}, follow_redirects=False
    )


def csrf_of(client: TestClient, url: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(url).text).group(1)


def signed_in(app, project: str, token: str) -> tuple[TestClient, str]:
    client = client_of(app)
    assert sign_in(client, project, token).status_code == 303
    return client, client.cookies[COOKIE]


def put_cookie(client: TestClient, value: str, name: str = COOKIE) -> None:
    """The cookie a browser would send: ``value`` in place of whatever it had."""
    client.cookies.delete(name)
    client.cookies.set(name, value, path="/ui")


def is_stale(response) -> bool:
    return response.status_code == 303 and response.headers["location"] == "/ui/signin?reason=stale"


# --- the session cookie ---------------------------------------------------------------------


def test_the_cookie_holds_a_random_session_id_and_no_token(app, bare):
    _root, tokens = bare
    with client_of(app) as client:
        response = sign_in(client, "alice", tokens["alice"])
        cookie = response.headers["set-cookie"]
        value = client.cookies[COOKIE]
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", value)  # 256 random bits
        assert tokens["alice"] not in value and tokens["alice"].split("_", 2)[2] not in value
        try:
            decoded = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except binascii.Error:
            decoded = b""
        assert b"alice" not in decoded and tokens["alice"].encode() not in decoded
        for flag in ("HttpOnly", "SameSite=strict", "Path=/ui", "Max-Age=43200"):
            assert flag in cookie, flag
        assert "Secure" not in cookie
        # a second sign-in gets another id, and ends the first
        assert sign_in(client, "alice", tokens["alice"]).status_code == 303
        assert client.cookies[COOKIE] != value
        put_cookie(client, value)
        assert is_stale(client.get("/ui/p/alice/facts", follow_redirects=False))
    with TestClient(app, base_url="https://testserver", headers={"Origin": "https://testserver"}) as secure:
        assert "Secure" in sign_in(secure, "alice", tokens["alice"]).headers["set-cookie"]


def test_the_session_cookie_opens_no_api_route_and_mints_no_token(app, bare):
    root, tokens = bare
    client, session_id = signed_in(app, "alice", tokens["alice"])
    before = snapshot_tree(root / "alice")
    checked = 0
    with client:
        for path, item in app.openapi()["paths"].items():
            for method in item:
                url = path.replace("{project}", "alice")
                url = re.sub(r"\{[a-z_]+\}", "x1", url)
                if url == "/v1/health":
                    continue
                as_cookie = client.request(method, url, json={}, headers={"Cookie": f"{COOKIE}={session_id}"})
                assert as_cookie.status_code == 401, (method, path, as_cookie.text)
                as_bearer = client.request(method, url, json={}, headers={"Authorization": f"Bearer {session_id}"})
                assert as_bearer.status_code in (403, 404), (method, path, as_bearer.text)
                checked += 1
        assert checked >= 20
        # the inspector has no route that makes a token, and the API's refuses the session
        minted = client.post(
            "/v1/projects/alice/tokens", json={"name": "x"}, headers={"Cookie": f"{COOKIE}={session_id}"}
        )
        assert minted.status_code == 401
        assert not [r for r in ui_router.routes if "token" in r.path]
    assert snapshot_tree(root / "alice") == before
    # the cookie is scoped to /ui: the client's jar sends it there and nowhere else
    with client:
        assert f"{COOKIE}=" in client.get("/ui/p/alice/facts").request.headers.get("cookie", "")
        for url in ("/v1/health", "/docs", "/openapi.json"):
            assert f"{COOKIE}=" not in client.get(url).request.headers.get("cookie", ""), url


def test_sign_out_ends_the_session_on_the_server(app, bare):
    _root, tokens = bare
    client, session_id = signed_in(app, "alice", tokens["alice"])
    with client:
        csrf = csrf_of(client, "/ui/p/alice/facts")
        sessions = app.state.inspector.sessions
        assert sessions.get(session_id) is not None
        out = client.post("/ui/signout", data={"csrf": csrf}, follow_redirects=False)
        assert out.status_code == 303 and out.headers["location"] == "/ui/signin?reason=out"
        assert sessions.get(session_id) is None
        put_cookie(client, session_id)  # a copy of the cookie kept from before
        assert is_stale(client.get("/ui/p/alice/facts", follow_redirects=False))


def test_sessions_end_after_an_idle_hour_and_after_twelve_hours_in_all(app, bare):
    _root, tokens = bare
    clock = Clock()
    app.state.inspector = InspectorState(SessionStore(clock=clock), NonceStore(clock=clock))
    with client_of(app) as client:
        assert sign_in(client, "alice", tokens["alice"]).status_code == 303
        clock.now += 3599
        assert client.get("/ui/p/alice/facts").status_code == 200  # in use: its idle time starts again
        clock.now += 3599
        assert client.get("/ui/p/alice/facts").status_code == 200
        clock.now += 3600
        assert is_stale(client.get("/ui/p/alice/facts", follow_redirects=False))
        # however busy, a session ends 12 hours after sign-in
        assert sign_in(client, "alice", tokens["alice"]).status_code == 303
        for _ in range(24):
            clock.now += 1790
            assert client.get("/ui/p/alice/facts", follow_redirects=False).status_code == 200
        clock.now += 300  # 12 h 1 min after sign-in, 5 min after the last request
        assert is_stale(client.get("/ui/p/alice/facts", follow_redirects=False))
        # a sign-in form left open too long is refused too
        nonce = nonce_of(client)
        clock.now += 1800
        late = client.post(
            "/ui/signin", data={"nonce": nonce, "project": "alice", "token": tokens["alice"]}, follow_redirects=False
        )
        assert late.status_code == 403 and "expired" in late.text


def test_revoking_a_token_ends_its_sessions_and_no_other(app, bare):
    root, tokens = bare
    extra, record = TokenStore.for_project(root / "alice").create("to revoke")
    first, _ = signed_in(app, "alice", extra)
    second, _ = signed_in(app, "alice", extra)
    other, _ = signed_in(app, "alice", tokens["alice"])
    sessions = app.state.inspector.sessions
    assert len(sessions) == 3
    with TestClient(app) as api:
        revoked = api.delete(
            f"/v1/projects/alice/tokens/{record.id}", headers={"Authorization": f"Bearer {tokens['alice']}"}
        )
        assert revoked.status_code == 200
    for client in (first, second):
        with client:
            assert is_stale(client.get("/ui/p/alice/facts", follow_redirects=False))
    assert len(sessions) == 1
    with other:
        assert other.get("/ui/p/alice/facts").status_code == 200


def test_a_sign_in_opens_only_the_server_it_was_made_on(bare):
    _root, tokens = bare
    first, second = create_app(bare[0]), create_app(bare[0])
    client, session_id = signed_in(first, "alice", tokens["alice"])
    with client:
        assert client.get("/ui/p/alice/facts").status_code == 200
    with client_of(second) as elsewhere:
        put_cookie(elsewhere, session_id)
        assert is_stale(elsewhere.get("/ui/p/alice/facts", follow_redirects=False))


def test_the_store_is_bounded_per_token_per_project_and_in_all():
    clock = Clock()
    store = SessionStore(SessionLimits(max_sessions=10, max_per_project=6, max_per_token=3), clock=clock)
    ids = []
    for _ in range(4):
        clock.now += 1
        ids.append(store.create("alice", "t1", "d1"))
    # the fourth sign-in with token t1 ended the least recently used one
    assert store.get(ids[0]) is None and all(store.get(i) for i in ids[1:])
    clock.now += 1
    assert store.get(ids[1])  # now the most recently used: the next to go is ids[2]
    store.create("alice", "t1", "d1")
    assert store.get(ids[2]) is None and store.get(ids[1]) is not None
    for _ in range(3):
        store.create("alice", "t2", "d2")
    assert len(store) == 6  # the project's bound
    store.create("alice", "t3", "d3")
    assert len(store) == 6
    for n in range(5):
        store.create(f"p{n}", "t", "d")
    assert len(store) == 10  # the bound in all
    assert store.end_token("p4", "t") == 1 and len(store) == 9
    # expired sessions are dropped when the next one is made
    clock.now += 3600
    store.create("bob", "t", "d")
    assert len(store) == 1


def test_nonces_are_issued_once_and_bounded():
    clock = Clock()
    nonces = NonceStore(seconds=60, limit=3, clock=clock)
    first = nonces.issue()
    assert nonces.redeem(first) and not nonces.redeem(first)
    assert not nonces.redeem("chosen-by-someone-else") and not nonces.redeem(None)
    issued = [nonces.issue() for _ in range(4)]
    assert len(nonces) == 3 and not nonces.redeem(issued[0]) and nonces.redeem(issued[3])
    old = nonces.issue()
    clock.now += 60
    assert not nonces.redeem(old)


# --- sign-in only from the inspector's own page -------------------------------------------------


def test_a_sign_in_posted_from_another_port_is_refused_and_the_victim_stays_signed_in(app, bare):
    _root, tokens = bare
    victim, victim_session = signed_in(app, "alice", tokens["alice"])
    with victim, client_of(app) as attacker:
        # the attacker gets a form nonce of this server, and its page on another port of the same
        # host sets it as the victim's nonce cookie (cookies do not tell ports apart)
        nonce = nonce_of(attacker)
        attempts = [
            OTHER_PORT,
            {"Origin": "null"},
            {"Origin": "http://testserver:8999"},
            {"Referer": "http://testserver:8999/evil.html"},
            {"Sec-Fetch-Site": "cross-site"},
            {},
        ]
        for headers in attempts:
            put_cookie(victim, nonce, LOGIN_COOKIE)
            request = victim.build_request(
                "POST", "/ui/signin", data={"nonce": nonce, "project": "bob", "token": tokens["bob"]}, headers=headers
            )
            if "Origin" not in headers:
                del request.headers["Origin"]
            response = victim.send(request, follow_redirects=False)
            assert response.status_code == 403, headers
            assert f"{COOKIE}=" not in response.headers.get("set-cookie", ""), headers
            assert victim.cookies[COOKIE] == victim_session
        assert victim.get("/ui/p/alice/facts").status_code == 200
        assert victim.get("/ui/p/bob/facts").status_code == 403
        # from the inspector's own page the same nonce works (it was never used up)
        put_cookie(victim, nonce, LOGIN_COOKIE)
        ok = victim.post(
            "/ui/signin",
            data={"nonce": nonce, "project": "bob", "token": tokens["bob"]},
            headers={"Sec-Fetch-Site": "same-origin"},
            follow_redirects=False,
        )
        assert ok.status_code == 303 and ok.headers["location"] == "/ui/p/bob"


def test_a_sign_in_needs_a_nonce_this_server_issued_and_only_once(app, bare):
    _root, tokens = bare
    with client_of(app) as client:
        put_cookie(client, "chosen-by-the-attacker", LOGIN_COOKIE)
        forged = client.post(
            "/ui/signin",
            data={"nonce": "chosen-by-the-attacker", "project": "alice", "token": tokens["alice"]},
            follow_redirects=False,
        )
        assert forged.status_code == 403 and COOKIE not in client.cookies
        nonce = nonce_of(client)
        form = {"nonce": nonce, "project": "alice", "token": tokens["alice"]}
        assert client.post("/ui/signin", data=form, follow_redirects=False).status_code == 303
        put_cookie(client, nonce, LOGIN_COOKIE)
        assert client.post("/ui/signin", data=form, follow_redirects=False).status_code == 403


def test_every_post_of_the_inspector_comes_from_its_own_origin(app, bare):
    root, tokens = bare
    client, session_id = signed_in(app, "alice", tokens["alice"])
    before = snapshot_tree(root / "alice")
    with client:
        csrf = csrf_of(client, "/ui/p/alice/facts")
        for url, form in (
            ("/ui/p/alice/correct", {"text": "Rex is a labrador."}),
            ("/ui/p/alice/forget", {"fact": "x1", "confirm": "yes"}),
            ("/ui/p/alice/console", {"code": "result = 1"}),
            ("/ui/p/alice/facts", {"q": "x"}),
            ("/ui/signout", {}),
        ):
            for headers in (OTHER_PORT, {"Origin": "http://elsewhere.example"}):
                response = client.post(url, data={**form, "csrf": csrf}, headers=headers, follow_redirects=False)
                assert response.status_code == 403 and "not sent from the inspector" in response.text, (url, headers)
        assert app.state.inspector.sessions.get(session_id) is not None
        # a browser that sends Sec-Fetch-Site but no Origin
        request = client.build_request(
            "POST", "/ui/p/alice/facts", data={"q": "x", "csrf": csrf}, headers={"Sec-Fetch-Site": "same-origin"}
        )
        del request.headers["Origin"]
        assert client.send(request, follow_redirects=False).status_code == 303
    assert snapshot_tree(root / "alice") == before


# --- every route, every kind of credential ----------------------------------------------------------

#: routes a visitor without a session may use
OPEN = {
    ("GET", "/ui"),
    ("GET", "/ui/"),
    ("GET", "/ui/static/ui.css"),
    ("GET", "/ui/signin"),
    ("POST", "/ui/signin"),
    ("POST", "/ui/signout"),
}
PARAMS = {"project": "alice", "domain": "travel", "collection": "trips", "position": "0"}


def _ui_routes():
    for route in ui_router.routes:
        assert route.path.startswith("/ui")
        for method in sorted(route.methods - {"HEAD"}):
            yield method, route.path


def test_every_inspector_route_against_every_kind_of_credential(app, bare):
    root, tokens = bare
    clock = Clock()
    app.state.inspector = InspectorState(SessionStore(clock=clock), NonceStore(clock=clock))
    _, expired = signed_in(app, "alice", tokens["alice"])
    clock.now += 13 * 3600
    _, signed_out = signed_in(app, "alice", tokens["alice"])
    app.state.inspector.sessions.end(signed_out)
    extra, record = TokenStore.for_project(root / "alice").create("to revoke")
    _, revoked = signed_in(app, "alice", extra)
    TokenStore.for_project(root / "alice").revoke(record.id)
    _, bobs = signed_in(app, "bob", tokens["bob"])
    old_format = base64.urlsafe_b64encode(f'{{"p":"alice","t":"{tokens["alice"]}"}}'.encode()).decode()
    stale = {
        "garbage": "garbage",
        "the token itself": tokens["alice"],
        "an old cookie with the token": old_format,
        "expired": expired,
        "signed out": signed_out,
        "token revoked": revoked,
        "too long": "x" * 5000,
    }
    checked = 0
    with client_of(app) as client:
        for method, path in _ui_routes():
            if (method, path) in OPEN:
                continue
            url = path.format(**PARAMS)
            client.cookies.clear()
            response = client.request(method, url, follow_redirects=False)
            assert response.status_code == 303, (method, path)
            assert response.headers["location"] == "/ui/signin?reason=needed", (method, path)
            for what, value in stale.items():
                put_cookie(client, value)
                response = client.request(method, url, follow_redirects=False)
                assert is_stale(response), (method, path, what)
                assert f'{COOKIE}=""' in response.headers["set-cookie"], (method, path, what)
            put_cookie(client, bobs)
            response = client.request(method, url, follow_redirects=False)
            assert response.status_code == 403 and "another project" in response.text, (method, path)
            assert "Alice" not in response.text
            checked += 1
    assert checked >= 15
    # bob's session still works after all that, and the open routes answer without one
    with client_of(app) as client:
        put_cookie(client, bobs)
        assert client.get("/ui/", follow_redirects=False).headers["location"] == "/ui/p/bob"
        client.cookies.clear()
        for url in ("/ui", "/ui/", "/ui/signin", "/ui/static/ui.css"):
            assert client.get(url, follow_redirects=False).status_code in (200, 303), url
        assert client.post("/ui/signout", follow_redirects=False).status_code == 303
