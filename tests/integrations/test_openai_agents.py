"""The OpenAI Agents SDK adapter, driven by the SDK's own ScriptedModel: real runs over a real project."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("agents")

from agents import Agent, RunConfig, Runner, SQLiteSession  # noqa: E402
from agents.testing import ScriptedModel, assistant_message, function_call  # noqa: E402

from uac.integrations.openai_agents import memory_tools, remember_session, session_messages, with_memory  # noqa: E402
from uac.memory import UserMemory  # noqa: E402

from .conftest import written  # noqa: E402

pytestmark = pytest.mark.embeddings  # the projects are built with the bundled model

OFFLINE = RunConfig(tracing_disabled=True)


def _run(agent: Agent, prompt: str, **kwargs):
    return asyncio.run(Runner.run(agent, prompt, run_config=OFFLINE, **kwargs))


def _outputs(model: ScriptedModel) -> dict[str, str]:
    """call id -> the tool output the model was sent back."""
    return {
        item["call_id"]: item["output"]
        for item in model.last_call.input
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def _search(query: str, **extra):
    return {"query": query, "k": 5, "channel": "all", "as_of": None, "happened": None, **extra}


def test_an_agent_calls_the_memory_and_finishes(root):
    model = ScriptedModel(
        [
            [
                function_call(
                    "run_python",
                    {"code": "result = len(bookings)", "as_of": None, "include_facts": False},
                    call_id="count",
                ),
                function_call("search_memory", _search("What is the cat called?"), call_id="cat"),
                function_call("ask_memory", {"question": "What is the cat called?", "as_of": None}, call_id="ask"),
                function_call(
                    "remember",
                    {"note": "Maya prefers window seats.", "messages": None, "date": "2024-06-02"},
                    call_id="note",
                ),
            ],
            [assistant_message("You booked 24 trips and your cat is Pixel.")],
        ]
    )
    agent = with_memory(Agent(name="assistant", instructions="Be brief.", model=model), "maya", root=root)
    result = _run(agent, "How many trips did I book, and what is my cat called?")
    assert result.final_output == "You booked 24 trips and your cat is Pixel."
    out = _outputs(model)
    assert json.loads(out["count"]) == {"ok": True, "result": 24, "stdout": "", "error": None}
    assert any("Pixel" in hit["text"] for hit in json.loads(out["cat"])["results"])
    assert json.loads(out["ask"])["mode"] == "evidence"
    assert json.loads(out["note"])["stored"] is True
    instructions = model.first_call.system_instructions
    assert instructions.startswith("Be brief.") and "bookings (24" in instructions  # the manifest
    assert [t.name for t in agent.tools] == ["search_memory", "run_python", "ask_memory", "remember"]


def test_bad_calls_come_back_to_the_model_and_write_nothing(root):
    model = ScriptedModel(
        [
            [
                function_call("search_memory", _search("cat", k="lots"), call_id="type"),
                function_call(
                    "run_python",
                    {"code": "result = ().__class__", "as_of": None, "include_facts": False},
                    call_id="escape",
                ),
                function_call(
                    "remember", {"note": "Maya likes tea.", "messages": None, "date": "someday"}, call_id="date"
                ),
                function_call("search_memory", _search("spare key", project="bob"), call_id="other"),
            ],
            [assistant_message("Sorry.")],
        ]
    )
    before = written(root / "maya"), written(root / "bob")
    agent = Agent(name="assistant", model=model, tools=memory_tools("maya", root=root))
    assert _run(agent, "Try things.").final_output == "Sorry."
    out = _outputs(model)
    assert out["type"].startswith("input_error: invalid arguments for search_memory: k:")
    assert json.loads(out["escape"])["error"]["type"] == "PolicyError"
    assert "Give date in the ISO form YYYY-MM-DD" in out["date"]
    assert "project: Extra inputs are not permitted" in out["other"]
    assert (written(root / "maya"), written(root / "bob")) == before


def test_a_project_that_does_not_exist_is_a_tool_error(root):
    model = ScriptedModel(
        [[function_call("search_memory", _search("cat"), call_id="c")], [assistant_message("No memory.")]]
    )
    agent = with_memory(Agent(name="assistant", model=model), "nobody", root=root)
    assert _run(agent, "Hello").final_output == "No memory."
    assert _outputs(model)["c"].startswith("project_not_found: no user project at nobody.")
    assert "cannot be read" in model.first_call.system_instructions
    assert not (root / "nobody").exists()


def test_a_session_is_fed_to_the_memory_once(root):
    session = SQLiteSession("chat-42")
    model = ScriptedModel([[assistant_message("Noted, enjoy Oslo!")], [assistant_message("A parrot, lovely.")]])
    agent = Agent(name="assistant", model=model)
    _run(agent, "I booked a flight to Oslo for June.", session=session)
    first = asyncio.run(remember_session(session, "maya", root=root, date="2024-05-01"))
    assert first == {
        "stored": True,
        "session_ids": ["conv-chat-42"],
        "turns_added": 2,
        "facts_added": first["facts_added"],
    }
    assert asyncio.run(remember_session(session, "maya", root=root))["stored"] is False
    _run(agent, "I also adopted a parrot named Kiwi.", session=session)
    later = asyncio.run(remember_session(session, "maya", root=root, date="2024-05-02"))
    assert later["session_ids"] == ["conv-chat-42.2"] and later["turns_added"] == 2
    with UserMemory.open(root / "maya") as memory:
        texts = [t.text for t in memory.session("conv-chat-42.2").turns]
    assert texts == ["I also adopted a parrot named Kiwi.", "A parrot, lovely."]


def test_session_messages_keep_what_was_said():
    items = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        {"type": "function_call", "name": "search_memory", "arguments": "{}", "call_id": "1"},
        {"type": "function_call_output", "call_id": "1", "output": "{}"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello!"}]},
    ]
    assert session_messages(items) == [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}]
