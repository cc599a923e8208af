"""The operations of the compile protocol, checked and applied to a domain's working copy."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.ops import OP_KINDS, apply_operations
from uac.compile.working_copy import DomainWork, is_managed
from uac.dialect.loader import load_sources

TRIP = {
    "op": "add_class",
    "name": "Trip",
    "doc": "One trip.",
    "fields": [
        {"name": "destination", "type": "str"},
        {"name": "start_date", "type": "date | None", "default": None},
        {"name": "nights", "type": "int | None", "default": None},
    ],
}
STATUS = {"op": "add_class", "name": "TripStatus", "members": ["PLANNED", "DONE", "CANCELLED"]}
BATCH = {"f1", "f2", "f3", "f4", "f5"}


def add_trip(destination, *sources, **values):
    return {
        "op": "add",
        "collection": "trips",
        "class": "Trip",
        "values": {"destination": destination, **values},
        "sources": list(sources),
    }


@pytest.fixture
def work():
    w = DomainWork.empty("travel")
    outcome = apply_operations(
        w, [STATUS, TRIP, add_trip("Lisbon", "f1", start_date="2023-05-07"), add_trip("Rome", "f2")], BATCH
    )
    assert outcome.problems == []
    return w


def loads(work: DomainWork):
    """The rendered files validate and load back to the same records."""
    files = work.output.files()
    return load_sources("travel", files["schema.py"], files["state.py"])


def test_add_class_and_add_give_ids_sources_and_valid_code(work):
    loaded = loads(work)
    trips = loaded.values["trips"]
    assert [t.id for t in trips] == ["trip-1", "trip-2"]
    assert (
        trips[0].destination == "Lisbon" and trips[0].start_date == dt.date(2023, 5, 7) and trips[0].sources == ["f1"]
    )
    assert is_managed(loaded.schema.get("Trip"))
    assert [f.name for f in loaded.schema.get("Trip").fields] == [
        "id",
        "destination",
        "start_date",
        "nights",
        "notes",
        "sources",
    ]
    assert loaded.schema.get("TripStatus").kind == "enum"


def test_update_changes_named_fields_and_adds_sources(work):
    outcome = apply_operations(
        work,
        [{"op": "update", "id": "trip-2", "set": {"nights": "5"}, "sources": ["f3"], "note": "from a photo"}],
        BATCH,
    )
    assert outcome.problems == [] and outcome.touched == {"trip-2"}
    rome = work.find("trip-2")[1]
    assert rome.nights == 5 and rome.sources == ["f2", "f3"] and rome.notes == ["from a photo"]
    assert loads(work).values["trips"][1].nights == 5


def test_retire_removes_the_record_and_reports_it(work):
    outcome = apply_operations(
        work, [{"op": "retire", "id": "trip-1", "reason": "the trip was cancelled", "sources": ["f4"]}], BATCH
    )
    assert outcome.problems == []
    assert work.find("trip-1") is None and [t.id for t in work.values["trips"]] == ["trip-2"]
    (retired,) = outcome.retired
    assert retired["id"] == "trip-1" and retired["cited"] == ["f1"] and "Lisbon" in retired["record"]
    # ids are never reused
    apply_operations(work, [add_trip("Oslo", "f5")], BATCH)
    assert work.values["trips"][-1].id == "trip-3"


def test_skip_records_the_reason(work):
    outcome = apply_operations(work, [{"op": "skip", "facts": ["f4", "f5"], "reason": "small talk"}], BATCH)
    assert outcome.skipped == {"f4": "small talk", "f5": "small talk"} and not outcome.changed


def test_add_field_to_a_class_with_records_needs_a_default(work):
    bad = apply_operations(
        work, [{"op": "add_field", "class": "Trip", "name": "companions", "type": "list[str]"}], BATCH
    )
    assert 'needs a "default"' in bad.problems[0]
    ok = apply_operations(
        work,
        [
            {"op": "add_field", "class": "Trip", "name": "companions", "type": "list[str]", "default": []},
            {"op": "add_field", "class": "Trip", "name": "status", "type": "TripStatus | None", "default": None},
            {"op": "update", "id": "trip-1", "set": {"companions": ["Maya"], "status": "done"}, "sources": ["f3"]},
        ],
        BATCH,
    )
    assert ok.problems == []
    lisbon = loads(work).values["trips"][0]
    assert lisbon.companions == ["Maya"] and lisbon.status.name == "DONE"
    assert loads(work).values["trips"][1].companions == []


def test_valid_operations_are_kept_and_every_problem_is_reported(work):
    operations = [
        add_trip("Oslo", "f3"),
        {"op": "update", "id": "trip-99", "set": {"nights": 2}, "sources": ["f4"]},
        {"op": "update", "id": "trip-1", "set": {"hotel": "Ritz"}, "sources": ["f4"]},
        {"op": "update", "id": "trip-1", "set": {"nights": "many"}, "sources": ["f4"]},
        add_trip("Kyoto", "f77"),
        {"op": "add", "collection": "trips", "values": {}, "sources": ["f5"]},
        {"op": "teleport"},
        "not an object",
        {"op": "skip", "facts": ["f5"], "reason": "a greeting"},
    ]
    outcome = apply_operations(work, operations, BATCH)
    assert len(outcome.applied) == 2 and [t.destination for t in work.values["trips"]] == ["Lisbon", "Rome", "Oslo"]
    text = "\n".join(outcome.problems)
    assert len(outcome.problems) == 7
    assert "operation 2 (update trip-99): no record 'trip-99'" in text
    assert "has no field 'hotel' (fields: destination, start_date, nights)" in text
    assert "nights: expects int | None" in text
    assert "sources f77 are not facts of this batch" in text
    assert "missing required field(s) destination" in text
    assert "unknown op 'teleport'" in text


@pytest.mark.parametrize(
    "operation, message",
    [
        ({"op": "add_class", "name": "Trip", "fields": []}, "already exists"),
        ({"op": "add_class", "name": "trip_log", "fields": []}, "CamelCase"),
        ({"op": "add_class", "name": "Leg", "fields": [{"name": "trip", "type": "Trip"}]}, "records stay flat"),
        ({"op": "add_class", "name": "Leg", "fields": [{"name": "id", "type": "str"}]}, "kept by uac"),
        ({"op": "add_class", "name": "Leg", "fields": [{"name": "x", "type": "os.path"}]}, "type 'os.path'"),
        ({"op": "add_class", "name": "Leg", "fields": [{"name": "class", "type": "str"}]}, "snake_case"),
        (
            {"op": "add_field", "class": "Trip", "name": "destination", "type": "str", "default": ""},
            "already has a field",
        ),
        ({"op": "add_field", "class": "Nope", "name": "x", "type": "str", "default": ""}, "no record class 'Nope'"),
        ({"op": "remove_field", "class": "Trip", "name": "nights"}, "uac never drops data"),
        ({"op": "drop_class", "name": "Trip"}, "uac never drops data"),
        ({"op": "retire", "id": "trip-1"}, '"reason"'),
        ({"op": "skip", "facts": ["f9"], "reason": "x"}, "not in this batch"),
        ({"op": "add", "collection": "stays", "values": {"destination": "x"}, "sources": ["f1"]}, 'needs "class"'),
        (
            {"op": "add", "collection": "trips", "class": "TripStatus", "values": {}, "sources": ["f1"]},
            "holds Trip records",
        ),
        ({"op": "update", "id": "trip-1", "set": {"start_date": "next spring"}, "sources": ["f1"]}, "YYYY-MM-DD"),
    ],
)
def test_rejections_say_what_to_change(work, operation, message):
    outcome = apply_operations(work, [operation], BATCH)
    assert outcome.applied == [] and message in outcome.problems[0]


def test_dates_and_numbers_in_common_forms_are_coerced(work):
    outcome = apply_operations(
        work,
        [
            add_trip("Porto", "f3", start_date="May 6, 2023", nights=3.0),
            add_trip("Riga", "f4", start_date="2023/06/01", nights="4"),
        ],
        BATCH,
    )
    assert outcome.problems == []
    porto, riga = work.values["trips"][-2:]
    assert porto.start_date == dt.date(2023, 5, 6) and porto.nights == 3
    assert riga.start_date == dt.date(2023, 6, 1) and riga.nights == 4


def test_a_view_without_ids_is_adopted(tmp_path):
    """Views written before the protocol (records with sources, no id) get ids."""
    schema = (
        "from dataclasses import dataclass, field\n\n\n@dataclass(frozen=True)\nclass Meal:\n    dish: str\n"
        "    sources: list[str] = field(default_factory=list)\n"
    )
    state = 'from .schema import Meal\n\nmeals: list[Meal] = [Meal(dish="ramen", sources=["a"]), Meal(dish="pho", sources=["b"])]\n'
    work = DomainWork.from_loaded(load_sources("food", schema, state))
    assert [m.id for m in work.values["meals"]] == ["meal-1", "meal-2"]
    assert [f.name for f in work.class_spec("Meal").fields] == ["id", "dish", "notes", "sources"]
    outcome = apply_operations(
        work, [{"op": "update", "id": "meal-2", "set": {"dish": "bun cha"}, "sources": ["c"]}], {"c"}
    )
    assert outcome.problems == [] and work.find("meal-2")[1].dish == "bun cha"


def test_imported_records_are_read_only(tmp_path):
    schema = "from dataclasses import dataclass\n\n\n@dataclass(frozen=True)\nclass Trip:\n    city: str\n"
    state = 'from .schema import Trip\n\ntrips: list[Trip] = [Trip(city="Oslo")]\n'
    work = DomainWork.from_loaded(load_sources("travel", schema, state))
    outcome = apply_operations(
        work,
        [
            {"op": "add", "collection": "trips", "values": {"city": "Rome"}, "sources": ["f1"]},
            {"op": "add_field", "class": "Trip", "name": "nights", "type": "int | None", "default": None},
        ],
        {"f1"},
    )
    assert all("imported records" in p for p in outcome.problems) and len(outcome.problems) == 2
    assert work.values["trips"][0].city == "Oslo" and len(work.values["trips"]) == 1


def test_period_fields_take_the_usual_spellings_and_load_back(work):
    from uac.dates import Period

    outcome = apply_operations(
        work,
        [
            {"op": "add_field", "class": "Trip", "name": "when", "type": "Period | None", "default": None},
            {"op": "update", "id": "trip-1", "set": {"when": "May 2023"}, "sources": ["f3"]},
            {"op": "update", "id": "trip-2", "set": {"when": "2023-06-02/2023-06-08"}, "sources": ["f3"]},
            add_trip("Porto", "f4", when="2023-05-07"),
            add_trip("Oslo", "f4", when="summer 2023"),
            add_trip("Riga", "f5", when="the week before 9 June 2023"),
            add_trip("Nice", "f5", when={"start": "2022", "end": "2023"}),
        ],
        BATCH,
    )
    assert outcome.problems == []
    files = work.output.files()
    assert "from uac.dates import Period" in files["schema.py"] and "when: Period | None = None" in files["schema.py"]
    assert 'when=Period("2023-05")' in files["state.py"]
    trips = {t.destination: t for t in loads(work).values["trips"]}
    assert type(trips["Lisbon"].when) is Period and trips["Lisbon"].when.code == "2023-05"
    assert trips["Rome"].when.render() == "the week before 9 June 2023"
    # an exact day for a Period field is the period of that one day
    assert trips["Porto"].when == dt.date(2023, 5, 7) and trips["Porto"].when.precision == "day"
    assert trips["Oslo"].when.code == "2023-summer" and trips["Riga"].when == trips["Rome"].when
    assert trips["Nice"].when.code == "2022-01-01/2023-12-31"
    # a field declared date stays a date: a month is refused, with the way out
    outcome = apply_operations(
        work, [{"op": "update", "id": "trip-1", "set": {"start_date": "May 2023"}, "sources": ["f1"]}], BATCH
    )
    assert (
        len(outcome.problems) == 1
        and "expects a date" in outcome.problems[0]
        and '"Period | None"' in outcome.problems[0]
    )
    assert {t.destination: t for t in loads(work).values["trips"]}["Lisbon"].start_date == dt.date(2023, 5, 7)


@pytest.mark.parametrize(
    "operation, message",
    [
        (add_trip("Bern", "f1", when="next spring"), "expects a period"),
        (
            {"op": "add_class", "name": "Period", "fields": [{"name": "phase", "type": "str"}]},
            "Period is the field type",
        ),
        (
            {"op": "add_field", "class": "Trip", "name": "span", "type": "Period", "default": "2023"},
            "takes no default but null",
        ),
    ],
)
def test_period_problems_say_what_to_write(work, operation, message):
    apply_operations(
        work, [{"op": "add_field", "class": "Trip", "name": "when", "type": "Period | None", "default": None}], BATCH
    )
    outcome = apply_operations(work, [operation], BATCH)
    assert len(outcome.problems) == 1 and message in outcome.problems[0]


@pytest.mark.parametrize("kind", OP_KINDS)
def test_every_kind_of_operation_reaches_its_handler(kind):
    # an operation with nothing but its kind is refused by its own checks, never by the dispatch
    outcome = apply_operations(DomainWork.empty("travel"), [{"op": kind}], BATCH)
    assert len(outcome.problems) + len(outcome.applied) == 1
    assert not any("unknown op" in problem for problem in outcome.problems)
