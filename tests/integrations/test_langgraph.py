"""The LangGraph adapter: LangChain tools in a real graph driven by LangChain's fake chat model,
and the store over real projects."""

from __future__ import annotations

import asyncio
import json

import pytest

pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.graph import START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import ToolNode, tools_condition  # noqa: E402
from langgraph.store.base import BaseStore  # noqa: E402

from uac.errors import InvalidName  # noqa: E402
from uac.integrations.langgraph import UacStore, memory_tools, remember_messages  # noqa: E402
from uac.memory import UserMemory  # noqa: E402

from .conftest import BOB_SECRET, written  # noqa: E402

pytestmark = pytest.mark.embeddings  # the projects are built with the bundled model


def graph_for(tools, *replies: AIMessage, store=None):
    """agent -> tools -> agent ... with a scripted chat model, the way a LangGraph agent is built."""
    model = GenericFakeChatModel(messages=iter(replies))

    def agent(state: MessagesState):
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(store=store)


def _tool_messages(out) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}


def _call(name: str, args: dict, id: str) -> dict:
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


def test_a_graph_calls_the_memory_and_finishes(root):
    graph = graph_for(
        memory_tools("maya", root=root),
        AIMessage(
            "",
            tool_calls=[
                _call("run_python", {"code": "result = len(bookings)"}, "count"),
                _call("search_memory", {"query": "What is the cat called?"}, "cat"),
                _call("remember", {"note": "Maya prefers window seats."}, "note"),
            ],
        ),
        AIMessage("24 trips; the cat is Pixel."),
    )
    out = asyncio.run(graph.ainvoke({"messages": [HumanMessage("How many trips, and the cat?")]}))
    assert out["messages"][-1].content == "24 trips; the cat is Pixel."
    replies = _tool_messages(out)
    assert json.loads(replies["count"].content)["result"] == 24
    assert any("Pixel" in hit["text"] for hit in json.loads(replies["cat"].content)["results"])
    assert json.loads(replies["note"].content)["stored"] is True
    assert all(m.status == "success" for m in replies.values())


def test_bad_calls_are_error_messages_and_write_nothing(root):
    before = written(root / "maya"), written(root / "bob")
    graph = graph_for(
        memory_tools("maya", root=root),
        AIMessage(
            "",
            tool_calls=[
                _call("search_memory", {"query": "cat", "k": "lots"}, "type"),
                _call("run_python", {"code": "import os\nresult = os.listdir('/')"}, "escape"),
                _call("remember", {"note": "Maya likes tea.", "date": "someday"}, "date"),
                _call("search_memory", {"query": "key", "project": "bob"}, "other"),
            ],
        ),
        AIMessage("Sorry."),
    )
    out = graph.invoke({"messages": [HumanMessage("Try things.")]})  # the sync path too
    assert out["messages"][-1].content == "Sorry."
    replies = _tool_messages(out)
    assert all(m.status == "error" for m in replies.values())
    assert "k: Input should be a valid integer" in replies["type"].content
    assert json.loads(replies["escape"].content)["ok"] is False
    assert "Give date in the ISO form" in replies["date"].content
    assert "project: Extra inputs are not permitted" in replies["other"].content
    assert (written(root / "maya"), written(root / "bob")) == before


def test_the_store_maps_items_onto_sessions(root):
    store = UacStore(root)
    prefs = ("maya", "preferences")
    store.put(prefs, "seat", {"content": "Maya prefers window seats on flights."})
    store.put(prefs, "food", {"content": "Maya is vegetarian.", "kind": "diet"})
    store.put(("maya", "work"), "job", {"content": "Maya works as an architect in Porto."})
    item = store.get(prefs, "seat")
    assert item.value == {"content": "Maya prefers window seats on flights."} and item.namespace == prefs
    # an item is a session of the project: in its archive, its fact log and its search
    with UserMemory.open(root / "maya") as memory:
        assert any("window seats" in f.text for f in memory.facts())
    found = store.search(("maya",), query="What does Maya eat?")
    assert [i.key for i in found][:1] == ["food"] and found[0].score > 0
    scoped = store.search(prefs, query="architect in Porto")
    assert scoped and all(i.namespace == prefs for i in scoped)  # the work item is under another scope
    assert [i.key for i in store.search(("maya",), filter={"kind": "diet"})] == ["food"]
    assert sorted(store.list_namespaces(prefix=("maya",))) == [("maya", "preferences"), ("maya", "work")]
    # a changed value replaces the item (its facts too); None deletes it
    first = store.get(prefs, "seat")
    store.put(prefs, "seat", {"content": "Maya prefers aisle seats now."})
    changed = store.get(prefs, "seat")
    assert changed.value["content"] == "Maya prefers aisle seats now." and changed.created_at == first.created_at
    with UserMemory.open(root / "maya") as memory:
        texts = " ".join(f.text for f in memory.facts(include_superseded=True))
    assert "window seats" not in texts and "aisle seats" in texts
    store.delete(prefs, "seat")
    assert store.get(prefs, "seat") is None
    assert asyncio.run(store.aget(prefs, "food")).value["kind"] == "diet"
    store.close()


def test_the_store_keeps_each_project_to_itself(root):
    store = UacStore(root, create=False)
    before = written(root / "bob")
    store.put(("maya", "notes"), "n1", {"content": "Maya's locker code is 4471."})
    assert store.get(("bob", "notes"), "n1") is None
    assert not any("4471" in i.value.get("content", "") for i in store.search(("bob",), query="locker code"))
    assert all(i.namespace[0] == "maya" for i in store.search(("maya",), query=BOB_SECRET))
    assert written(root / "bob") == before
    for bad in [(), ("..",), ("../bob",)]:
        with pytest.raises((InvalidName, ValueError)):
            store.put(bad, "k", {"content": "x"})
    assert store.get(("nobody",), "k") is None and not (root / "nobody").exists()
    with pytest.raises(Exception, match="no user project 'nobody'"):
        store.put(("nobody",), "k", {"content": "x"})
    with pytest.raises(Exception, match="not plain JSON"):
        store.put(("maya",), "k", {"when": object()})
    store.close()


def test_a_graph_node_uses_the_store(root):
    store = UacStore(root)

    def remember_and_recall(state: MessagesState, *, store: BaseStore):
        text = state["messages"][-1].content
        store.put(("maya", "memories"), "latest", {"content": text})
        hits = store.search(("maya", "memories"), query="Which city?")
        return {"messages": [AIMessage(hits[0].value["content"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("node", remember_and_recall)
    builder.add_edge(START, "node")
    graph = builder.compile(store=store)
    out = graph.invoke({"messages": [HumanMessage("I am moving to Vienna in September.")]})
    assert out["messages"][-1].content == "I am moving to Vienna in September."
    store.close()


def test_a_thread_is_fed_to_the_memory_once(root):
    messages = [
        HumanMessage("I booked a flight to Oslo for June."),
        AIMessage("Enjoy Oslo!"),
        ToolMessage("ignored", tool_call_id="x"),
    ]
    first = asyncio.run(remember_messages(messages, "maya", root=root, thread_id="t-1", date="2024-05-01"))
    assert first["session_ids"] == ["conv-t-1"] and first["turns_added"] == 2
    assert asyncio.run(remember_messages(messages, "maya", root=root, thread_id="t-1"))["stored"] is False
