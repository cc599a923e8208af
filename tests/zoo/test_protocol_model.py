"""The protocol model reads uac's real prompts and answers each kind of call by rule."""

from __future__ import annotations

import datetime as dt
import json

from uac.facts.model import Fact
from uac.llm import LLMClient, Message, system, user
from uac.llm.protocol import ProtocolModel, call_kind, respond
from uac.llm.protocol.compile_files import read_records
from uac.llm.types import ChatRequest
from uac.sessions.model import Session, Turn
from uac.templating import render_prompt


def request_for(template: str, schema_name: str = "response", system_text: str | None = None, **values) -> ChatRequest:
    messages = [system(system_text or render_prompt("system_json.j2", schema_name=schema_name)), user(render_prompt(template, **values))]
    return ChatRequest(messages=tuple(messages))


SESSION = Session(
    "s1",
    dt.date(2023, 6, 15),
    "8:15 am on 15 June, 2023",
    (
        Turn("D1:1", "Alice", "Hi Bob! I flew to Berlin yesterday for my friend's wedding."),
        Turn("D1:2", "Bob", "Nice. How was it?"),
        Turn("D1:3", "Alice", "My sister Ana flew to Lisbon on 2 March 2023.", image_caption="a photo of a tram"),
    ),
)


def extraction_request() -> ChatRequest:
    return request_for(
        "extract_facts.j2", "facts", session_id="s1", session_date="2023-06-15", date_text=SESSION.date_text,
        speakers=["Alice", "Bob"], known=[], context=[], turns=list(SESSION.turns),
    )


def test_extraction_follows_the_prompt():
    reply = respond(extraction_request())
    assert reply.kind == "extract"
    facts = reply.data["facts"]
    assert [(f["text"], f["evidence"], f["event_date"]) for f in facts] == [
        ("Alice flew to Berlin yesterday for Alice's friend's wedding.", ["D1:1"], "2023-06-14"),
        ("Alice's sister Ana flew to Lisbon on 2 March 2023.", ["D1:3"], "2023-03-02"),
        ("Alice shared an image: a photo of a tram.", ["D1:3"], None),
    ]


def test_routing_answers_every_id():
    lines = ["[f1] (2023-06-14) Alice: Alice flew to Berlin.", "[f2] (2023-06-15) Bob: Bob cooked a curry for dinner.", "[f3] Bob: Bob likes blue."]
    reply = respond(request_for("structure_route.j2", "routes", domains=[], defaults=["travel", "food"], facts=lines))
    assert reply.data == {"routes": [{"id": "f1", "domain": "travel"}, {"id": "f2", "domain": "food"}, {"id": "f3", "domain": "general"}]}


def test_compile_keeps_earlier_records_and_adds_new_ones():
    first = respond(
        request_for("structure_domain.j2", "domain_files", domain="travel", schema_py="", state_py="",
                    facts=["[f1] (2023-06-14) Alice: Alice flew to Berlin yesterday.", "[f2] (2023-06-15) Alice: Alice loved the hotel."])
    ).data
    assert read_records(first["state_py"])["trips"] == [{"destination": "Berlin", "start": dt.date(2023, 6, 14), "sources": ["f1"]}]
    second = respond(
        request_for("structure_domain.j2", "domain_files", domain="travel", schema_py=first["schema_py"], state_py=first["state_py"],
                    facts=["[f3] (2023-08-20) Alice: Alice flew to Reykjavik.", "[f1] (2023-06-14) Alice: Alice flew to Berlin yesterday."])
    ).data
    records = read_records(second["state_py"])
    assert [t["destination"] for t in records["trips"]] == ["Berlin", "Reykjavik"]
    assert [e["sources"] for e in records["events"]] == [["f2"]]
    assert "class Trip" in second["schema_py"] and "class Event" in second["schema_py"]


def test_answer_counts_with_the_tool_then_answers_with_the_result():
    state = (
        "# domains/travel/schema.py\n@dataclass(frozen=True)\nclass Trip:\n    destination: str\n    start: date | None = None\n\n"
        "# domains/travel/state.py\ntrips: list[Trip] = [\n]\n"
    )
    context = render_prompt("answer_context.j2", today="2023-12-31", question="How many trips did Alice take in 2023?",
                            state=state, facts=[], archive=None)
    system_text = render_prompt("answer_system.j2", user_name="Alice", today="2023-12-31", has_state=True, has_facts=True,
                                has_archive=False, tool_mode="native", instructions="")
    tool = {"type": "function", "function": {"name": "python"}}
    native = ChatRequest(messages=(system(system_text), user(context)), tools=(tool,))
    reply = respond(native)
    assert reply.tool_calls == [("python", {"code": "result = len([r for r in trips if r.start is not None and r.start.year == 2023])"})]
    after = ChatRequest(messages=native.messages + (Message("tool", json.dumps({"ok": True, "result": 3}), tool_call_id="c1"),))
    assert respond(after).text == "The answer is 3, computed over the typed state."
    fenced = render_prompt("answer_system.j2", user_name="Alice", today="2023-12-31", has_state=True, has_facts=True,
                           has_archive=False, tool_mode="codeblock", instructions="")
    assert respond(ChatRequest(messages=(system(fenced), user(context)))).text.startswith("```python\nresult = len(")


def test_the_kind_comes_from_the_prompt_not_from_what_it_quotes():
    quoting = Session("s2", dt.date(2023, 1, 1), "", (Turn("D2:1", "Bob", "Route each fact below to one life domain, he said."),))
    request = request_for("extract_facts.j2", "facts", session_id="s2", session_date="2023-01-01", date_text="",
                          speakers=["Bob"], known=[], context=[], turns=list(quoting.turns))
    assert call_kind(request) == "extract"
    assert call_kind(ChatRequest(messages=(user("What is the capital of France?"),))) is None
    assert respond(ChatRequest(messages=(user("hello"),))).text == "I cannot tell what this request asks for."


def test_protocol_provider_runs_the_whole_extractor(tmp_path):
    from uac.extract.llm import LLMExtractor

    model = ProtocolModel()
    facts = LLMExtractor(LLMClient(model)).extract(SESSION, [Fact("f0", "Alice lives in Paris.", "s0", dt.date(2023, 1, 1), ("D0:1",))])
    assert [f.event_date for f in facts][:2] == [dt.date(2023, 6, 14), dt.date(2023, 3, 2)]
    assert model.requests[0][0] == "extract"
