"""The MCP server over stdio, driven by the mcp package's own client."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest

from .conftest import REPO, child_env

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]


def _text(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _payload(result) -> dict:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(_text(result))


async def _session_run(root, args, body):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "uac", "serve", "mcp", "--root", str(root), *args],
        env=child_env(),
        cwd=str(REPO),
    )
    with open("/dev/null", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)


def test_mcp_tools_over_stdio(fresh_root):
    async def body(session):
        tools = {t.name for t in (await session.list_tools()).tools}
        assert tools >= {"search_memory", "ask", "run_python", "read_manifest", "read_domain", "add_session"}

        found = await session.call_tool("search_memory", {"query": "dog named Rex", "k": 5})
        assert not found.is_error, _text(found)
        results = _payload(found)["results"]
        assert any("Rex" in r["text"] for r in results)
        assert set(results[0]) == {"id", "channel", "text", "score", "session_id", "session_date", "evidence"}

        manifest = await session.call_tool("read_manifest", {})
        assert not manifest.is_error
        assert _text(manifest) == (fresh_root.root / "alice" / "MANIFEST.md").read_text()

        resource = await session.read_resource("uac://alice/manifest")
        assert resource.contents[0].text == (fresh_root.root / "alice" / "MANIFEST.md").read_text()

        added = await session.call_tool(
            "add_session",
            {
                "session": {
                    "date": "2023-09-09",
                    "messages": [{"role": "user", "content": "I planted tomatoes in my garden."}],
                }
            },
        )
        assert not added.is_error, _text(added)
        assert _payload(added)["facts_appended"] >= 1
        again = await session.call_tool("search_memory", {"query": "tomatoes garden", "channel": "facts"})
        assert any("tomatoes" in r["text"] for r in _payload(again)["results"])

        answer = await session.call_tool("ask", {"question": "What did I plant?"})
        assert not answer.is_error, _text(answer)
        assert "channels" in _payload(answer)

        # errors come back as tool errors with uac's message; the session lives on
        bad_date = await session.call_tool("search_memory", {"query": "x", "as_of": "not a date"})
        assert bad_date.is_error and "not a date" in _text(bad_date)
        other = await session.call_tool("read_manifest", {"project": "bob"})
        assert other.is_error and "only project 'alice'" in _text(other)
        no_domain = await session.call_tool("read_domain", {"domain": "pottery"})
        assert no_domain.is_error and "no domain 'pottery'" in _text(no_domain)
        traversal = await session.call_tool("read_domain", {"domain": "../../uac"})
        assert traversal.is_error and "invalid domain name" in _text(traversal)
        bad_session = await session.call_tool("add_session", {"text": "no speakers here"})
        assert bad_session.is_error and "input_error: " in _text(bad_session)
        bad_date = await session.call_tool("add_session", {"text": "Ann: hello"})
        assert bad_date.is_error and "--date" not in _text(bad_date) and "date" in _text(bad_date)
        crashed = await session.call_tool("run_python", {"code": "result = [][1]"})
        assert crashed.is_error and _payload(crashed)["ok"] is False
        assert _payload(crashed)["error"]["type"] == "IndexError"
        fine = await session.call_tool("run_python", {"code": "result = 2 + 2"})
        ran = dict(_payload(fine))
        view = ran.pop("view")  # the session added above may still be catching up
        assert not fine.is_error and ran == {"ok": True, "result": 4, "stdout": "", "error": None}
        assert set(view) == {"facts_not_included", "catching_up"}
        forget = await session.call_tool("search_memory", {"query": "x", "as_of": "nope"})
        assert "input_error: 'nope' is not a date." in _text(forget) and "--as-of" not in _text(forget)
        still = await session.call_tool("read_manifest", {})
        assert not still.is_error
        changed = await session.call_tool("memory_changes", {"limit": 5})
        assert not changed.is_error, _text(changed)
        assert _payload(changed)["total"] >= 1 and len(_payload(changed)["changes"]) <= 5
        assert all("sentences" in c for c in _payload(changed)["changes"])
        unknown = await session.call_tool("memory_changes", {"since": "c999"})
        assert unknown.is_error and "no compile c999" in _text(unknown)
        return True

    from uac.memory import UserMemory

    with UserMemory.open(fresh_root.root / "alice") as memory:
        memory.compile(mode="offline")  # a change log for memory_changes
    assert anyio.run(_session_run, fresh_root.root, ["--project", "alice"], body)
    facts = (fresh_root.root / "alice" / "memory" / "facts.jsonl").read_text()
    assert "tomatoes" in facts


def test_the_printed_client_configuration_starts_the_server_from_anywhere(fresh_root, tmp_path):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    from uac.server.mcp_names import TOOLS

    printed = subprocess.run(
        [sys.executable, "-m", "uac", "serve", "mcp", "--root", str(fresh_root.root), "--print-config"],
        env=child_env(),
        cwd=str(REPO),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    entry = json.loads(printed.stdout)["mcpServers"]["uac"]
    assert entry["command"] == sys.executable and "--root" in entry["args"]

    async def run():
        # started the way a client starts it: the configured command, from another directory
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=child_env(), cwd=str(tmp_path))
        with open("/dev/null", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return [t.name for t in (await session.list_tools()).tools]

    served = anyio.run(run)
    # the help and the printed configuration name exactly what the server serves
    assert sorted(served) == sorted(TOOLS)
    helped = subprocess.run(
        [sys.executable, "-m", "uac", "serve", "mcp", "--help"],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    assert all(name in " ".join(helped.split()) for name in TOOLS)
