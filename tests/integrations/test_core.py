"""The framework-free core of the adapters: one project, checked arguments, bounded output."""

from __future__ import annotations

import json

import pytest

from uac.integrations._conversation import base_session_id
from uac.integrations._tools import HIT_CHARS, TOOL_NAMES, MemoryTools, ToolError
from uac.memory import UserMemory

from .conftest import BOB_SECRET, written

pytestmark = pytest.mark.embeddings  # the projects are built with the bundled model


def _error(tools: MemoryTools, name: str, arguments) -> ToolError:
    with pytest.raises(ToolError) as caught:
        tools.call_sync(name, arguments)
    return caught.value


def test_the_four_tools_answer_from_the_project(root):
    tools = MemoryTools("maya", root=root)
    assert [spec.name for spec in tools.specs] == list(TOOL_NAMES)
    assert tools.call_sync("run_python", {"code": "result = len(bookings)"}) == {
        "ok": True,
        "result": 24,
        "stdout": "",
        "error": None,
    }
    hits = tools.call_sync("search_memory", {"query": "What is the cat called?", "k": 5})["results"]
    assert any("Pixel" in hit["text"] for hit in hits)
    assert set(hits[0]) >= {"id", "channel", "text", "score", "session_id", "session_date", "evidence"}
    answer = tools.call_sync("ask_memory", {"question": "What is the cat called?"})
    assert answer["mode"] == "evidence" and any("Pixel" in item["text"] for item in answer["evidence"])
    before = written(root / "maya")
    stored = tools.call_sync("remember", {"note": "Maya prefers window seats.", "date": "2024-06-02"})
    assert stored["stored"] and stored["facts_added"] >= 1
    assert written(root / "maya") != before
    assert tools.call_sync("remember", {"note": "Maya prefers window seats.", "date": "2024-06-02"})["stored"] is False


def test_output_is_bounded_by_the_cap(root):
    tools = MemoryTools("maya", root=root, output_chars=600)
    run = tools.call_sync("run_python", {"code": "result = ['x' * 50 for _ in range(500)]"})
    assert len(json.dumps(run)) <= 600 and run["ok"] and "cut" in run
    found = tools.call_sync("search_memory", {"query": "trip Lisbon Kyoto cat marathon", "k": 20})
    assert len(json.dumps(found, ensure_ascii=False)) <= 600
    assert found["cut"]["results"] >= 1
    wide = MemoryTools("maya", root=root).call_sync("search_memory", {"query": "trip", "k": 100})["results"]
    assert len(wide) <= 20  # [answer] top_facts
    assert all(len(hit["text"]) <= HIT_CHARS for hit in wide)


def test_the_cap_defaults_to_the_project_setting(root):
    with UserMemory.open(root / "maya") as memory:
        assert MemoryTools(memory).output_chars() == memory.project.config.answer.tool_output_chars == 8_000


def test_the_descriptions_state_the_projects_own_cap(root):
    # a tool that tells the model "8,000 characters" while the project cuts at 3,000 misleads it
    toml = root / "maya" / "uac.toml"
    toml.write_text(toml.read_text("utf-8").replace("tool_output_chars = 8000", "tool_output_chars = 3000"), "utf-8")
    for tools in (MemoryTools(root / "maya"), MemoryTools(UserMemory.open(root / "maya"))):
        [run_python] = [spec for spec in tools.specs if spec.name == "run_python"]
        assert "cut at 3,000 characters" in run_python.description and tools.output_chars() == 3000
    [run_python] = [s for s in MemoryTools(root / "maya", output_chars=2500).specs if s.name == "run_python"]
    assert "cut at 2,500 characters" in run_python.description
    [run_python] = [s for s in MemoryTools(root / "nobody", create=True).specs if s.name == "run_python"]
    assert "cut at 8,000 characters" in run_python.description  # not made yet: the default


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("search_memory", {"query": 5}, "query: Input should be a valid string"),
        ("search_memory", {"query": "cat", "k": "lots"}, "k: Input should be a valid integer"),
        ("search_memory", {"query": "cat", "as_of": "yesterday"}, "Give as_of in the ISO form"),
        ("search_memory", "{not json", "invalid arguments for search_memory"),
        ("run_python", {}, "code: Field required"),
        ("remember", {"note": 12}, "note: Input should be a valid string"),
        ("remember", {}, "give exactly one of note and messages"),
        ("remember", {"note": "a", "messages": [{"role": "user", "content": "b"}]}, "exactly one of note and messages"),
        ("remember", {"messages": [{"role": "system", "content": "b"}]}, "messages.0.role"),
        ("remember", {"note": "Maya likes tea.", "date": "someday"}, "Give date in the ISO form"),
        ("remember", {"note": "   "}, "the note is empty"),
    ],
)
def test_bad_arguments_are_tool_errors_that_write_nothing(root, name, arguments, says):
    tools = MemoryTools("maya", root=root)
    before = written(root / "maya")
    error = _error(tools, name, arguments)
    assert says in error.text and error.retry and error.code == "input_error"
    assert written(root / "maya") == before


def test_a_sandbox_violation_is_a_tool_error_with_the_run(root):
    error = _error(MemoryTools("maya", root=root), "run_python", {"code": "result = ().__class__"})
    run = json.loads(error.text)
    assert run["ok"] is False and run["error"]["type"] == "PolicyError" and error.retry


def test_a_project_that_does_not_exist_is_a_tool_error_and_is_not_made(root):
    error = _error(MemoryTools("nobody", root=root), "search_memory", {"query": "cat"})
    assert error.code == "project_not_found" and not error.retry
    assert str(root) not in error.text  # no path of the machine reaches the model
    assert not (root / "nobody").exists()
    made = MemoryTools("newcomer", root=root, create=True, user_name="Nia")
    assert made.call_sync("search_memory", {"query": "cat"}) == {"results": []}
    assert (root / "newcomer" / "uac.toml").is_file()


def test_a_tool_set_never_reaches_another_project(root):
    tools = MemoryTools("maya", root=root)
    for spec in tools.specs:
        assert not {"project", "path", "root"} & set(spec.json_schema["properties"])
    bob = written(root / "bob")
    error = _error(tools, "search_memory", {"query": "spare key", "project": "bob"})
    assert "project: Extra inputs are not permitted" in error.text
    # a note that is a path is a note: no file is read
    bob_session = next((root / "bob" / "memory" / "sessions").glob("*.json"))
    tools.call_sync("remember", {"note": str(bob_session)})
    hits = tools.call_sync("search_memory", {"query": "spare key blue flowerpot", "k": 20})["results"]
    assert not any("flowerpot" in hit["text"] for hit in hits)
    assert BOB_SECRET not in (root / "maya" / "memory" / "facts.jsonl").read_text("utf-8")
    assert written(root / "bob") == bob
    with pytest.raises(Exception, match="invalid project name"):
        MemoryTools("../bob", root=root).memory()


def test_a_conversation_is_kept_once_and_continued(root):
    tools = MemoryTools("maya", root=root)
    chat = [
        {"role": "user", "content": "I booked a flight to Oslo for June."},
        {"role": "assistant", "content": "Nice, enjoy Oslo!"},
        {"role": "tool", "content": "ignored"},
    ]
    first = tools.remember_conversation_sync(chat, conversation_id="thread 1/a", date="2024-05-01")
    assert first["stored"] and first["turns_added"] == 2 and first["session_ids"] == [base_session_id("thread 1/a")]
    assert tools.remember_conversation_sync(chat, conversation_id="thread 1/a")["stored"] is False
    chat += [{"role": "user", "content": "I also adopted a parrot named Kiwi."}]
    later = tools.remember_conversation_sync(chat, conversation_id="thread 1/a", date="2024-05-02")
    assert later["turns_added"] == 1 and later["session_ids"] == [base_session_id("thread 1/a") + ".2"]
    with UserMemory.open(root / "maya") as memory:
        assert [t.text for t in memory.session(later["session_ids"][0]).turns] == [
            "I also adopted a parrot named Kiwi."
        ]


def test_run_python_and_ask_say_when_the_view_does_not_include_facts_yet(root, monkeypatch):
    monkeypatch.setenv("UAC_COMPILE_AUTO", "0")  # remember ingests; the view is not caught up
    tools = MemoryTools("maya", root=root, output_chars=600)
    assert "view" not in tools.call_sync("run_python", {"code": "result = 1"})
    tools.call_sync("remember", {"note": "Maya adopted a second cat called Byte.", "date": "2024-06-02"})
    run = tools.call_sync("run_python", {"code": "result = ['x' * 50 for _ in range(500)]"})
    assert run["view"]["facts_not_included"] >= 1 and len(json.dumps(run)) <= 600
    assert tools.call_sync("ask_memory", {"question": "What are the cats called?"})["view"]["facts_not_included"] >= 1


def test_the_frameworks_options_are_the_tools_own_and_a_false_create_is_no_option(root):
    import inspect

    from uac.integrations._tools import ToolOptions, tools_of

    options = set(ToolOptions.__annotations__)
    assert options == {"root", "create", "user_name", "llm", "output_chars"}
    assert options <= set(inspect.signature(MemoryTools).parameters)
    tools = MemoryTools("maya", root=root)
    assert tools_of(tools, create=False, llm=None) is tools  # the defaults, as if not given
    with pytest.raises(TypeError, match="create"):
        tools_of(tools, create=True)
    made = tools_of("maya", root=root, create=False, output_chars=900)
    assert made.output_chars() == 900 and made._create is False
