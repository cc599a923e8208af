"""Facts reach every record they concern: several domains per fact, the other domains'
records shown read-only, the router shown what each domain holds, and the cost of
finding related records at 10,000 records."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from uac.compile import routing
from uac.compile.ops import apply_operations
from uac.compile.related import CrossIndex, RecordIndex, query_terms, select_related
from uac.compile.working_copy import DomainWork
from uac.facts.model import Fact
from uac.llm import LLMClient, ScriptedProvider

from .helpers import domain_of_prompt, handler_for, prompt_of, route_reply


def fact(ident, text, day=dt.date(2024, 5, 2)):
    return Fact(id=ident, text=text, session_id="S1", session_date=day, speaker="Alice")


def client_for(*replies):
    scripted = ScriptedProvider()
    for reply in replies:
        scripted.enqueue(reply)
    return LLMClient(scripted, sleep=lambda _s: None), scripted


# -- routing -------------------------------------------------------------------------------------


def test_a_route_may_name_several_domains_in_either_form_and_at_most_three():
    facts = [
        fact("f1", "The wedding in Bristol was lovely."),
        fact("f2", "I start at Initech on Monday."),
        fact("f3", "A busy week."),
    ]
    reply = {
        "routes": [
            {"id": "f1", "domains": ["Relationships", "travel"]},
            {"id": "f2", "domain": "work"},
            {"id": "f3", "domains": ["a", "b", "c", "d", "Not A Slug!"]},
        ]
    }
    client, _ = client_for({"json": reply})
    routed = routing.route_with_model(client, facts, {}, max_chars=10_000)
    assert routed.domains_of("f1") == ["relationships", "travel"]
    assert routed.domains_of("f2") == ["work"] and routed.routes["f2"] == "work"
    assert routed.domains_of("f3") == ["a", "b", "c"]
    assert routed.by_model == 3 and routed.by_keywords == 0


def test_a_comma_separated_domains_string_is_read_and_a_missed_fact_falls_back_to_one_domain():
    facts = [fact("f1", "We flew to Bristol for the wedding."), fact("f2", "I booked a flight and a hotel.")]
    client, _ = client_for({"json": {"routes": [{"id": "f1", "domains": "travel, relationships"}]}})
    routed = routing.route_with_model(client, facts, {}, max_chars=10_000)
    assert routed.domains_of("f1") == ["travel", "relationships"]
    assert routed.domains_of("f2") == ["travel"] and routed.by_keywords == 1


def test_a_domain_created_in_the_same_run_is_never_shown_as_new_domain():
    facts = [fact(f"f{i}", f"Fact number {i} about the garden and the tomatoes " + "x" * 300) for i in range(4)]
    client, scripted = client_for(
        *[
            {"json": {"routes": [{"id": f"f{i}", "domain": "garden"}, {"id": f"f{i + 1}", "domain": "garden"}]}}
            for i in (0, 2)
        ]
    )
    routed = routing.route_with_model(client, facts, {"travel": "Trips. Holds trips (2 × Trip)"}, max_chars=900)
    assert len(routed.calls) == 2 and set(routed.routes.values()) == {"garden"}
    second = prompt_of(scripted.requests[1])
    assert "- garden: created in this compile; 2 fact(s) so far" in second
    assert "- travel: Trips. Holds trips (2 × Trip)" in second
    assert ": new domain" not in second


def test_the_router_is_shown_each_domain_s_description_and_collections(scripted_memory, scripted):
    scripted.handler = handler_for(lambda _i: "travel")
    scripted_memory.compile(facts=[fact("f1", "Alice flew to Lisbon on 2 May 2024.")])
    scripted.requests.clear()
    scripted_memory.compile(
        facts=[fact("f1", "Alice flew to Lisbon on 2 May 2024."), fact("f2", "Alice flew to Oslo.")]
    )
    route_prompt = prompt_of(next(r for r in scripted.requests if "Route each fact" in prompt_of(r)))
    assert "- travel: The travel domain of this user's memory. Holds trips (1 × Trip)" in route_prompt


# -- several domains per fact: job assembly and the ledger -----------------------------------------


def two_domain_handler(skip_in=None):
    """Routes f1 to travel and relationships; answers with the rule model, except that the
    domain ``skip_in`` skips every fact."""
    base = handler_for(lambda _i: "travel")

    def handler(request):
        prompt = prompt_of(request)
        if "Route each fact" in prompt:
            reply = route_reply(prompt, lambda _i: "travel")
            for item in reply["routes"]:
                if item["id"] == "f1":
                    item["domains"] = ["travel", "relationships"]
                    del item["domain"]
            return {"json": reply}
        if domain_of_prompt(prompt) == skip_in:
            new = prompt.split("## NEW facts", 1)[1].split("## What to answer", 1)[0]
            ids = [line[1:].split("]", 1)[0] for line in new.splitlines() if line.startswith("[")]
            return {"json": {"operations": [{"op": "skip", "facts": ids, "reason": "nothing for this domain"}]}}
        return base(request)

    return handler


def test_a_fact_of_two_domains_is_compiled_in_both_and_counted_once(scripted_memory, scripted):
    scripted.handler = two_domain_handler()
    facts = [fact("f1", "Alice flew to Bristol for Tom's wedding."), fact("f2", "Alice flew to Oslo.")]
    report = scripted_memory.compile(facts=facts)
    travel, relationships = report.domain("travel"), report.domain("relationships")
    assert (travel.facts_new, relationships.facts_new) == (2, 1)
    assert {
        s for d in ("travel", "relationships") for v in scripted_memory.state[d].values() for r in v for s in r.sources
    } == {"f1", "f2"}
    assert report.facts_covered == 2 and report.coverage == 1.0
    totals = report.to_json()["totals"]  # each fact once, not once per domain it went to
    assert (totals["facts_recorded"], totals["facts_considered"], totals["facts_pending"]) == (2, 0, 0)
    scripted.requests.clear()
    again = scripted_memory.compile(facts=facts)
    assert scripted.requests == [] and again.facts_covered == 2


def test_recorded_in_one_domain_and_skipped_in_the_other_is_recorded_and_settled(scripted_memory, scripted):
    scripted.handler = two_domain_handler(skip_in="relationships")
    facts = [fact("f1", "Alice flew to Bristol for Tom's wedding.")]
    report = scripted_memory.compile(facts=facts)
    assert report.domain("relationships").facts_considered == 1 and report.domain("travel").facts_recorded == 1
    assert report.facts_covered == 1 and report.coverage == 1.0
    totals = report.to_json()["totals"]  # recorded in one domain: recorded, not also considered
    assert (totals["facts_recorded"], totals["facts_considered"]) == (1, 0)
    scripted.requests.clear()
    assert scripted_memory.compile(facts=facts).facts_covered == 1 and scripted.requests == []


def test_a_fact_still_pending_in_one_of_its_domains_goes_back_to_that_domain(scripted_memory, scripted):
    scripted.handler = handler_for(failing_domains=("relationships",))
    base = scripted.handler

    def handler(request):
        if "Route each fact" in prompt_of(request):
            return {"json": {"routes": [{"id": "f1", "domains": ["travel", "relationships"]}]}}
        return base(request)

    scripted.handler = handler
    facts = [fact("f1", "Alice flew to Bristol for Tom's wedding.")]
    first = scripted_memory.compile(facts=facts)
    assert first.domain("relationships").status == "failed" and first.domain("relationships").facts_pending == 1
    scripted.handler = handler_for()  # the endpoint works again; the fact is recorded in travel already
    scripted.requests.clear()
    second = scripted_memory.compile(facts=facts)
    prompts = [prompt_of(r) for r in scripted.requests]
    assert not any("Route each fact" in p for p in prompts)  # not routed again: sent where it is pending
    assert [domain_of_prompt(p) for p in prompts] == ["relationships"]
    assert second.domain("relationships").facts_pending == 0 and second.domain("relationships").facts_recorded == 1


# -- records of other domains ------------------------------------------------------------------------


def domain_with(name, cls, collection, rows):
    work = DomainWork.empty(name)
    fields = [{"name": k, "type": "str"} for k in rows[0]]
    ops = [{"op": "add_class", "name": cls, "fields": fields}]
    ops += [{"op": "add", "collection": collection, "class": cls, "values": row, "sources": ["f0"]} for row in rows]
    assert not apply_operations(work, ops, {"f0"}).problems
    return work


def test_the_other_domains_records_are_found_by_names_and_ids_within_the_budget():
    travel = domain_with("travel", "Trip", "trips", [{"destination": d} for d in ("Bristol", "Oslo", "Lima")])
    people = domain_with("relationships", "Person", "people", [{"name": n} for n in ("Tom", "Ana")])
    cross = CrossIndex({"travel": travel, "relationships": people})
    shown = cross.select(["The wedding in Bristol was lovely; Tom danced."], exclude="relationships", budget=1_000)
    assert [i for i, _ in shown] == ["travel/trip-1"]
    assert shown[0][1].startswith('{"ref": "travel/trip-1", "class": "Trip", "destination": "Bristol"')
    named = cross.select(["see relationships/person-2 and trip-3"], exclude="work", budget=1_000)
    assert [i for i, _ in named][:2] == ["relationships/person-2", "travel/trip-3"]
    assert (
        cross.select(["Bristol Oslo Lima Tom Ana"], exclude="x", budget=60)
        == cross.select(["Bristol Oslo Lima Tom Ana"], exclude="x", budget=60)[:1]
    )
    assert sum(len(line) + 1 for _, line in cross.select(["Bristol Oslo Lima Tom Ana"], exclude="x", budget=120)) <= 120


def test_a_name_weighs_more_than_a_plain_word_and_a_month_meets_dated_records():
    # the date counts by its month, not by its year and day numbers
    assert query_terms(["the wedding in Bristol on 2024-06-15"]) == {"wed": 1.0, "bristol": 2.0, "@2024-06": 2.0}
    assert query_terms(["a $640 flight on Friday 15 June 2024"]) == {
        "640": 1.0,
        "flight": 1.0,
        "friday": 1.0,
        "jun": 1.0,
        "@2024-06": 2.0,
    }
    work = DomainWork.empty("travel")
    ops = [
        {
            "op": "add_class",
            "name": "Trip",
            "fields": [
                {"name": "destination", "type": "str"},
                {"name": "when", "type": "Period | None", "default": None},
            ],
        },
        {"op": "add", "collection": "trips", "class": "Trip", "values": {"destination": "Bristol"}, "sources": ["f0"]},
        {
            "op": "add",
            "collection": "trips",
            "class": "Trip",
            "values": {"destination": "Lima", "when": "2024-06"},
            "sources": ["f0"],
        },
        {
            "op": "add",
            "collection": "trips",
            "class": "Trip",
            "values": {"destination": "Oslo", "when": "2023-01"},
            "sources": ["f0"],
        },
    ]
    assert not apply_operations(work, ops, {"f0"}).problems
    ranked = RecordIndex(work).rank(["Back from the trip on 2024-06-15"])
    assert ranked == ["trip-2"]
    # a record id the facts name is shown even when it shares no word with them
    assert [i for i, _ in select_related(work, RecordIndex(work), ["as I said about trip-3"], budget=1_000)][
        0
    ] == "trip-3"


def test_the_batch_prompt_shows_other_domains_records_read_only_within_the_related_budget(scripted_memory, scripted):
    scripted.handler = handler_for(lambda i: "travel" if i == "f1" else "relationships")
    scripted_memory.compile(facts=[fact("f1", "Alice flew to Bristol on 14 June 2024.")])
    scripted.requests.clear()
    scripted_memory.compile(
        facts=[fact("f1", "Alice flew to Bristol on 14 June 2024."), fact("f2", "Tom's wedding in Bristol was lovely.")]
    )
    prompt = next(prompt_of(r) for r in scripted.requests if domain_of_prompt(prompt_of(r)) == "relationships")
    section = prompt.split("Records of other domains", 1)[1].split("## NEW facts", 1)[0]
    assert '{"ref": "travel/trip-1", "class": "Trip", "destination": "Bristol"' in section
    assert 'e.g. {"ref": "travel/trip-1"}' in section  # the example is a record shown, of another domain
    limit = scripted_memory.project.config.compile.related_chars
    lines = [line for line in section.splitlines()[1:] if line.strip()]
    assert sum(len(line) + 1 for line in lines) <= limit // 3


@pytest.mark.slow
def test_finding_related_records_at_10000_records_costs_milliseconds():
    places = [f"Place{i}" for i in range(10_000)]
    work = domain_with(
        "travel",
        "Trip",
        "trips",
        [{"destination": p, "note": f"with friend{i % 300} in month {i % 12}"} for i, p in enumerate(places)],
    )
    started = time.perf_counter()
    cross = CrossIndex({"travel": work})
    assert cross._indexes == {}  # built on the first batch that asks, not before
    assert len(cross.indexes["travel"].terms) == 10_000
    built = time.perf_counter() - started
    texts = [f"Back from Place{i * 37} with friend{i} in month 3" for i in range(20)]
    started = time.perf_counter()
    for _ in range(10):
        shown = cross.select(texts, exclude="relationships", budget=4_000)
    per_batch = (time.perf_counter() - started) / 10
    assert shown and shown[0][0].startswith("travel/trip-")
    # measured on a shared, busy 2-core machine: 0.6-1 s to build once per compile, 5-20 ms per batch
    assert built < 10 and per_batch < 0.25, (built, per_batch)


# -- references and descriptions in operations ---------------------------------------------------------


def test_a_reference_must_name_an_existing_record_and_no_cycle():
    people = domain_with("relationships", "Person", "people", [{"name": "Tom"}])
    runs = DomainWork.empty("running")
    runs.refs = CrossIndex({"relationships": people})
    outcome = apply_operations(
        runs,
        [
            {
                "op": "add_class",
                "name": "Run",
                "fields": [
                    {"name": "distance", "type": "str"},
                    {"name": "partner", "type": "Ref | None", "default": None},
                ],
            },
            {
                "op": "add",
                "collection": "runs",
                "class": "Run",
                "values": {"distance": "10k", "partner": {"ref": "relationships/person-1"}},
                "sources": ["f1"],
            },
            {
                "op": "add",
                "collection": "runs",
                "values": {"distance": "5k", "partner": {"ref": "relationships/person-7"}},
                "sources": ["f1"],
            },
            {
                "op": "add",
                "collection": "runs",
                "values": {"distance": "5k", "partner": {"id": "person-1"}},
                "sources": ["f1"],
            },
            {"op": "add", "collection": "runs", "values": {"distance": "3k", "partner": "run-1"}, "sources": ["f1"]},
            {"op": "update", "id": "run-1", "set": {"partner": {"ref": "running/run-2"}}, "sources": ["f1"]},
            {"op": "update", "id": "run-1", "set": {"partner": {"ref": "running/run-1"}}, "sources": ["f1"]},
        ],
        {"f1"},
    )
    assert len(outcome.applied) == 3 and len(outcome.problems) == 4
    assert "relationships/person-7 is not a record" in outcome.problems[0]
    assert 'a reference is {"ref": "<domain>/<record id>"}' in outcome.problems[1]
    assert "leads back to it" in outcome.problems[2] and "leads back to it" in outcome.problems[3]
    assert [r.partner.code for _, _, r in runs.iter_records()] == ["relationships/person-1", "running/run-1"]


def test_a_cycle_through_another_domain_is_refused():
    people = DomainWork.empty("relationships")
    people.refs = CrossIndex({})
    assert not apply_operations(
        people,
        [
            {
                "op": "add_class",
                "name": "Person",
                "fields": [
                    {"name": "name", "type": "str"},
                    {"name": "runs_with", "type": "Ref | None", "default": None},
                ],
            },
            {"op": "add", "collection": "people", "class": "Person", "values": {"name": "Tom"}, "sources": ["f1"]},
        ],
        {"f1"},
    ).problems
    runs = DomainWork.empty("running")
    runs.refs = CrossIndex({"relationships": people})
    assert not apply_operations(
        runs,
        [
            {"op": "add_class", "name": "Run", "fields": [{"name": "partner", "type": "Ref | None", "default": None}]},
            {
                "op": "add",
                "collection": "runs",
                "class": "Run",
                "values": {"partner": {"ref": "relationships/person-1"}},
                "sources": ["f1"],
            },
        ],
        {"f1"},
    ).problems
    people.refs = CrossIndex({"running": runs})
    outcome = apply_operations(
        people,
        [{"op": "update", "id": "person-1", "set": {"runs_with": {"ref": "running/run-1"}}, "sources": ["f1"]}],
        {"f1"},
    )
    assert outcome.problems and "relationships/person-1 -> ... -> relationships/person-1" in outcome.problems[0]


def test_a_description_is_stored_as_the_schema_docstring_and_bounded():
    work = DomainWork.empty("travel")
    outcome = apply_operations(
        work,
        [
            {"op": "describe", "doc": "Trips the user took or planned,\n with dates."},
            {"op": "describe", "doc": ""},
            {"op": "describe"},
            {"op": "describe", "doc": "word " * 70},
        ],
        set(),
    )
    assert len(outcome.applied) == 1 and len(outcome.problems) == 3
    assert '"doc" must describe in one line' in outcome.problems[0] and '"doc" must describe' in outcome.problems[1]
    assert '"doc" is 349 characters' in outcome.problems[2] and "at most 300" in outcome.problems[2]
    assert work.doc == "Trips the user took or planned, with dates."
    assert work.output.files()["schema.py"].startswith('"""Trips the user took or planned, with dates."""')


# -- the rule model -------------------------------------------------------------------------------


def test_the_protocol_model_routes_to_several_domains_and_refers_to_records_elsewhere(scripted_memory, scripted):
    from .helpers import protocol_handler

    scripted.handler = protocol_handler
    first = [fact("f1", "Alice flew to Bristol for her cousin's wedding.")]
    report = scripted_memory.compile(facts=first)
    assert report.domain("travel").facts_recorded == 1 and report.domain("relationships").facts_recorded == 1
    (trip,) = scripted_memory.state["travel"].trips
    (event,) = scripted_memory.state["relationships"].events  # its side of it: not a second trip
    assert trip.destination == "Bristol" and "trips" not in scripted_memory.state["relationships"]
    scripted_memory.compile(
        facts=[*first, fact("f2", "The wedding in Bristol was lovely, said Alice.", dt.date(2024, 6, 20))]
    )
    events = scripted_memory.state["relationships"].events
    assert events[-1].sources == ["f2"] and events[-1].about.code == "travel/trip-1"
    assert scripted_memory.state.resolve(events[-1].about).destination == "Bristol"


def test_a_domain_compiled_later_in_the_same_compile_sees_what_the_others_made(project_dir):
    """The first compile of a history: no domain has records when it begins, and the
    domains compiled after the first are shown its records (one at a time here, so the
    order is known: holidays before relationships)."""
    from uac.memory import UserMemory

    provider = ScriptedProvider(handler=handler_for(lambda i: "holidays" if i == "f1" else "relationships"))
    with UserMemory.create(
        project_dir, user_name="Alice", llm=LLMClient(provider, sleep=lambda _s: None, concurrency=1)
    ) as memory:
        memory.compile(
            facts=[
                fact("f1", "Alice flew to Bristol on 14 June 2024."),
                fact("f2", "Tom's wedding in Bristol was lovely."),
            ]
        )
    prompt = next(prompt_of(r) for r in provider.requests if domain_of_prompt(prompt_of(r)) == "relationships")
    section = prompt.split("Records of other domains", 1)[1].split("## NEW facts", 1)[0]
    assert '{"ref": "holidays/trip-1", "class": "Trip", "destination": "Bristol"' in section


def test_the_user_s_own_name_shows_no_record_of_another_domain_or_its_own():
    """Nearly every fact and record names the user: "Alice ran the parkrun" shares "Alice" with
    Alice's thesis, which says nothing of it; before, the thesis was shown beside parkrun facts."""
    thesis = {"title": "Coastal erosion models", "person": "Alice", "note": "Alice finished her thesis in May"}
    bike = {"item": "road bike", "person": "Alice", "note": "Alice bought a road bike"}
    cross = CrossIndex(
        {
            "education": domain_with("education", "Thesis", "theses", [thesis]),
            "shopping": domain_with("shopping", "Purchase", "purchases", [bike]),
        }
    )
    ran = ["Alice ran the parkrun in 24 minutes."]
    assert len(cross.select(ran, exclude="health", budget=1_000)) == 2  # what the name alone finds
    assert cross.select(ran, exclude="health", budget=1_000, ignore=["Alice"]) == []
    on_bike = ["Alice ran the parkrun on her new bike in 24 minutes."]
    shown = cross.select(on_bike, exclude="health", budget=1_000, ignore=["Alice"])
    assert [ref for ref, _ in shown] == ["shopping/purchase-1"]
    runs = domain_with(
        "health", "Run", "runs", [{"event": "parkrun", "person": "Alice"}, {"event": "10k", "person": "Alice"}]
    )
    own = select_related(runs, RecordIndex(runs), ["Alice ran a half marathon."], budget=1_000, ignore=["Alice"])
    assert own == []
    assert [i for i, _ in select_related(runs, RecordIndex(runs), ran, budget=1_000, ignore=["Alice"])] == ["run-1"]


def test_a_year_or_a_day_number_alone_shows_no_record_and_a_worded_date_meets_its_month():
    """The Lisbon facts said "(on 18 April 2025)": the year matched a February dinner's date in a
    one-record domain, and the dinner was shown beside them. A year or day number is no term;
    "18 April 2025" meets records dated in April 2025, as "2025-04-18" does."""
    work = DomainWork.empty("food")
    ops = [
        {
            "op": "add_class",
            "name": "Meal",
            "fields": [{"name": "venue", "type": "str"}, {"name": "day", "type": "date"}],
        },
        {
            "op": "add",
            "collection": "meals",
            "class": "Meal",
            "values": {"venue": "Sakura Tei", "day": "2025-02-28"},
            "sources": ["f0"],
        },
        {
            "op": "add",
            "collection": "meals",
            "class": "Meal",
            "values": {"venue": "Tasca", "day": "2025-04-16"},
            "sources": ["f0"],
        },
    ]
    assert not apply_operations(work, ops, {"f0"}).problems
    cross = CrossIndex({"food": work})
    booked = ["Alice booked flights to Lisbon for 14 to 18 April (on 18 April 2025), $640 return."]
    shown = [ref for ref, _ in cross.select(booked, exclude="travel", budget=1_000, ignore=["Alice"])]
    assert shown == ["food/meal-2"]
    assert (
        cross.select(["Alice said: back on the 28th, in 2025."], exclude="travel", budget=1_000, ignore=["Alice"]) == []
    )


def test_a_compile_does_not_show_another_domain_s_record_for_the_user_s_name_alone(project_dir):
    from uac.memory import UserMemory

    domains = {"f1": "education", "f2": "health"}
    provider = ScriptedProvider(handler=handler_for(lambda i: domains[i]))
    with UserMemory.create(
        project_dir, user_name="Alice", llm=LLMClient(provider, sleep=lambda _s: None, concurrency=1)
    ) as memory:
        memory.compile(
            facts=[
                fact("f1", "Alice finished her thesis on coastal erosion."),
                fact("f2", "Alice ran the parkrun in 24 minutes."),
            ]
        )
    prompt = next(prompt_of(r) for r in provider.requests if domain_of_prompt(prompt_of(r)) == "health")
    assert "education/" not in prompt


def test_a_published_batch_is_found_and_a_reset_forgets_it():
    cross = CrossIndex({})
    assert cross.select(["Bristol"], exclude="relationships", budget=1_000) == []
    work = domain_with("travel", "Trip", "trips", [{"destination": "Bristol", "note": "a wedding"}])
    (ident,) = [r.id for _, _, r in work.iter_records()]
    cross.select(["Bristol"], exclude="relationships", budget=1_000)  # builds the (empty) indexes
    cross.publish("travel", work, [ident])
    assert [ref for ref, _ in cross.select(["Bristol"], exclude="relationships", budget=1_000)] == [f"travel/{ident}"]
    assert cross.exists("travel", ident)
    cross.reset("travel", DomainWork.empty("travel"))
    assert cross.select(["Bristol"], exclude="relationships", budget=1_000) == [] and not cross.exists("travel", ident)
