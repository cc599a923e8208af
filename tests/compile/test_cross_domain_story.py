"""A record whose deciding fact arrives sessions later, in another domain.

Session 1 plans a trip to Bristol for a cousin's wedding; session 2 says "the wedding in
Bristol was lovely" and that the user ran with that cousin.  The scripted model answers the
way models do -- prose around the JSON, fences, ``<think>``, the old single-domain routing
form -- and makes the mistakes models make: a reference to a record that does not exist, a
cycle of references, an empty and a huge domain description.  The trip must end done with
both facts in its sources, the bad items be refused with their message while the rest of
each batch is kept, and no record be lost.
"""

from __future__ import annotations

import datetime as dt
import json

from uac.facts.model import Fact
from uac.refs import Ref

from .helpers import domain_of_prompt, prompt_of

S1, S2 = dt.date(2024, 5, 2), dt.date(2024, 6, 20)
FACTS = [
    Fact(
        id="f1",
        text="Alice is planning a trip to Bristol from 14 to 17 June 2024 for Tom's wedding.",
        session_id="S1",
        session_date=S1,
        speaker="Alice",
    ),
    Fact(id="f2", text="Tom is Alice's cousin.", session_id="S1", session_date=S1, speaker="Alice"),
    Fact(id="f3", text="The wedding in Bristol was lovely.", session_id="S2", session_date=S2, speaker="Alice"),
    Fact(
        id="f4",
        text="Alice ran a 10k with Tom on Sunday and another one the week after.",
        session_id="S2",
        session_date=S2,
        speaker="Alice",
    ),
]


def fenced(value, before="Here are the operations:", after="Let me know if anything is unclear."):
    return {"content": f"{before}\n```json\n{json.dumps(value, indent=2)}\n```\n{after}"}


def thinking(value):
    return {"content": f"<think>Which records do these facts touch? The trip, the cousin.</think>\n{json.dumps(value)}"}


def route(prompt):
    if "[f3]" in prompt:
        # the deciding fact: the wedding is the trip's too
        return thinking(
            {"routes": [{"id": "f3", "domains": ["relationships", "travel"]}, {"id": "f4", "domain": "running"}]}
        )
    return fenced(
        {"routes": [{"id": "f1", "domains": ["travel", "relationships"]}, {"id": "f2", "domain": "relationships"}]},
        before="Sure! Routing the facts:",
    )


def first_reply(domain, prompt):
    if domain == "travel" and "[f1]" in prompt:
        return fenced(
            {
                "operations": [
                    {"op": "describe", "doc": "Trips Alice took or planned, with when and how they went."},
                    {"op": "add_class", "name": "TripStatus", "members": ["PLANNED", "DONE", "CANCELLED"]},
                    {
                        "op": "add_class",
                        "name": "Trip",
                        "doc": "One trip.",
                        "fields": [
                            {"name": "destination", "type": "str"},
                            {"name": "when", "type": "Period | None", "default": None},
                            {"name": "status", "type": "TripStatus | None", "default": None},
                        ],
                    },
                    {
                        "op": "add",
                        "collection": "trips",
                        "class": "Trip",
                        "values": {"destination": "Bristol", "when": "2024-06-14/2024-06-17", "status": "PLANNED"},
                        "sources": ["f1"],
                    },
                ]
            }
        )
    if domain == "relationships" and "[f1]" in prompt:
        return thinking(
            {
                "operations": [
                    {"op": "describe", "doc": "   "},
                    {
                        "op": "add_class",
                        "name": "Person",
                        "fields": [
                            {"name": "name", "type": "str"},
                            {"name": "relation", "type": "str | None", "default": None},
                        ],
                    },
                    {
                        "op": "add",
                        "collection": "people",
                        "class": "Person",
                        "values": {"name": "Tom", "relation": "cousin"},
                        "sources": ["f1", "f2"],
                    },
                ]
            }
        )
    if domain == "travel" and "[f3]" in prompt:
        return {
            "json": {"operations": [{"op": "update", "id": "trip-1", "set": {"status": "DONE"}, "sources": ["f3"]}]}
        }
    if domain == "relationships" and "[f3]" in prompt:
        return fenced(
            {
                "operations": [
                    {
                        "op": "add_class",
                        "name": "Event",
                        "fields": [
                            {"name": "text", "type": "str"},
                            {"name": "trip", "type": "Ref | None", "default": None},
                        ],
                    },
                    {
                        "op": "add",
                        "collection": "events",
                        "class": "Event",
                        "values": {"text": "Tom's wedding in Bristol", "trip": {"ref": "travel/trip-1"}},
                        "sources": ["f3"],
                    },
                    {
                        "op": "add",
                        "collection": "events",
                        "values": {"text": "the wedding party", "trip": {"ref": "travel/trip-9"}},
                        "sources": ["f3"],
                    },
                ]
            }
        )
    if domain == "running":
        return fenced(
            {
                "operations": [
                    {"op": "describe", "doc": "Runs " * 90},
                    {
                        "op": "add_class",
                        "name": "Run",
                        "fields": [
                            {"name": "distance", "type": "str"},
                            {"name": "partner", "type": "Ref | None", "default": None},
                            {"name": "follows", "type": "Ref | None", "default": None},
                        ],
                    },
                    {
                        "op": "add",
                        "collection": "runs",
                        "class": "Run",
                        "values": {"distance": "10k", "partner": "relationships/person-1"},
                        "sources": ["f4"],
                    },
                    {
                        "op": "add",
                        "collection": "runs",
                        "values": {
                            "distance": "10k",
                            "partner": "relationships/person-1",
                            "follows": {"ref": "running/run-1"},
                        },
                        "sources": ["f4"],
                    },
                    {"op": "update", "id": "run-1", "set": {"follows": {"ref": "running/run-2"}}, "sources": ["f4"]},
                ]
            }
        )
    raise AssertionError(f"unexpected prompt for {domain}")


def repair_reply(domain):
    if domain == "relationships":
        return {"json": {"operations": [{"op": "describe", "doc": "People in Alice's life and what they shared."}]}}
    if domain == "running":
        return fenced({"operations": [{"op": "describe", "doc": "Alice's runs, with whom and in what order."}]})
    return {"json": {"operations": []}}


def handler(request):
    prompt = prompt_of(request)
    if "Route each fact" in prompt:
        return route(prompt)
    domain = domain_of_prompt(prompt)
    if len(request.messages) > 2:
        return repair_reply(domain)
    return first_reply(domain, request.messages[1].content)


def test_the_deciding_fact_of_another_domain_reaches_the_record(scripted_memory, scripted):
    scripted.handler = handler
    first = scripted_memory.compile(facts=FACTS[:2])
    assert first.ok and first.facts_covered == 2
    travel_prompt = next(prompt_of(r) for r in scripted.requests if domain_of_prompt(prompt_of(r)) == "travel")
    # the fact of two domains says so, and which is its main one
    assert "f1: also relationships (this domain is its main one)" in travel_prompt
    scripted.requests.clear()

    second = scripted_memory.compile(facts=FACTS)
    assert second.ok and second.facts_covered == 4
    state = scripted_memory.state
    (trip,) = state["travel"].trips
    assert trip.status.name == "DONE" and trip.sources == ["f1", "f3"] and trip.when.code == "2024-06-14/2024-06-17"

    # the router saw what each domain holds, never "new domain"
    route_prompt = prompt_of(next(r for r in scripted.requests if "Route each fact" in prompt_of(r)))
    assert "- travel: Trips Alice took or planned, with when and how they went. Holds trips (1 × Trip)" in route_prompt
    assert ": new domain" not in route_prompt

    # the relationships batch saw the trip as another domain's record, read-only, by id
    relationships = next(prompt_of(r) for r in scripted.requests if domain_of_prompt(prompt_of(r)) == "relationships")
    other = relationships.split("Records of other domains", 1)[1].split("##", 1)[0]
    assert '{"ref": "travel/trip-1", "class": "Trip", "destination": "Bristol"' in other

    (event,) = state["relationships"].events
    assert (
        event.trip == Ref("travel/trip-1") and state.resolve(event.trip) == trip and event.trip.resolve(state) == trip
    )
    (person,) = state["relationships"].people
    run_1, run_2 = state["running"].runs
    assert run_1.partner == Ref("relationships/person-1") and state.resolve(run_1.partner) == person
    assert run_2.follows == Ref("running/run-1") and run_1.follows is None  # the cycle was refused

    # every bad item was refused in the repair with its message; the rest of the batch stayed
    repairs = [r.messages[-1].content for r in scripted.requests if len(r.messages) > 2]
    text = "\n".join(repairs)
    assert "travel/trip-9 is not a record" in text
    assert "leads back to it" in text and "must not form a cycle" in text
    assert '"doc" is 449 characters' in text

    # the descriptions the model wrote are the schema docstrings
    schema = (scripted_memory.project.paths.domains / "relationships" / "schema.py").read_text("utf-8")
    assert schema.startswith('"""People in Alice\'s life and what they shared."""')
    running_schema = (scripted_memory.project.paths.domains / "running" / "schema.py").read_text("utf-8")
    assert running_schema.startswith('"""Alice\'s runs, with whom and in what order."""')

    # no record lost; each fact counted once
    counts = {d: sum(len(v) for v in state[d].values() if isinstance(v, tuple)) for d in state}
    assert counts == {"relationships": 2, "running": 2, "travel": 1}
    totals = second.to_json()["totals"]
    assert totals["facts_covered"] == 4 and totals["coverage"] == 1.0


def test_the_empty_description_is_refused_in_the_repair(scripted_memory, scripted):
    scripted.handler = handler
    scripted_memory.compile(facts=FACTS[:2])
    repair = next(r.messages[-1].content for r in scripted.requests if len(r.messages) > 2)
    assert "operation 1 (describe)" in repair and '"doc" must describe in one line' in repair
    assert "operation 3" not in repair  # the person was added beside it
    assert [p.name for p in scripted_memory.state["relationships"].people] == ["Tom"]
