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
        [sys.executable, "-m", "uac", "serve", "mcp", "--root", str(fresh_root.root), "--transport", "http",
         "--port", str(port)],
        cwd=REPO, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_http(url, proc)
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

    async def body(session):
        mine = await session.call_tool("search_memory", {"query": "dog named Rex", "project": "alice"})
        assert not mine.is_error, _text(mine)
        assert "Rex" in _text(mine)
        theirs = await session.call_tool("read_manifest", {"project": "bob"})
        assert theirs.is_error and "does not grant access to project 'bob'" in _text(theirs)
        unnamed = await session.call_tool("read_manifest", {})
        assert unnamed.is_error and "no project given" in _text(unnamed)
        assert "alice" not in _text(unnamed) and "bob" not in _text(unnamed)
        traversal = await session.call_tool("read_manifest", {"project": "../bob"})
        assert traversal.is_error and "invalid project name" in _text(traversal)
        failed = await session.call_tool("run_python", {"code": "result = 1 / 0", "project": "alice"})
        assert failed.is_error and json.loads(_text(failed))["error"]["type"] == "ZeroDivisionError"
        ran = await session.call_tool("run_python", {"code": "result = 6 * 7", "project": "alice"})
        assert not ran.is_error and json.loads(_text(ran))["result"] == 42
        return True

    assert anyio.run(_with_session, url, served.tokens["alice"], body)

    async def garbage(session):
        # any bearer token passes the transport's check; none may learn which projects exist
        for tool, arguments in (("search_memory", {"query": "dog"}), ("read_manifest", {}), ("run_python", {"code": "result = 1"})):
            unnamed = await session.call_tool(tool, arguments)
            text = _text(unnamed)
            assert unnamed.is_error and "invalid_name: no project given" in text, text
            assert "alice" not in text and "bob" not in text
        named = await session.call_tool("read_manifest", {"project": "alice"})
        assert named.is_error and "forbidden: " in _text(named)
        ghost = await session.call_tool("read_manifest", {"project": "ghost"})
        assert ghost.is_error and _text(ghost).replace("'ghost'", "'alice'") == _text(named)
        return True

    assert anyio.run(_with_session, url, "garbage", garbage)
