"""The rule model answers the new operations where its rules can tell: a list of
supersessions from a sentence that ends several known facts, and ``correct`` for a record
whose fact was corrected (the record stays, citing both facts)."""

from __future__ import annotations

import datetime as dt

from uac.facts.log import FactLog, Supersession
from uac.facts.model import Fact
from uac.llm import LLMClient, Message, system, user
from uac.llm.rule_model import RuleModel, respond
from uac.llm.types import ChatRequest
from uac.memory import UserMemory
from uac.sessions.model import Session, Turn
from uac.templating import render_prompt

KNOWN = [
    Fact("s1-f1", "Sam works at Acme Corp as an engineer.", "s1", dt.date(2024, 1, 10), speaker="Sam"),
    Fact("s1-f2", "Sam earns 80,000 a year at Acme.", "s1", dt.date(2024, 1, 10), speaker="Sam"),
    Fact("s1-f3", "Sam hopes for a promotion to team lead at Acme.", "s1", dt.date(2024, 1, 10), speaker="Sam"),
    Fact("s1-f4", "Sam lives in Leeds.", "s1", dt.date(2024, 1, 10), speaker="Sam"),
]


def extract(text: str, known=KNOWN):
    session = Session("s2", dt.date(2024, 3, 5), "5 March 2024", (Turn("s2:1", "Sam", text),))
    prompt = render_prompt(
        "extract_facts.j2",
        session_id="s2",
        session_date="2024-03-05",
        date_text="5 March 2024",
        speakers=["Sam"],
        known=known,
        context=[],
        turns=list(session.turns),
    )
    request = ChatRequest(messages=(system(render_prompt("system_json.j2", schema_name="facts")), user(prompt)))
    return respond(request).data["facts"]


def test_a_sentence_that_ends_something_supersedes_every_known_fact_about_it():
    (fact,) = extract("I left Acme Corp last week.")
    assert fact["supersedes"] == ["s1-f1", "s1-f2", "s1-f3"]
    (fact,) = extract("I cooked a big curry for my friends.")
    assert fact["supersedes"] is None
    (fact,) = extract("I left Acme Corp last week.", known=[])
    assert fact["supersedes"] is None


def test_a_corrected_fact_makes_the_protocol_model_correct_its_record(tmp_path):
    model = RuleModel()
    memory = UserMemory.create(tmp_path / "alice", user_name="Alice", llm=LLMClient(model))
    log = FactLog(memory.project.paths.facts)
    curry = Fact("s1-f1", "Alice cooked a Thai curry for six friends.", "s1", dt.date(2023, 1, 5), speaker="Alice")
    with memory.project.lock("test"):
        log.append_session("s1", [curry])
    assert memory.compile().ok
    (domain,) = list(memory.state)
    (before,) = [r for c in memory.state[domain] for r in memory.state[domain][c]]
    fixed = Fact(
        "s2-f1", "Alice cooked a Thai curry for eight friends, not six.", "s2", dt.date(2023, 2, 1), speaker="Alice"
    )
    with memory.project.lock("test"):
        log.append_session("s2", [fixed], [Supersession("s1-f1", "s2-f1", dt.date(2023, 2, 1), "s2", "corrects")])
    model.requests.clear()
    report = memory.compile()
    assert report.ok and report.to_json()["totals"]["facts_pending"] == 0
    (after,) = [r for c in memory.state[domain] for r in memory.state[domain][c]]
    assert after.id == before.id and after.sources == ["s1-f1", "s2-f1"]  # put right, not retired and added again
    assert after.text == fixed.text and any(n.startswith("corrected by s2-f1: text was") for n in after.notes)
    memory.close()


def test_the_same_trip_told_again_is_cited_on_its_record(tmp_path):
    model = RuleModel()
    memory = UserMemory.create(tmp_path / "alice", user_name="Alice", llm=LLMClient(model))
    log = FactLog(memory.project.paths.facts)
    day = dt.date(2023, 1, 5)
    with memory.project.lock("test"):
        log.append_session("s1", [Fact("s1-f1", "Alice flew to Oslo for a conference.", "s1", day, speaker="Alice")])
    assert memory.compile().ok
    again = Fact(
        "s2-f1", "Alice flew to Oslo and loved the fjords.", "s2", dt.date(2023, 2, 1), speaker="Alice", event_date=day
    )
    with memory.project.lock("test"):
        log.append_session("s2", [again])
    report = memory.compile()
    assert report.ok and report.to_json()["totals"]["facts_pending"] == 0
    (trip,) = memory.state["travel"]["trips"]
    assert trip.id == "trip-1" and trip.sources == ["s1-f1", "s2-f1"] and trip.start_date == day
    memory.close()


def test_a_repair_plans_against_the_records_shown_and_refers_to_other_domains():
    facts = [
        "[f1] (said 2023-06-15; happened 2023-06-10) Alice: Alice flew to Berlin.",
        "[f2] (said 2023-06-15) Alice: Alice met Clara at the airport.",
    ]
    first = ChatRequest(
        messages=(
            system(render_prompt("system_json.j2", schema_name="operations")),
            user(
                render_prompt(
                    "structure_ops.j2",
                    domain="travel",
                    user_name="Alice",
                    schema_lines="",
                    collections=[],
                    revisit=[],
                    context_facts=[],
                    facts=facts,
                    related=[
                        (
                            "trip-1",
                            '{"id": "trip-1", "class": "Trip", "destination": "Berlin", "start_date": "2023-06-10",'
                            ' "traveller": "Alice"}',
                        )
                    ],
                    elsewhere=['{"ref": "relationships/person-1", "class": "Person", "name": "Clara"}'],
                )
            ),
        )
    )
    repair = render_prompt(
        "structure_ops_repair.j2",
        applied=0,
        total_applied=0,
        schema_lines="",
        collections=[],
        touched=[],
        touched_more=0,
        retired=[],
        problems=[
            "facts f1, f2 are not addressed yet: cite each in an add, update or retire, or skip it with a reason"
        ],
    )
    request = ChatRequest(messages=(*first.messages, Message("assistant", '{"operations": []}'), user(repair)))
    ops = respond(request).data["operations"]
    # the Berlin trip told again is cited, not added twice; the event refers to Clara in her own domain
    assert {"op": "cite", "id": "trip-1", "sources": ["f1"]} in ops
    (event,) = [op for op in ops if op["op"] == "add"]
    assert event["sources"] == ["f2"] and event["values"]["about"] == {"ref": "relationships/person-1"}
