"""The rule model reads uac's real prompts and answers each kind of call by rule."""

from __future__ import annotations

import datetime as dt
import json

from uac.answer.reader import reader_system_prompt
from uac.answer.style import AnswerStyle
from uac.compile.ops import apply_operations
from uac.compile.working_copy import DomainWork
from uac.facts.log import FactLog, Supersession
from uac.facts.model import Fact
from uac.llm import LLMClient, Message, system, user
from uac.llm.rule_model import RuleModel, call_kind, respond, respond_entry
from uac.llm.types import ChatRequest
from uac.memory import UserMemory
from uac.sessions.model import Session, Turn
from uac.templating import render_prompt


def request_for(template: str, schema_name: str = "response", system_text: str | None = None, **values) -> ChatRequest:
    messages = [
        system(system_text or render_prompt("system_json.j2", schema_name=schema_name)),
        user(render_prompt(template, **values)),
    ]
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
        "extract_facts.j2",
        "facts",
        session_id="s1",
        session_date="2023-06-15",
        date_text=SESSION.date_text,
        speakers=["Alice", "Bob"],
        known=[],
        context=[],
        turns=list(SESSION.turns),
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
    lines = [
        "[f1] (said 2023-06-15; happened 2023-06-14) Alice: Alice flew to Berlin.",
        "[f2] (said 2023-06-15) Bob: Bob cooked a curry for dinner.",
        "[f3] Bob: Bob likes blue.",
    ]
    reply = respond(request_for("structure_route.j2", "routes", domains=[], defaults=["travel", "food"], facts=lines))
    assert reply.data == {
        "routes": [{"id": "f1", "domain": "travel"}, {"id": "f2", "domain": "food"}, {"id": "f3", "domain": "general"}]
    }


NEW_FACTS = [
    "[f1] (said 2023-06-15; happened 2023-06-14) Alice: Alice flew to Berlin yesterday.",
    "[f2] (said 2023-06-15) Alice: Alice loved the hotel.",
    "[f3] (said 2023-06-15) Bob: Ok, sure.",
    "[f4] (said 2023-06-15; happened 2023-03-02) Alice: Alice's sister Ana flew to Lisbon.",
]


def ops_request(**values) -> ChatRequest:
    base = dict(
        domain="travel",
        user_name="Alice",
        schema_lines="",
        collections=[],
        related=[],
        revisit=[],
        context_facts=[],
        facts=NEW_FACTS,
    )
    return request_for("structure_ops.j2", "operations", **{**base, **values})


def test_compile_answers_with_operations_that_uac_applies():
    reply = respond(ops_request())
    assert reply.kind == "compile"
    ops = reply.data["operations"]
    assert [op["op"] for op in ops] == ["add_class", "add_class", "add", "add", "add", "skip"]
    assert [c["name"] for c in ops[:2]] == ["Trip", "Event"]
    assert ops[2] == {
        "op": "add",
        "collection": "trips",
        "class": "Trip",
        "sources": ["f1"],
        "values": {"destination": "Berlin", "start_date": "2023-06-14", "traveller": "Alice"},
    }
    assert ops[3]["values"] == {"text": "Alice loved the hotel.", "day": "2023-06-15", "speaker": "Alice"}
    assert ops[4]["values"] == {"destination": "Lisbon", "start_date": "2023-03-02", "traveller": "Ana"}
    assert ops[5] == {"op": "skip", "facts": ["f3"], "reason": "too short to record"}
    work = DomainWork.empty("travel")
    outcome = apply_operations(work, ops, {"f1", "f2", "f3", "f4"})
    assert outcome.problems == [] and outcome.skipped == {"f3": "too short to record"}
    assert [(t.id, t.destination, t.start_date) for t in work.values["trips"]] == [
        ("trip-1", "Berlin", dt.date(2023, 6, 14)),
        ("trip-2", "Lisbon", dt.date(2023, 3, 2)),
    ]


def test_compile_reads_the_domain_it_is_shown():
    schema = [
        '{"name": "Trip", "fields": [{"name": "destination", "type": "str"},'
        ' {"name": "start_date", "type": "date | None", "default": null}]}'
    ]
    revisit = [
        '{"record": {"id": "trip-1", "class": "Trip", "destination": "Oslo", "start_date": "2023-01-05",'
        ' "sources": ["f0"]}, "why": "cites f0, replaced by f1"}',
        '{"record": {"id": "trip-2", "class": "Trip", "destination": "Rome", "sources": ["f9"]},'
        ' "why": "cites f9, which was removed"}',
    ]
    ops = respond(ops_request(schema_lines=schema, collections=[("journeys", "Trip", 2)], revisit=revisit)).data[
        "operations"
    ]
    assert ops[0] == {
        "op": "update",
        "id": "trip-1",
        "set": {"destination": "Berlin", "start_date": "2023-06-14"},
        "sources": ["f1"],
    }
    assert ops[1]["op"] == "retire" and ops[1]["id"] == "trip-2" and ops[1]["reason"]
    # the class exists without the traveller field: added with a default; trips go to its collection
    assert ops[2] == {"op": "add_field", "class": "Trip", "name": "traveller", "type": "str | None", "default": None}
    adds = [op for op in ops if op["op"] == "add"]
    assert [(a["collection"], a["sources"]) for a in adds] == [("events", ["f2"]), ("journeys", ["f4"])]
    assert "class" not in adds[1] and adds[0]["class"] == "Event"  # f1 updated trip-1 instead of a new trip


def test_a_repair_answers_only_what_is_left_on_the_domain_as_applied():
    first = ops_request()
    ops = respond(first).data["operations"]
    sent = [op for op in ops if op.get("sources") != ["f2"]]  # the answer forgot f2 ...
    sent[2]["values"]["start_date"] = "sometime"  # ... and got the Berlin trip's date wrong
    problems = [
        "operation 3 (add trips): start_date: expects a date as \"YYYY-MM-DD\", got 'sometime'",
        "facts f1, f2 are not addressed yet: cite each in an add, update or retire, or skip it with a reason",
    ]
    repair = render_prompt(
        "structure_ops_repair.j2",
        applied=len(sent) - 1,
        total_applied=len(sent) - 1,
        problems=problems,
        schema_lines="",
        collections=[],
        touched=[],
        touched_more=0,
        retired=[],
    )
    request = ChatRequest(
        messages=first.messages + (Message("assistant", json.dumps({"operations": sent})), user(repair))
    )
    assert call_kind(request) == "compile_repair"
    reply = respond(request)
    # the classes and the Lisbon trip were applied: the trips collection exists, events does not
    assert reply.data == {
        "operations": [
            {
                "op": "add",
                "collection": "trips",
                "values": {"destination": "Berlin", "start_date": "2023-06-14", "traveller": "Alice"},
                "sources": ["f1"],
            },
            {
                "op": "add",
                "collection": "events",
                "class": "Event",
                "values": {"text": "Alice loved the hotel.", "day": "2023-06-15", "speaker": "Alice"},
                "sources": ["f2"],
            },
        ]
    }
    assert respond_entry(request) == {"json": reply.data}


def test_a_repair_keeps_a_shared_fact_this_domains_side_of_it():
    """A fact whose main domain is another is an event here, in the first answer and in a
    repair alike: the repair hands the batch's other-domain records and shared facts on as such."""
    first = ops_request(shared=["f1: also social (social is its main domain)"])
    ops = respond(first).data["operations"]
    berlin = {"text": "Alice flew to Berlin yesterday.", "day": "2023-06-14", "speaker": "Alice"}
    assert {"op": "add", "collection": "events", "class": "Event", "values": berlin, "sources": ["f1"]} in ops
    sent = [op for op in ops if op.get("sources") != ["f1"]]  # the answer forgot f1
    repair = render_prompt(
        "structure_ops_repair.j2",
        applied=len(sent),
        total_applied=len(sent),
        schema_lines="",
        collections=[],
        problems=["facts f1 are not addressed yet: cite each in an add, update or retire, or skip it with a reason"],
        touched=[],
        touched_more=0,
        retired=[],
    )
    request = ChatRequest(
        messages=first.messages + (Message("assistant", json.dumps({"operations": sent})), user(repair))
    )
    assert respond(request).data == {
        "operations": [{"op": "add", "collection": "events", "values": berlin, "sources": ["f1"]}]
    }


def test_compile_end_to_end_revisits_a_replaced_trip(tmp_path):
    model = RuleModel()
    memory = UserMemory.create(tmp_path / "alice", user_name="Alice", llm=LLMClient(model))
    log = FactLog(memory.project.paths.facts)
    oslo = Fact("s1-f1", "Alice flew to Oslo for a conference.", "s1", dt.date(2023, 1, 5), speaker="Alice")
    with memory.project.lock("test"):
        log.append_session(
            "s1", [oslo, Fact("s1-f2", "Alice cooked a curry for dinner.", "s1", dt.date(2023, 1, 5), speaker="Alice")]
        )
    assert memory.compile().ok
    (trip,) = memory.state["travel"]["trips"]
    assert (trip.destination, trip.start_date, trip.traveller) == ("Oslo", dt.date(2023, 1, 5), "Alice")
    bergen = Fact(
        "s2-f1", "Alice flew to Bergen for the conference, not Oslo.", "s2", dt.date(2023, 2, 1), speaker="Alice"
    )
    with memory.project.lock("test"):
        log.append_session("s2", [bergen], [Supersession("s1-f1", "s2-f1", dt.date(2023, 2, 1), "s2")])
    report = memory.compile()
    assert report.ok and report.to_json()["totals"]["facts_pending"] == 0
    (trip,) = memory.state["travel"]["trips"]
    assert (trip.id, trip.destination, trip.sources) == ("trip-1", "Bergen", ["s1-f1", "s2-f1"])
    assert [kind for kind, _ in model.requests] == ["route", "compile", "compile", "route", "compile"]
    bounded = memory.compile(mode="bounded")
    assert bounded.ok and {t.destination for t in memory.state["travel"]["trips"]} == {"Bergen"}
    memory.close()


def test_answer_counts_with_the_tool_then_answers_with_the_result():
    state = (
        "# domains/travel/schema.py\n@dataclass(frozen=True)\nclass Trip:\n    destination: str\n    start: date | None = None\n\n"
        "# domains/travel/state.py\ntrips: list[Trip] = [\n]\n"
    )
    context = render_prompt(
        "answer_context.j2",
        today="2023-12-31",
        question="How many trips did Alice take in 2023?",
        state=state,
        facts=[],
        archive=None,
    )
    system_text = reader_system_prompt(
        user_name="Alice",
        today=dt.date(2023, 12, 31),
        has_state=True,
        has_facts=True,
        has_archive=False,
        tool_mode="native",
        style=AnswerStyle(),
    )
    tool = {"type": "function", "function": {"name": "python"}}
    native = ChatRequest(messages=(system(system_text), user(context)), tools=(tool,))
    reply = respond(native)
    assert reply.tool_calls == [
        ("python", {"code": "result = len([r for r in trips if r.start is not None and r.start.year == 2023])"})
    ]
    after = ChatRequest(
        messages=native.messages + (Message("tool", json.dumps({"ok": True, "result": 3}), tool_call_id="c1"),)
    )
    assert respond(after).text == "The answer is 3, computed over the typed state."
    fenced = reader_system_prompt(
        user_name="Alice",
        today=dt.date(2023, 12, 31),
        has_state=True,
        has_facts=True,
        has_archive=False,
        tool_mode="codeblock",
        style=AnswerStyle(),
    )
    assert respond(ChatRequest(messages=(system(fenced), user(context)))).text.startswith("```python\nresult = len(")


def test_the_kind_comes_from_the_prompt_not_from_what_it_quotes():
    quoting = Session(
        "s2", dt.date(2023, 1, 1), "", (Turn("D2:1", "Bob", "Route each fact below to one life domain, he said."),)
    )
    request = request_for(
        "extract_facts.j2",
        "facts",
        session_id="s2",
        session_date="2023-01-01",
        date_text="",
        speakers=["Bob"],
        known=[],
        context=[],
        turns=list(quoting.turns),
    )
    assert call_kind(request) == "extract"
    assert call_kind(ops_request()) == "compile"
    bounded = request_for("structure_bounded.j2", "domains", facts=NEW_FACTS)
    assert call_kind(bounded) == "compile_bounded"
    assert [d["name"] for d in respond(bounded).data["domains"]] == ["general", "travel"]
    assert call_kind(ChatRequest(messages=(user("What is the capital of France?"),))) is None
    assert respond(ChatRequest(messages=(user("hello"),))).text == "I cannot tell what this request asks for."


def test_protocol_provider_runs_the_whole_extractor(tmp_path):
    from uac.extract.llm import LLMExtractor

    model = RuleModel()
    facts = LLMExtractor(LLMClient(model)).extract(
        SESSION, [Fact("f0", "Alice lives in Paris.", "s0", dt.date(2023, 1, 1), ("D0:1",))]
    )
    assert [f.event_date for f in facts][:2] == [dt.date(2023, 6, 14), dt.date(2023, 3, 2)]
    assert model.requests[0][0] == "extract"
