"""The python tool's description is sent once per conversation: with the first request of
an answer; the later requests carry a short reminder."""

from __future__ import annotations

import pytest

from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings

CALL = {"tool_calls": [{"name": "python", "arguments": {"code": "result = len(trips)"}}]}


def test_a_five_turn_conversation_sends_the_description_once(sample_project, scripted, scripted_llm):
    scripted.enqueue(CALL, CALL, CALL, CALL, "Maya took four trips.")
    memory = UserMemory.open(sample_project, llm=scripted_llm)
    answer = memory.ask("How many trips did Maya take?")
    assert answer.steps == 5 and len(scripted.requests) == 5
    descriptions = [r.tools[0]["function"]["description"] for r in scripted.requests]
    full, reminder = descriptions[0], descriptions[1]
    assert "Builtins:" in full and "Imports:" in full and "`travel.trips` (also `trips`)" in full
    assert descriptions[1:] == [reminder] * 4
    assert "Builtins:" not in reminder and "same sandbox session" in reminder and len(reminder) < 600
    assert len(reminder) * 4 < len(full)
    # the system prompt names the tool once and does not repeat its description
    assert all(full not in (m.content or "") for r in scripted.requests for m in r.messages)
    sent = sum(len(d) for d in descriptions)
    assert sent == len(full) + 4 * len(reminder) < 2 * len(full)


def test_codeblock_mode_says_the_description_in_the_first_system_prompt_only(sample_project, scripted, scripted_llm):
    block = "```python\nresult = len(trips)\n```"
    scripted.enqueue(block, block, "Four trips.")
    UserMemory.open(sample_project, llm=scripted_llm).ask("How many trips did Maya take?", tool_mode="codeblock")
    systems = [r.messages[0].content for r in scripted.requests]
    assert "Builtins:" in systems[0] and "fenced ```python code block" in systems[0]
    assert all("Builtins:" not in s and "same sandbox session" in s for s in systems[1:])
    assert all("fenced ```python code block" in s for s in systems[1:])


def test_an_endpoint_refusing_tools_gets_the_whole_description_in_codeblock_mode(
    sample_project, scripted, scripted_llm
):
    scripted.enqueue({"error": "unsupported", "feature": "tools"}, "```python\nresult = len(trips)\n```", "Four trips.")
    answer = UserMemory.open(sample_project, llm=scripted_llm).ask("How many trips did Maya take?")
    assert answer.tool_mode == "codeblock"
    systems = [r.messages[0].content for r in scripted.requests]
    assert "Builtins:" in systems[1] and "Builtins:" not in systems[2]
