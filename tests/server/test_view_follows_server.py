"""The servers' background catch-up: an ingest returns once its facts are durable, the view
is compiled behind it (one catch-up at a time per project, later ingests coalesced), the
readers say when the view lags, and MCP has a compile tool."""

from __future__ import annotations

import json
import threading

import anyio
import pytest

from uac.compile.follow import catching_up
from uac.memory import UserMemory
from uac.server.tokens import TokenStore
from uac.server.workspace import ServedWorkspace

pytestmark = pytest.mark.follows_log

OSLO = {"date": "2024-06-03", "messages": [{"role": "user", "content": "I flew to Oslo on Friday for a conference."}]}
LIMA = {"date": "2024-07-10", "messages": [{"role": "user", "content": "I got back from Lima yesterday."}]}
ROME = {"date": "2024-08-02", "messages": [{"role": "user", "content": "I flew to Rome last weekend."}]}


def _project(root, name="alice") -> str:
    root.mkdir(parents=True, exist_ok=True)
    memory = UserMemory.create(root / name, user_name=name.capitalize())
    token, _ = TokenStore.for_project(memory.root).create("test")
    memory.close()
    return token


def _trips(memory: UserMemory) -> str:
    return json.dumps(memory.run("result = [record_dict(t) for t in trips]").to_json()["result"])


def test_http_ingest_returns_at_once_and_the_view_catches_up_behind_it(tmp_path):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    token = _project(tmp_path / "root")
    auth = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(tmp_path / "root")) as client:
        follower = client.app.state.workspace.follower
        added = client.post("/v1/projects/alice/sessions", json={"session": OSLO}, headers=auth)
        assert added.status_code == 200, added.text
        view = added.json()["view"]
        assert view["status"] == "background" and view["mode"] == "offline" and view["facts_not_included"] == 1
        assert follower.wait("alice", 60)
        assert follower.last["alice"].status == "compiled" and follower.last["alice"].domains_changed == ["travel"]
        asked = client.post("/v1/projects/alice/ask", json={"question": "Where did I travel?"}, headers=auth)
        assert asked.json()["view"] == {"facts_not_included": 0, "catching_up": False}
        ran = client.post(
            "/v1/projects/alice/repl", json={"code": "result = [record_dict(t) for t in trips]"}, headers=auth
        )
        assert "Oslo" in json.dumps(ran.json()["result"]) and ran.json()["view"]["facts_not_included"] == 0
        # turned off for a bulk load: the view stays, and the readers say it lags
        held = client.post("/v1/projects/alice/sessions", json={"session": LIMA, "compile": False}, headers=auth)
        assert held.json()["view"]["status"] == "off" and not follower.running("alice")
        lagging = client.post("/v1/projects/alice/repl", json={"code": "result = len(trips)"}, headers=auth)
        assert lagging.json()["view"] == {"facts_not_included": 1, "catching_up": False}
        _signin(client, token)
        for url in ("/ui/p/alice", "/ui/p/alice/changes"):
            assert 'id="view-lag">The view does not include 1 fact(s) yet' in client.get(url).text
        # the next ingest (the upload route) takes in what was left behind too
        client.post("/v1/projects/alice/sessions/upload", content=json.dumps(ROME).encode(), headers=auth)
        assert follower.wait("alice", 60)
    with UserMemory.open(tmp_path / "root" / "alice") as memory:
        trips = _trips(memory)
        assert "Lima" in trips and "Rome" in trips and memory.view_lag().facts == 0


def _signin(client, token: str) -> None:
    from .test_inspector import sign_in

    assert sign_in(client, "alice", token).status_code == 303


def test_ingests_during_a_catch_up_are_coalesced_into_one_more(tmp_path):
    _project(tmp_path / "root")
    workspace = ServedWorkspace(tmp_path / "root")
    follower = workspace.follower
    writer = workspace.instances.writer("alice")
    try:
        for session in (OSLO, LIMA, ROME):
            writer.add_session(session, compile=False)
        held, release = threading.Event(), threading.Event()

        def hold_the_lock() -> None:  # another writer: the first catch-up waits for it
            with writer.project.lock("test"):
                held.set()
                release.wait(30)

        holder = threading.Thread(target=hold_the_lock)
        holder.start()
        held.wait(10)
        assert follower.schedule("alice")
        assert catching_up(writer.project) and writer.view_lag().catching_up
        assert (
            writer.view_lag().line() == "The view does not include 3 fact(s) yet: it is catching up in the background."
        )
        for _ in range(5):  # ingests meanwhile ask for one more catch-up, not five
            assert follower.schedule("alice")
        release.set()
        holder.join()
        assert follower.wait("alice", 60)
        assert follower.runs["alice"] == 2 and not catching_up(writer.project)
        assert writer.view_lag().facts == 0
    finally:
        writer.close()
        workspace.close()


def test_shutdown_waits_for_the_running_catch_up(tmp_path):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    token = _project(tmp_path / "root")
    with TestClient(create_app(tmp_path / "root")) as client:
        added = client.post(
            "/v1/projects/alice/sessions", json={"session": OSLO}, headers={"Authorization": f"Bearer {token}"}
        )
        assert added.json()["view"]["status"] == "background"
        follower = client.app.state.workspace.follower
    # leaving the client shut the server down: the catch-up was done first, and none starts now
    assert not follower.running("alice") and not follower.schedule("alice")
    with UserMemory.open(tmp_path / "root" / "alice") as memory:
        assert "Oslo" in _trips(memory) and memory.view_lag().facts == 0


def test_mcp_add_session_catches_up_in_the_background_and_compile_is_a_tool(tmp_path):
    from uac.server.mcp_server import build_server

    _project(tmp_path / "root")
    workspace = ServedWorkspace(tmp_path / "root")
    server = build_server(tmp_path / "root", project="alice", workspace=workspace)

    async def call(name: str, arguments: dict) -> dict:
        result = await server.call_tool(name, arguments)
        assert not result.is_error, result.content
        if result.structured_content is not None:
            return result.structured_content
        return json.loads("".join(getattr(block, "text", "") for block in result.content))

    async def body() -> None:
        added = await call("add_session", {"session": OSLO})
        assert added["view"]["status"] == "background" and added["view"]["facts_not_included"] == 1
        await anyio.to_thread.run_sync(lambda: workspace.follower.wait("alice", 60))
        ran = await call("run_python", {"code": "result = [record_dict(t) for t in trips]"})
        assert "Oslo" in json.dumps(ran["result"]) and ran["view"] == {"facts_not_included": 0, "catching_up": False}
        held = await call("add_session", {"session": LIMA, "compile": False})
        assert held["view"]["status"] == "off"
        asked = await call("ask", {"question": "Where did I travel?"})
        assert asked["view"] == {"facts_not_included": 1, "catching_up": False}
        compiled = await call("compile", {"mode": "offline"})
        assert compiled["mode"] == "offline" and compiled["view"]["facts_not_included"] == 0
        ran = await call("run_python", {"code": "result = [record_dict(t) for t in trips]"})
        assert "Lima" in json.dumps(ran["result"])

    try:
        anyio.run(body)
    finally:
        workspace.close()
