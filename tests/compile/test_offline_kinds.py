"""The offline compiler writes kinds of records (here a kind defined by the test:
trips), keeps the rest on a timeline that separates when from when said, and the
result loads back through the view, reads in the STATE text and computes in the sandbox."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

import uac.compile.kinds as kinds
from uac.compile.coverage import fact_coverage
from uac.compile.kinds import Assembled, Kind, Sighting
from uac.compile.offline import EVENT_WITH_ONE_DATE
from uac.dates import Period
from uac.dialect import render
from uac.dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from uac.dialect.types import TypeSpec
from uac.facts.model import Fact
from uac.view import store

OPT_PERIOD = TypeSpec("union", (TypeSpec("period"), TypeSpec("none")))
OPT_DATE = TypeSpec("union", (TypeSpec("date"), TypeSpec("none")))
LIST_STR = TypeSpec("list", (TypeSpec("str"),))
TRIP_STATUS = ClassSpec(
    "TripStatus", "enum", members=(("DONE", "done"), ("PLANNED", "planned")), doc="Whether a trip happened."
)
TRIP = ClassSpec(
    "Trip",
    "dataclass",
    (
        FieldSpec("destination", TypeSpec("str")),
        FieldSpec("status", TypeSpec("class", name="TripStatus")),
        FieldSpec("when", OPT_PERIOD, "value", None),
        FieldSpec("said_on", OPT_DATE, "value", None),
        FieldSpec("companions", LIST_STR, "list"),
        FieldSpec("sources", LIST_STR, "list"),
    ),
    doc="One trip the user took or planned.",
)
TRIP_KIND = Kind("trip", "travel", "trips", TRIP, (TRIP_STATUS,), "Trips taken or planned.")
_TRIP = re.compile(r"\b(?:flew|trip|travel(?:led)?) to ([A-Z][a-z]+)")


def _detect(fact: Fact) -> list[Sighting]:
    match = _TRIP.search(fact.text)
    if not match:
        return []
    status = "PLANNED" if re.search(r"\b(plan|next)\b", fact.text) else "DONE"
    fields = {"destination": match[1], "status": status}
    if "sister" in fact.text:
        fields["companions"] = ["sister"]
    return [Sighting("trip", fact.id, fields, key=match[1])]


def _assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, Fact]) -> list[Assembled]:
    grouped: dict[str, list[Sighting]] = {}
    for sighting in sightings:
        grouped.setdefault(sighting.key or sighting.fact_id, []).append(sighting)
    out = []
    for group in grouped.values():
        ids = [s.fact_id for s in group]
        dated = [facts[i].event_date for i in ids if facts[i].event_date is not None]
        fields = {
            "destination": group[0].fields["destination"],
            "status": "DONE" if any(s.fields["status"] == "DONE" for s in group) else "PLANNED",
            "when": dated[0] if dated else None,
            "said_on": min(facts[i].session_date for i in ids),
            "companions": sorted({c for s in group for c in s.fields.get("companions", [])}),
            "sources": ids,
        }
        out.append(Assembled("trip", fields, ids))
    return out


@pytest.fixture
def trip_kind(monkeypatch):
    monkeypatch.setattr(kinds, "registry", lambda: (TRIP_KIND,))
    monkeypatch.setattr(kinds, "detect", _detect)
    monkeypatch.setattr(kinds, "assemble", _assemble)


S1, S2, S3 = dt.date(2023, 5, 8), dt.date(2023, 6, 9), dt.date(2023, 7, 1)
FACTS = [
    Fact("f1", "Maya flew to Lisbon with a friend", "s1", S1, speaker="Maya", event_date=Period("2023-05")),
    Fact("f2", "Maya plans a trip to Oslo next month", "s1", S1, speaker="Maya", event_date=Period("2023-06")),
    Fact("f3", "Maya had sushi for dinner at a restaurant", "s1", S1, speaker="Maya"),
    Fact("f4", "Maya's trip to Lisbon was lovely", "s2", S2, speaker="Maya"),
    Fact(
        "f5",
        "Maya and her sister flew to Rome for a cousin's wedding",
        "s2",
        S2,
        speaker="Maya",
        event_date=Period("2023-06-02/2023-06-08"),
    ),
    Fact("f6", "Okay, see you later", "s3", None),
    Fact("f7", "Maya booked a hotel for the summer", "s3", S3, speaker="Maya", event_date=Period("2023-summer")),
]


def test_kind_records_are_written_typed_sorted_and_leave_the_timeline(memory, trip_kind):
    report = memory.compile(facts=FACTS, mode="offline")
    data = report.to_json()
    assert data["kinds"] == {
        "trip": {
            "domain": "travel",
            "collection": "trips",
            "class": "Trip",
            "status": "written",
            "facts": 4,
            "records": 3,
            "unclear": 0,
            "unclear_why": {},
            "reason": None,
        }
    }
    assert data["totals"]["facts_covered"] == len(FACTS) and data["totals"]["coverage"] == 1.0
    for key in ("mode", "ok", "domains", "routing", "totals", "usage", "seconds"):
        assert key in data

    folder = memory.project.paths.domains / "travel"
    schema_text, state_text = (folder / "schema.py").read_text(), (folder / "state.py").read_text()
    assert "from uac.dates import Period\n" in schema_text and "class TripStatus(Enum):" in schema_text
    assert "    when: Period | None = None\n" in schema_text and "    said_on: date | None = None\n" in schema_text
    assert 'when=Period("2023-05")' in state_text and 'when=Period("2023-06-02/2023-06-08")' in state_text

    state = memory.state
    trips = state["travel"].trips
    # by when (first day, then last): Lisbon in May, Oslo in June, Rome the week before 9 June
    assert [t.destination for t in trips] == ["Lisbon", "Oslo", "Rome"]
    lisbon, oslo, rome = trips
    assert type(lisbon.when) is Period and lisbon.when.render() == "May 2023" and lisbon.said_on == S1
    assert lisbon.sources == ["f1", "f4"] and lisbon.status.name == "DONE" and oslo.status.name == "PLANNED"
    assert rome.when.render() == "the week before 9 June 2023" and rome.companions == ["sister"]
    assert rome.when < dt.date(2023, 6, 9) and dt.date(2023, 6, 5) in rome.when

    # the facts of a record left the timeline wherever they were routed; the rest stayed
    timeline = {name: [e.sources[0] for e in state[name].events] for name in state}
    assert sorted(s for ids in timeline.values() for s in ids) == ["f3", "f6", "f7"]
    assert timeline["travel"] == ["f7"]
    summer = state["travel"].events[0]
    assert summer.when.render() == "summer 2023" and summer.said_on == S3

    # through the load cache (JSON) as well
    store.load_domain(memory.project, "travel")
    cached = store.load_domain(memory.project, "travel")
    assert cached.from_cache and [t.when for t in cached.values["trips"]] == [t.when for t in trips]
    assert (
        all(type(t.when) is Period for t in cached.values["trips"]) and type(cached.values["events"][0].when) is Period
    )

    view = memory.context.load_view()
    coverage = fact_coverage(memory.project, [f.id for f in FACTS], view)
    assert coverage.not_compiled == 0 and sum(d["recorded"] for d in coverage.domains.values()) == len(FACTS)

    # the same input writes the same bytes
    first = {p.name: p.read_bytes() for p in folder.iterdir()}
    memory.compile(facts=FACTS, mode="offline")
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == first


def test_kind_records_compute_in_the_sandbox(memory, trip_kind):
    memory.compile(facts=FACTS, mode="offline")
    code = (
        "done = [t for t in trips if t.status.value == 'done']\n"
        "result = {'done': sorted((t.destination, t.when.start.month, str(t.when)) for t in done),\n"
        "          'kind': type_name(done[0].when), 'precision': done[0].when.precision,\n"
        "          'june': [t.destination for t in trips if t.when and t.when.overlaps(travel.trips[2].when)],\n"
        "          'before': [t.destination for t in trips if t.when < datetime.date(2023, 6, 1)],\n"
        "          'events': [e.sources[0] for e in travel.events]}"
    )
    run = memory.run("import datetime\n" + code)
    assert run.ok, run.error
    assert run.result == {
        "done": [["Lisbon", 5, "May 2023"], ["Rome", 6, "the week before 9 June 2023"]],
        "kind": "Period",
        "precision": "month",
        "june": ["Oslo", "Rome"],
        "before": ["Lisbon"],
        "events": ["f7"],
    }


def test_the_state_text_says_periods_the_way_people_do(memory, trip_kind):
    from uac.answer.state_view import build_state_channel

    memory.compile(facts=FACTS, mode="offline")
    channel = build_state_channel(
        memory.project.root, "Which trips did Maya take?", loading="monolithic", budget=100_000
    )
    assert 'when=Period("the week before 9 June 2023")' in channel.text and 'when=Period("May 2023")' in channel.text
    assert 'Period("2023-05")' not in channel.text


def test_a_view_from_an_earlier_offline_compile_is_replaced(memory, trip_kind):
    schema = SchemaSpec((EVENT_WITH_ONE_DATE,), "The travel domain: a dated timeline of what the conversations say.")
    event = EVENT_WITH_ONE_DATE
    from uac.dialect.classes import build_classes

    cls = build_classes(schema, "t")["Event"]
    old = [
        cls(
            text="Maya flew to Lisbon with a friend",
            session_id="s1",
            date=dt.date(2023, 5, 8),
            notes=[],
            sources=["f1"],
        )
    ]
    with memory.project.lock("compile"):
        store.write_domain(
            memory.project,
            "travel",
            {
                "__init__.py": render.render_init("The travel domain.", schema, ["events"]),
                "schema.py": render.render_schema(schema),
                "state.py": render.render_state(
                    "State.", schema, [("events", TypeSpec("list", (TypeSpec("class", name=event.name),)), old)]
                ),
            },
        )
    assert memory.state["travel"].events[0].date == dt.date(2023, 5, 8)
    report = memory.compile(facts=FACTS, mode="offline")
    assert report.ok and report.domain("travel").status == "compiled"
    travel = memory.state["travel"]
    assert [t.destination for t in travel.trips] == ["Lisbon", "Oslo", "Rome"]
    assert not hasattr(travel.events[0], "date") and travel.events[0].when.render() == "summer 2023"


def test_a_collection_taken_by_imported_records_keeps_its_facts_on_the_timeline(memory, trip_kind, tmp_path):
    path = tmp_path / "trips.json"
    path.write_text(json.dumps([{"city": "Kyoto", "nights": 4}]))
    memory.import_records(path, domain="travel", collection="trips")
    report = memory.compile(facts=FACTS, mode="offline")
    kind = report.to_json()["kinds"]["trip"]
    assert kind["status"] == "skipped" and kind["records"] == 0 and "Trip" in kind["reason"]
    travel = memory.state["travel"]
    assert [t.city for t in travel.trips] == ["Kyoto"]
    assert {"f1", "f2", "f4", "f5"} <= {
        s for name in memory.state for e in memory.state[name].events for s in e.sources
    }
    assert report.coverage == 1.0


def test_a_record_that_does_not_fit_its_class_leaves_the_kind_on_the_timeline(memory, monkeypatch, trip_kind):
    def bad(kind, sightings, facts):
        return [Assembled("trip", {"destination": 12, "status": "DONE"}, [sightings[0].fact_id])]

    monkeypatch.setattr(kinds, "assemble", bad)
    report = memory.compile(facts=FACTS, mode="offline")
    kind = report.to_json()["kinds"]["trip"]
    assert kind["status"] == "failed" and "destination" in kind["reason"] and kind["facts"] == 0
    assert report.coverage == 1.0 and "trips" not in memory.state["travel"]


def test_an_event_class_written_by_something_else_is_still_refused(memory, trip_kind):
    other = ClassSpec("Event", "dataclass", (FieldSpec("title", TypeSpec("str")),), doc="My events.")
    schema = SchemaSpec((other,), "Mine.")
    with memory.project.lock("compile"):
        store.write_domain(
            memory.project,
            "travel",
            {
                "__init__.py": render.render_init("Mine.", schema, []),
                "schema.py": render.render_schema(schema),
                "state.py": render.render_state("State.", schema, []),
            },
        )
    report = memory.compile(facts=FACTS, mode="offline")
    assert report.domain("travel").status == "failed" and "different class Event" in report.domain("travel").rejection
    assert report.to_json()["kinds"]["trip"]["status"] == "skipped"


def test_a_fact_a_record_does_not_cite_stays_on_the_timeline(memory, monkeypatch, trip_kind):
    def partial(kind, sightings, facts):
        records = _assemble(kind, sightings, facts)
        for record in records:
            record.fields["sources"] = record.fields["sources"][:1]  # cites only its first fact
        return records

    monkeypatch.setattr(kinds, "assemble", partial)
    report = memory.compile(facts=FACTS, mode="offline")
    assert report.to_json()["kinds"]["trip"]["facts"] == 3 and report.coverage == 1.0
    # by when-or-said: summer 2023 (from 1 June) before a fact said on 9 June
    assert [e.sources for e in memory.state["travel"].events] == [["f7"], ["f4"]]


def test_a_kind_the_rules_no_longer_know_goes_and_its_facts_return_to_the_timeline(memory, monkeypatch, trip_kind):
    memory.compile(facts=FACTS, mode="offline")
    assert "trips" in memory.state["travel"]
    monkeypatch.setattr(kinds, "registry", lambda: ())
    report = memory.compile(facts=FACTS, mode="offline")
    assert report.ok and report.coverage == 1.0 and report.to_json()["kinds"] == {}
    travel = memory.state["travel"]
    assert "trips" not in travel and "Trip" not in (memory.project.paths.domains / "travel" / "schema.py").read_text()
    assert sorted(s for name in memory.state for e in memory.state[name].events for s in e.sources) == [
        f.id for f in FACTS
    ]


def test_kinds_of_one_domain_share_an_enum_but_not_a_collection(memory, monkeypatch, trip_kind):
    import dataclasses

    flight = Kind(
        "flight", "travel", "flights", dataclasses.replace(TRIP, name="Flight", doc="One flight."), (TRIP_STATUS,)
    )
    again = Kind("again", "travel", "trips", dataclasses.replace(TRIP, name="Again", doc="Twice."), ())

    def detect(fact):
        return [
            dataclasses.replace(s, kind=k)
            for s in _detect(fact)
            for k in ("trip", "flight", "again")
            if k != "flight" or "flew" in fact.text
        ]

    def assemble(kind, sightings, facts):
        return [Assembled(kind.name, r.fields, r.sources) for r in _assemble(kind, sightings, facts)]

    monkeypatch.setattr(kinds, "registry", lambda: (TRIP_KIND, flight, again))
    monkeypatch.setattr(kinds, "detect", detect)
    monkeypatch.setattr(kinds, "assemble", assemble)
    report = memory.compile(facts=FACTS, mode="offline")
    data = report.to_json()["kinds"]
    assert data["trip"]["records"] == 3 and data["flight"]["records"] == 2
    assert data["again"]["status"] == "skipped" and "collection trips" in data["again"]["reason"]
    schema_text = (memory.project.paths.domains / "travel" / "schema.py").read_text()
    assert schema_text.count("class TripStatus(Enum):") == 1 and "class Again" not in schema_text
    assert [f.destination for f in memory.state["travel"].flights] == ["Lisbon", "Rome"] and report.coverage == 1.0
