"""The MCP server over streamable HTTP: a bearer token is required and checked per project."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import httpx
import pytest

from .conftest import REPO, child_env, free_port, stop, wait_http

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]


@pytest.fixture
def mcp_http(fresh_root):
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uac",
            "serve",
            "mcp",
            "--root",
            str(fresh_root.root),
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        cwd=REPO,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_http(f"http://127.0.0.1:{port}/health", proc)
        yield url, fresh_root
    finally:
        stop(proc)


async def _with_session(url: str, token: str, body):
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)


def _text(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def test_mcp_over_http_needs_a_project_token(mcp_http):
    url, served = mcp_http
    refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10)
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    alice = {"Authorization": f"Bearer {served.tokens['alice']}"}
    # the connection names its project; any token that does not open it is refused before MCP sees it
    unnamed = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=alice, timeout=10)
    assert unnamed.status_code == 400 and "/mcp?project=NAME" in unnamed.json()["error"]["message"]
    for token, project in (("garbage", "alice"), (served.tokens["alice"], "bob"), (served.tokens["alice"], "ghost")):
        answer = httpx.post(
            f"{url}?project={project}",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden", answer.text
    # a project that does not exist answers as one the token does not open
    answers = [
        httpx.post(f"{url}?project={name}", headers={"Authorization": "Bearer garbage"}, timeout=10).text
        for name in ("bob", "ghost")
    ]
    assert answers[1].replace("ghost", "bob") == answers[0]

    async def body(session):
        mine = await session.call_tool("search_memory", {"query": "dog named Rex", "project": "alice"})
        assert not mine.is_error, _text(mine)
        assert "Rex" in _text(mine)
        theirs = await session.call_tool("read_manifest", {"project": "bob"})
        assert theirs.is_error and "does not grant access to project 'bob'" in _text(theirs)
        implied = await session.call_tool("search_memory", {"query": "dog named Rex"})  # the connection's project
        assert not implied.is_error and "Rex" in _text(implied)
        traversal = await session.call_tool("read_manifest", {"project": "../bob"})
        assert traversal.is_error and "invalid project name" in _text(traversal)
        failed = await session.call_tool("run_python", {"code": "result = 1 / 0", "project": "alice"})
        assert failed.is_error and json.loads(_text(failed))["error"]["type"] == "ZeroDivisionError"
        ran = await session.call_tool("run_python", {"code": "result = 6 * 7"})
        assert not ran.is_error and json.loads(_text(ran))["result"] == 42
        return True

    assert anyio.run(_with_session, f"{url}?project=alice", served.tokens["alice"], body)
