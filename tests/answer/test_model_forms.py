"""ask with the forms real models and servers use: tool calls written as text,
servers that refuse tools, reasoning blocks, cut-off answers, empty answers, and
complete token accounting (the decider's calls, cache hits apart)."""

from __future__ import annotations

import json

import pytest

from uac.errors import ModelError
from uac.llm import LLMClient, ResponseCache, ScriptedProvider
from uac.memory import UserMemory

from .conftest import trips_in

pytestmark = pytest.mark.embeddings

COUNT_2024 = "result = len([t for t in trips if t.start_date.year == 2024])"
QUESTION = "How many trips did Maya take in 2024?"


def ask(root, llm, **options):
    memory = UserMemory.open(root, llm=llm)
    try:
        return memory.ask(QUESTION, **options)
    finally:
        memory.close()


@pytest.mark.parametrize(
    "reply",
    [
        '<think>I will count.</think>\n<tool_call>\n{"name": "python", "arguments": {"code": "%s"}}\n</tool_call>'
        % COUNT_2024,
        "Let me compute it.\n```python\n%s\n```" % COUNT_2024,
        '{"name": "python", "arguments": {"code": "%s"}}' % COUNT_2024,
    ],
)
def test_code_written_as_text_runs_in_native_mode(sample_project, scripted, scripted_llm, trips_rows, reply):
    expected = trips_in(trips_rows, 2024)
    scripted.enqueue(reply, f"<think>The tool said {expected}.</think>\nMaya took {expected} trips in 2024.")
    answer = ask(sample_project, scripted_llm)
    assert answer.tool_runs[0].result["result"] == expected
    assert answer.answer == f"Maya took {expected} trips in 2024."  # the reasoning is not the answer
    assert scripted.requests[1].messages[-1].content.startswith("Result of your code (JSON):")
    assert answer.tool_mode == "native"


def test_a_server_that_refuses_tools_gets_fenced_code(sample_project, scripted, scripted_llm, trips_rows):
    expected = trips_in(trips_rows, 2024)
    scripted.enqueue(
        {"error": "unsupported", "feature": "tools", "message": "tools are not supported"},
        f"```python\n{COUNT_2024}\n```",
        f"{expected} trips.",
    )
    answer = ask(sample_project, scripted_llm)
    first, second, third = scripted.requests
    assert first.tools and not second.tools and not third.tools
    assert "fenced ```python code block" in second.messages[0].content
    assert answer.tool_runs[0].result["result"] == expected and answer.tool_mode == "codeblock"
    assert answer.usage.fallbacks == 1


def test_unknown_tools_and_broken_tool_text_go_back_to_the_model(sample_project, scripted, scripted_llm):
    scripted.enqueue(
        {"tool_calls": [{"name": "web_search", "arguments": {"q": "trips"}}]},
        "<tool_call>{not json}</tool_call>",
        "I cannot tell.",
    )
    answer = ask(sample_project, scripted_llm)
    unknown = json.loads(scripted.requests[1].messages[-1].content)
    assert unknown["error"]["type"] == "UnknownTool" and "web_search" in unknown["error"]["message"]
    assert "BadToolCall" in scripted.requests[2].messages[-1].content  # a text call that is not JSON
    assert answer.answer == "I cannot tell." and answer.tool_runs == []


def test_a_cut_off_answer_says_so(sample_project, scripted, scripted_llm):
    scripted.enqueue({"content": "Maya took several trips, first to", "finish_reason": "length"})
    answer = ask(sample_project, scripted_llm, tool_mode="off")
    assert answer.truncated and answer.answer == "Maya took several trips, first to"
    data = answer.to_json()
    assert data["truncated"] is True and "[llm.max_tokens]" in data["message"]


@pytest.mark.parametrize("reply", ["", "<think>Hmm, let me think about the trips.</think>", "\x00\x01\x02" * 30])
def test_an_empty_or_binary_answer_is_a_model_error(sample_project, scripted, scripted_llm, reply):
    scripted.enqueue(reply)
    with pytest.raises(ModelError, match="answering failed at step 1"):
        ask(sample_project, scripted_llm, tool_mode="off")


def test_every_call_is_in_the_answer_usage_and_cache_hits_apart(sample_project, tmp_path):
    def reply(request):
        if request.json_schema is not None:  # the iterative decider
            return {
                "json": {"selected": [], "follow_up_queries": [], "sufficient": True},
                "usage": {"prompt_tokens": 70, "completion_tokens": 5},
            }
        return {"content": "Four.", "usage": {"prompt_tokens": 300, "completion_tokens": 2}}

    cache = ResponseCache(tmp_path / "cache.sqlite")
    first = ask(
        sample_project, LLMClient(ScriptedProvider(handler=reply), cache=cache), iterative=True, tool_mode="off"
    )
    assert (first.prompt_tokens, first.completion_tokens) == (370, 7)
    usage = first.to_json()["usage"]
    assert usage["calls"] == 2 and usage["cached"]["calls"] == 0
    again = ask(
        sample_project, LLMClient(ScriptedProvider(handler=reply), cache=cache), iterative=True, tool_mode="off"
    )
    usage = again.to_json()["usage"]
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage["calls"]) == (0, 0, 0)
    assert usage["cached"] == {"calls": 2, "prompt_tokens": 370, "completion_tokens": 7}


def test_bracketed_ids_from_the_decider_are_understood(sample_project, scripted, scripted_llm):
    memory = UserMemory.open(sample_project, llm=scripted_llm)
    kyoto = memory.search("Kyoto", k=1, channel="facts")[0].id
    scripted.enqueue(
        {
            "content": '<think>pick</think>```json\n{"selected": ["[%s]"], "follow_up_queries": [], "sufficient": "true"}\n```'
            % kyoto
        },
        "Ana",
    )
    answer = memory.ask("Who travelled to Kyoto with Maya?", iterative=True, tool_mode="off")
    memory.close()
    assert answer.iterative["core"] == [kyoto] and answer.iterative["decider_failures"] == 0
