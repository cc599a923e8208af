"""The pydantic-ai toolset, driven by pydantic-ai's FunctionModel and TestModel: real runs over real projects."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent  # noqa: E402
from pydantic_ai.messages import ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from pydantic_ai.models.test import TestModel  # noqa: E402

from uac.integrations.pydantic_ai import MemoryDeps, memory_toolset  # noqa: E402

from .conftest import BOB_SECRET, written  # noqa: E402

pytestmark = pytest.mark.embeddings  # the projects are built with the bundled model


def scripted(*calls: ToolCallPart, final: str = "done"):
    """A FunctionModel that makes ``calls`` at once, then answers ``final``; it records what came back."""
    seen: dict[str, object] = {}

    def respond(messages, info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            seen["instructions"] = info.instructions
            seen["tools"] = [t.name for t in info.function_tools]
            return ModelResponse(parts=list(calls))
        for part in messages[-1].parts:
            if isinstance(part, (ToolReturnPart, RetryPromptPart)):
                seen[part.tool_call_id] = part
        return ModelResponse(parts=[TextPart(final)])

    return FunctionModel(respond), seen


def _content(part) -> str:
    content = part.content
    return content if isinstance(content, str) else json.dumps(content)


def test_a_run_uses_the_project_of_its_deps(root):
    model, seen = scripted(
        ToolCallPart("run_python", {"code": "result = len(bookings)"}, tool_call_id="count"),
        ToolCallPart("search_memory", {"query": "What is the cat called?", "k": 5}, tool_call_id="cat"),
        ToolCallPart("remember", {"note": "Maya prefers window seats.", "date": "2024-06-02"}, tool_call_id="note"),
    )
    agent = Agent(model, deps_type=MemoryDeps, toolsets=[memory_toolset()])
    result = agent.run_sync("How many trips, and the cat?", deps=MemoryDeps("maya", root=root))
    assert result.output == "done"
    assert seen["count"].content == {"ok": True, "result": 24, "stdout": "", "error": None}
    assert any("Pixel" in hit["text"] for hit in seen["cat"].content["results"])
    assert seen["note"].content["stored"] is True
    assert seen["tools"] == ["search_memory", "run_python", "ask_memory", "remember"]
    assert "bookings (24" in seen["instructions"]
    # the same agent, another user's deps: that user's memory only
    model2, seen2 = scripted(ToolCallPart("search_memory", {"query": "spare key flowerpot"}, tool_call_id="key"))
    with agent.override(model=model2):
        agent.run_sync("Where is the key?", deps=MemoryDeps("bob", root=root))
    assert BOB_SECRET in _content(seen2["key"])
    model3, seen3 = scripted(ToolCallPart("search_memory", {"query": "spare key flowerpot"}, tool_call_id="key"))
    with agent.override(model=model3):
        agent.run_sync("Where is the key?", deps=MemoryDeps("maya", root=root))
    assert "flowerpot" not in _content(seen3["key"])


def test_what_the_model_can_fix_is_a_retry_and_the_rest_a_failure(root):
    model, seen = scripted(
        ToolCallPart("search_memory", {"query": 5}, tool_call_id="type"),
        ToolCallPart("run_python", {"code": "result = ().__class__"}, tool_call_id="escape"),
        ToolCallPart("remember", {"note": "Maya likes tea.", "date": "someday"}, tool_call_id="date"),
        ToolCallPart("search_memory", {"query": "key", "project": "bob"}, tool_call_id="other"),
        final="sorry",
    )
    before = written(root / "maya"), written(root / "bob")
    agent = Agent(model, deps_type=MemoryDeps, toolsets=[memory_toolset()])
    assert agent.run_sync("Try things.", deps=MemoryDeps("maya", root=root)).output == "sorry"
    for call in ("type", "escape", "date", "other"):  # ModelRetry: the model may correct its call
        assert seen[call].outcome == "retried", call
    assert "query: Input should be a valid string" in _content(seen["type"])
    assert "PolicyError" in _content(seen["escape"])
    assert "Give date in the ISO form" in _content(seen["date"])
    assert "project: Extra inputs are not permitted" in _content(seen["other"])
    assert (written(root / "maya"), written(root / "bob")) == before

    model, seen = scripted(ToolCallPart("search_memory", {"query": "cat"}, tool_call_id="gone"), final="no memory")
    agent = Agent(model, deps_type=MemoryDeps, toolsets=[memory_toolset()])
    assert agent.run_sync("Hello", deps=MemoryDeps("nobody", root=root)).output == "no memory"
    assert seen["gone"].outcome == "failed"  # ToolFailed: read by the model, no retry
    assert _content(seen["gone"]).startswith("project_not_found: no user project at nobody.")
    assert not (root / "nobody").exists()


def test_deps_of_your_own_type_and_pydantic_ais_test_model(root):
    @dataclass
    class AppDeps:
        user_id: str
        memory: MemoryDeps

    agent = Agent(
        TestModel(call_tools=["search_memory", "ask_memory"]),
        deps_type=AppDeps,
        toolsets=[memory_toolset(deps=lambda d: d.memory)],
    )
    result = agent.run_sync("Anything about me?", deps=AppDeps("u1", MemoryDeps("maya", root=root)))
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert {p.tool_name for p in returns} == {"search_memory", "ask_memory"}
    assert "results" in returns[0].content or "mode" in returns[0].content
