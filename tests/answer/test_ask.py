"""uac ask end to end on a sample project, with the scripted model."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uac.cli import main
from uac.errors import ModelError, UserError
from uac.memory import UserMemory

from .conftest import trips_in

pytestmark = pytest.mark.embeddings

COUNT_2024 = "result = len([t for t in trips if t.start_date.year == 2024])"


def opened(root, llm=None):
    return UserMemory.open(root, llm=llm)


def prompt_of(request) -> str:
    return request.messages[1].content


def test_without_a_model_ask_returns_ranked_evidence(sample_project):
    answer = opened(sample_project).ask("Where did Maya travel in March 2024?")
    assert answer.mode == "evidence" and answer.answer is None
    assert "No language model is configured" in answer.message and "UAC_LLM_PROVIDER" in answer.message
    assert answer.facts and answer.archive
    assert any("Lisbon" in item.text for item in answer.facts)
    data = answer.to_json()
    assert set(data) >= {"answer", "channels", "usage", "tool_calls", "latency_seconds"}
    assert set(data["channels"]) == {"state", "facts", "archive"}
    assert data["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}


def test_prompt_sections_order_and_budgets(sample_project, scripted, scripted_llm):
    scripted.enqueue("Lisbon [F1]")
    answer = opened(sample_project, scripted_llm).ask(
        "Where did Maya go in March 2024?",
        top_facts=3,
        top_archive=2,
        state_chars=500,
        tool_mode="off",
        loading="monolithic",
    )
    assert answer.answer == "Lisbon [F1]" and answer.mode == "llm"
    system = scripted.requests[0].messages[0].content
    assert "Prefer STATE when channels disagree" in system
    prompt = prompt_of(scripted.requests[0])
    positions = [prompt.index(h) for h in ("[STATE]", "[FACTS]", "[ARCHIVE]", "Question:")]
    assert positions == sorted(positions)
    facts_block = prompt.split("[FACTS]\n")[1].split("\n\n[ARCHIVE]")[0]
    assert sum(line.startswith("- [") for line in facts_block.splitlines()) == 3
    archive_block = prompt.split("[ARCHIVE]\n")[1].split("\n\nQuestion:")[0]
    assert sum(line.startswith("- [") for line in archive_block.splitlines()) == 2
    assert "\n    " in archive_block  # multi-line chunks stay inside their item
    state_block = prompt.split("[STATE]\n")[1].split("\n\n[FACTS]")[0]
    assert len(state_block) <= 500 + 120 and "STATE truncated" in state_block
    assert answer.prompt_tokens > 0 and answer.completion_tokens > 0
    assert "said 2024-03-14" in facts_block


def test_instructions_reach_the_reader(sample_project, scripted, scripted_llm):
    scripted.enqueue("Lisbon")
    opened(sample_project, scripted_llm).ask("Where?", tool_mode="off", instructions="Answer in at most five words.")
    assert scripted.requests[0].messages[0].content.rstrip().endswith("Answer in at most five words.")


def test_leave_one_out_switches(sample_project, scripted, scripted_llm):
    memory = opened(sample_project, scripted_llm)
    for kwargs, absent in (
        ({"use_state": False}, "[STATE]"),
        ({"use_facts": False}, "[FACTS]"),
        ({"use_archive": False}, "[ARCHIVE]"),
    ):
        scripted.enqueue("ok")
        memory.ask("What did Leo train for?", tool_mode="off", **kwargs)
        prompt = prompt_of(scripted.requests[-1])
        assert absent not in prompt
        for other in {"[STATE]", "[FACTS]", "[ARCHIVE]"} - {absent}:
            assert other in prompt


def test_modular_loading_routes_to_the_relevant_domain(sample_project, scripted, scripted_llm):
    memory = opened(sample_project, scripted_llm)
    scripted.enqueue("a", "b", "c")
    big = {"tool_mode": "off", "state_chars": 100_000}
    modular = memory.ask("How many trips did Maya take?", loading="modular", **big)
    mono = memory.ask("How many trips did Maya take?", loading="monolithic", **big)
    manifest = memory.ask("How many trips did Maya take?", loading="manifest", **big)
    assert modular.state.domains[0] == "travel" and "food" not in modular.state.domains
    assert set(mono.state.domains) >= {"travel", "food"}
    assert manifest.state.domains == []
    # each mode's prompt size is reported; the manifest is the smallest
    assert manifest.prompt_tokens < modular.prompt_tokens < mono.prompt_tokens
    assert manifest.state.chars < modular.state.chars < mono.state.chars


def test_tool_loop_computes_the_aggregate(sample_project, scripted, scripted_llm, trips_rows):
    expected = trips_in(trips_rows, 2024)
    scripted.enqueue(
        {"tool_calls": [{"name": "python", "arguments": {"code": COUNT_2024}}]},
        f"Maya took {expected} trips in 2024 (computed over trips).",
    )
    answer = opened(sample_project, scripted_llm).ask("How many trips did Maya take in 2024?")
    assert answer.steps == 2
    assert answer.tool_runs[0].result == {"ok": True, "result": expected, "stdout": "", "error": None}
    first, second = scripted.requests
    assert first.tools and first.tools[0]["function"]["name"] == "python"
    tool_message = second.messages[-1]
    assert tool_message.role == "tool" and json.loads(tool_message.content)["result"] == expected
    assert str(expected) in answer.answer
    assert answer.to_json()["tool_calls"][0]["code"] == COUNT_2024


def test_tool_steps_are_bounded(sample_project, scripted, scripted_llm):
    call = {"tool_calls": [{"name": "python", "arguments": {"code": "result = 1"}}]}
    scripted.enqueue(call, call, "final answer", call)
    answer = opened(sample_project, scripted_llm).ask("Count my meals", max_tool_steps=2)
    assert len(answer.tool_runs) == 2 and answer.answer == "final answer"
    assert answer.steps == 3 and len(scripted.requests) == 3
    final_request = scripted.requests[-1]
    assert not final_request.tools
    assert "used all computation steps" in final_request.messages[-1].content
    assert scripted.remaining == 1


def test_bad_tool_arguments_are_reported_back(sample_project, scripted, scripted_llm):
    scripted.enqueue({"tool_calls": [{"name": "python", "arguments": "{not json"}]}, "sorry")
    answer = opened(sample_project, scripted_llm).ask("Count trips")
    message = json.loads(scripted.requests[1].messages[-1].content)
    assert message["ok"] is False and message["error"]["type"] == "BadArguments"
    assert answer.answer == "sorry" and answer.tool_runs == []


def test_sandbox_errors_go_back_to_the_model(sample_project, scripted, scripted_llm):
    scripted.enqueue(
        {"tool_calls": [{"name": "python", "arguments": {"code": "result = trips[0].destnation"}}]}, "done"
    )
    answer = opened(sample_project, scripted_llm).ask("Count trips")
    result = answer.tool_runs[0].result
    assert result["ok"] is False and result["error"]["type"] == "AttributeError"


def test_model_error_mid_loop_is_clear(sample_project, scripted, scripted_llm):
    scripted.enqueue(
        {"tool_calls": [{"name": "python", "arguments": {"code": COUNT_2024}}]},
        {"error": "fatal", "message": "endpoint exploded"},
    )
    with pytest.raises(ModelError, match="answering failed at step 2: endpoint exploded"):
        opened(sample_project, scripted_llm).ask("How many trips in 2024?")


def test_codeblock_fallback_for_models_without_tools(sample_project, scripted, scripted_llm, trips_rows):
    expected = trips_in(trips_rows, 2024)
    scripted.enqueue(f"```python\n{COUNT_2024}\n```", f"{expected} trips.")
    answer = opened(sample_project, scripted_llm).ask("How many trips in 2024?", tool_mode="codeblock")
    assert not scripted.requests[0].tools
    assert "fenced ```python code block" in scripted.requests[0].messages[0].content
    assert "Result of your code" in scripted.requests[1].messages[-1].content
    assert answer.tool_runs[0].result["result"] == expected and answer.answer == f"{expected} trips."


def test_as_of_filters_facts_and_state(sample_project, scripted, scripted_llm, trips_rows):
    as_of = dt.date(2024, 6, 1)
    expected = trips_in(trips_rows, 2024, until=as_of)
    assert expected < trips_in(trips_rows, 2024)
    scripted.enqueue({"tool_calls": [{"name": "python", "arguments": {"code": COUNT_2024}}]}, "ok")
    answer = opened(sample_project, scripted_llm).ask("How many trips in 2024?", as_of=as_of, top_facts=50)
    assert answer.tool_runs[0].result["result"] == expected
    assert all(item.session_date <= "2024-06-01" for item in answer.facts)
    assert "The question date is 2024-06-01" in scripted.requests[0].messages[0].content
    assert answer.state.records_excluded_as_of > 0


def test_event_date_is_shown_apart_from_the_session_date(sample_project):
    answer = opened(sample_project).ask("When did Maya get back from Lisbon?", top_facts=30)
    lisbon = [item for item in answer.facts if "Lisbon" in item.text and item.event_date]
    assert lisbon, [i.line() for i in answer.facts]
    assert any("happened 2024-03-13" in item.line() and "said 2024-03-14" in item.line() for item in lisbon)


def test_iterative_selection_in_ask(sample_project, scripted, scripted_llm):
    memory = opened(sample_project, scripted_llm)
    first_fact = memory.search("Kyoto", k=1, channel="facts")[0].id
    scripted.enqueue(
        {"json": {"selected": [first_fact], "follow_up_queries": ["who went to Kyoto with Maya"], "sufficient": False}},
        {"json": {"selected": [], "follow_up_queries": [], "sufficient": True}},
        "Ana",
    )
    answer = memory.ask("Who travelled to Kyoto with Maya?", iterative=True, tool_mode="off")
    assert answer.answer == "Ana"
    assert answer.iterative["queries"] == ["Who travelled to Kyoto with Maya?", "who went to Kyoto with Maya"]
    assert answer.facts[0].id == first_fact


def test_ask_cli_json(sample_project, capsys):
    code = main(["ask", str(sample_project), "How many trips?", "--json", "--show-context"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is None and data["mode"] == "evidence"
    assert "[FACTS]" in data["context"]
    assert data["usage"] == {"prompt_tokens": 0, "completion_tokens": 0}


def test_bad_options_are_user_errors(sample_project):
    memory = opened(sample_project)
    with pytest.raises(UserError, match="loading mode"):
        memory.ask("x", loading="everything")
    with pytest.raises(UserError, match="not a date"):
        memory.ask("x", as_of="yesterday")
    with pytest.raises(UserError, match="empty"):
        memory.ask("   ")


def test_repl_json_and_api(sample_project, capsys, trips_rows):
    code = main(["repl", str(sample_project), "-c", COUNT_2024, "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    view = data.pop("view")  # how far the view lags the log: the sample's sessions were never compiled
    assert data == {"ok": True, "result": trips_in(trips_rows, 2024), "stdout": "", "error": None}
    assert set(view) == {"facts_not_included", "catching_up"} and view["catching_up"] is False
    memory = opened(sample_project)
    assert memory.run("result = len(travel.trips) == len(trips)").result is True
    failed = memory.run("result = 1/0")
    assert failed.ok is False and failed.error["type"] == "ZeroDivisionError"
    code = main(["repl", str(sample_project), "-c", "x = (", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["error"]["type"] == "SyntaxError"


def test_repl_warm_session_keeps_variables(sample_project):
    with opened(sample_project).sandbox_session() as session:
        session.run("total = sum(m.spend for m in meals)")
        second = session.run("result = round(total / len(meals), 2)")
    assert second.ok and isinstance(second.result, float)


def test_ask_against_an_openai_compatible_endpoint_by_configuration_alone(
    sample_project, capsys, monkeypatch, trips_rows
):
    """Environment variables alone point `uac ask` at an OpenAI-compatible server
    (here a local fake speaking the chat-completions protocol, tool calls included)."""
    from tests.fixtures.fake_openai_server import FakeOpenAIServer, completion

    expected = trips_in(trips_rows, 2024)
    with FakeOpenAIServer() as server:
        server.reply(
            completion(None, tool_calls=[("python", {"code": COUNT_2024})], prompt_tokens=9000, completion_tokens=30)
        )
        server.reply(completion(f"{expected} trips in 2024.", prompt_tokens=9500, completion_tokens=8))
        monkeypatch.setenv("UAC_LLM_PROVIDER", "openai")
        monkeypatch.setenv("UAC_LLM_MODEL", "llama3.1")
        monkeypatch.setenv("UAC_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("UAC_LLM_CACHE", "0")
        code = main(["ask", str(sample_project), "How many trips did I take in 2024?", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["mode"] == "llm"
    assert data["answer"] == f"{expected} trips in 2024."
    assert data["tool_calls"][0]["result"]["result"] == expected
    assert (data["usage"]["prompt_tokens"], data["usage"]["completion_tokens"]) == (18500, 38)
    assert data["usage"]["calls"] == 2 and data["usage"]["cached"]["calls"] == 0
    first, second = (r.body for r in server.received)
    assert first["model"] == "llama3.1" and first["tools"][0]["function"]["name"] == "python"
    assert second["messages"][-1]["role"] == "tool"
    assert json.loads(second["messages"][-1]["content"])["result"] == expected


def test_interactive_repl_keeps_variables_and_blocks(sample_project):
    import subprocess
    import sys

    script = "x = 20\nresult = x + 22\nfor i in range(2):\n    print('line', i)\n\nresult = len(trips)\nquit\n"
    proc = subprocess.run(
        [sys.executable, "-m", "uac", "repl", str(sample_project)],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "collections: " in proc.stdout and "trips (travel.trips, 24)" in proc.stdout
    assert "42" in proc.stdout and "line 0" in proc.stdout and "line 1" in proc.stdout
    assert ">>> 24\n" in proc.stdout
