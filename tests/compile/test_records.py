"""``import-records``: deterministic compilation of JSON / JSONL / CSV records."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json

import black
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac.errors import InputError, InvalidName, UserError
from uac.memory import UserMemory
from uac.records.importer import field_names, record_type_name

TRIPS = [
    {
        "destination": "Lisbon",
        "start": "2023-05-07",
        "nights": 4,
        "cost": 812.5,
        "tags": ["work"],
        "booked": "2023-04-01T09:30:00",
    },
    {"destination": "Kyoto", "start": "2024-01-02", "nights": 7, "cost": 2100, "tags": [], "companion": "Bob"},
]


def test_json_import_types_order_and_sources(memory, tmp_path):
    path = tmp_path / "trips.json"
    path.write_text(json.dumps(TRIPS))
    report = memory.import_records(path, domain="travel", collection="trips")
    assert report.record_type == "Trip" and report.records_added == 2 and not report.appended
    types = {f["name"]: f["type"] for f in report.fields}
    assert types == {
        "destination": "str",
        "start": "date",
        "nights": "int",
        "cost": "float",
        "tags": "list[str]",
        "booked": "datetime | None",
        "companion": "str | None",
        "notes": "list[str]",
        "sources": "list[str]",
    }
    trips = memory.state["travel"].trips
    assert [t.destination for t in trips] == ["Lisbon", "Kyoto"]
    assert trips[0].start == dt.date(2023, 5, 7) and trips[0].booked == dt.datetime(2023, 4, 1, 9, 30)
    assert trips[1].cost == 2100.0 and type(trips[1].cost) is float
    assert trips[0].companion is None and trips[1].companion == "Bob"
    assert [t.sources for t in trips] == [["record:trips.json#0"], ["record:trips.json#1"]]
    manifest = memory.project.paths.manifest.read_text()
    assert "`travel`" in manifest and "trips (2 × Trip)" in manifest
    for name in ("schema.py", "state.py", "__init__.py"):
        text = (memory.project.paths.domains / "travel" / name).read_text()
        assert black.format_str(text, mode=black.Mode()) == text


def test_load_state_without_the_cache_writes_nothing(memory, tmp_path):
    path = tmp_path / "trips.json"
    path.write_text(json.dumps(TRIPS))
    memory.import_records(path, domain="travel", collection="trips")
    memory.export(tmp_path / "copy")  # the files without .uac/, so without a load cache
    copy = UserMemory.open(tmp_path / "copy")

    def derived() -> dict[str, bytes]:
        internal = copy.root / ".uac"
        return {str(p.relative_to(internal)): p.read_bytes() for p in internal.rglob("*") if p.is_file()}

    before = derived()
    fresh = copy.load_state(cache=False)
    assert derived() == before
    # each load builds its own record classes: compare the records' values
    assert [repr(t) for t in fresh["travel"].trips] == [repr(t) for t in memory.state["travel"].trips]
    assert [repr(t) for t in copy.state["travel"].trips] == [repr(t) for t in fresh["travel"].trips]
    assert derived() != before  # the cached path writes its cache


def test_import_is_deterministic(tmp_path):
    outputs = []
    for attempt in range(2):
        memory = UserMemory.create(tmp_path / f"p{attempt}", user_name="Alice")
        path = tmp_path / "trips.json"
        path.write_text(json.dumps(TRIPS))
        memory.import_records(path, domain="travel", collection="trips")
        outputs.append(
            {
                n: (memory.project.paths.domains / "travel" / n).read_bytes()
                for n in ("schema.py", "state.py", "__init__.py")
            }
        )
    assert outputs[0] == outputs[1]


def test_field_names_are_made_identifiers_and_reported(memory, tmp_path):
    records = [
        {
            "Start Date": "2023-01-01",
            "class": "x",
            "2nd": 1,
            "startDate": "b",
            "sources": "s",
            "start_date": 3,
            "": 1,
            "date": "2023-01-02",
        }
    ]
    path = tmp_path / "odd.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    report = memory.import_records(path, domain="misc", collection="items")
    assert report.renamed == {
        "Start Date": "start_date",
        "class": "class_",
        "2nd": "f_2nd",
        "startDate": "start_date_2",
        "sources": "sources_",
        "start_date": "start_date_3",
        "": "unnamed",
    }
    (item,) = memory.state["misc"]["items"]
    assert item.start_date == dt.date(2023, 1, 1) and item.class_ == "x" and item.f_2nd == 1
    assert item.sources_ == "s" and item.date == dt.date(2023, 1, 2)
    assert item.sources == ["record:odd.jsonl#0"]
    assert field_names(["a b", "A-B", "a_b"]) == {"a b": "a_b", "A-B": "a_b_2", "a_b": "a_b_3"}


def test_record_type_names():
    assert record_type_name("trips") == "Trip"
    assert record_type_name("medical_visits") == "MedicalVisit"
    assert record_type_name("activities") == "Activity"
    assert record_type_name("sleep") == "Sleep"
    assert record_type_name("boxes") == "Box"


def test_mixed_types_are_kept_as_any(memory, tmp_path):
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([{"v": 1}, {"v": "one"}, {"v": 2.5}, {"v": None}]))
    report = memory.import_records(path, domain="misc", collection="values", record_type="Value")
    assert {f["name"]: f["type"] for f in report.fields}["v"] == "Any"
    values = [r.v for r in memory.state["misc"]["values"]]
    assert values == [1, "one", 2.5, None] and type(values[0]) is int


def test_csv_inference(memory, tmp_path):
    path = tmp_path / "meals.csv"
    path.write_text(
        "day,cuisine,cost,guests,vegan,when,code,note\n"
        "2024-01-05,thai,12.5,2,true,2024-01-05 19:30,007,\n"
        "2024-01-06,sushi,30,3,False,2024-01-06T20:00:00,12,hello\n"
        "2024-01-07,thai,,1,TRUE,2024-01-07 12:00,x,\n"
    )
    report = memory.import_records(path, domain="food", collection="meals")
    types = {f["name"]: f["type"] for f in report.fields}
    assert types["day"] == "date" and types["cost"] == "float | None" and types["guests"] == "int"
    assert (
        types["vegan"] == "bool"
        and types["when"] == "datetime"
        and types["code"] == "str"
        and types["note"] == "str | None"
    )
    meals = memory.state["food"].meals
    assert [m.cost for m in meals] == [12.5, 30.0, None]
    assert [m.vegan for m in meals] == [True, False, True]
    assert meals[0].code == "007" and meals[1].note == "hello" and meals[0].note is None


def test_append_and_conflict(memory, tmp_path):
    path = tmp_path / "trips.json"
    path.write_text(json.dumps(TRIPS))
    memory.import_records(path, domain="travel", collection="trips")
    more = tmp_path / "more.json"
    more.write_text(json.dumps(TRIPS))
    report = memory.import_records(more, domain="travel", collection="trips")
    assert report.appended and report.records_total == 4
    assert [t.sources[0] for t in memory.state["travel"].trips] == [
        "record:trips.json#0",
        "record:trips.json#1",
        "record:more.json#0",
        "record:more.json#1",
    ]
    before = (memory.project.paths.domains / "travel" / "state.py").read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"destination": "Oslo", "start": "2023-01-01", "nights": "four"}]))
    with pytest.raises(UserError) as info:
        memory.import_records(bad, domain="travel", collection="trips")
    message = str(info.value)
    assert "field nights: int in the collection, str in the file" in message
    assert (
        "cost" not in message
    )  # a column the file lacks would only become optional (tests/compile/test_records_evolve.py)
    assert (memory.project.paths.domains / "travel" / "state.py").read_bytes() == before
    # a second collection in the same domain keeps the first
    meals = tmp_path / "meals.json"
    meals.write_text(json.dumps([{"dish": "pho"}]))
    memory.import_records(meals, domain="travel", collection="meals")
    state = memory.state["travel"]
    assert len(state.trips) == 4 and state.meals[0].dish == "pho"


def test_bad_inputs(memory, tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(InputError, match="expected a JSON list"):
        memory.import_records(path, domain="d", collection="c")
    path.write_text("[1, 2]")
    with pytest.raises(InputError, match="record #0 is int"):
        memory.import_records(path, domain="d", collection="c")
    path.write_text('[{"a": NaN}]')
    with pytest.raises(InputError, match="not valid JSON"):
        memory.import_records(path, domain="d", collection="c")
    path.write_text('[{"a": "\\ud800"}]')
    with pytest.raises(InputError, match="lone surrogate"):
        memory.import_records(path, domain="d", collection="c")
    with pytest.raises(InputError, match="does not exist"):
        memory.import_records(tmp_path / "missing.json", domain="d", collection="c")
    path.write_text('[{"a": 1}]')
    with pytest.raises(InvalidName):
        memory.import_records(path, domain="Bad Name", collection="c")
    with pytest.raises(InvalidName):
        memory.import_records(path, domain="d", collection="date")
    with pytest.raises(InvalidName):
        memory.import_records(path, domain="d", collection="c", record_type="lower")
    bad_csv = tmp_path / "x.csv"
    bad_csv.write_text("a,b\n1,2,3\n")
    with pytest.raises(InputError, match="3 cells"):
        memory.import_records(bad_csv, domain="d", collection="c")
    assert not (memory.project.paths.domains / "d").exists()


# --- property: every field of every record round-trips with the right type --------

KEYS = st.sampled_from(["name", "city", "count", "score", "ok", "day", "at", "tags", "Start Date", "class", "n2"])
JSON_VALUES = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=20),
    st.integers(min_value=-(2**62), max_value=2**62),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.dates().map(dt.date.isoformat),
    st.datetimes().map(lambda d: d.replace(microsecond=0).isoformat()),
    st.lists(st.integers(min_value=-100, max_value=100), max_size=3),
)
RECORDS = st.lists(st.dictionaries(KEYS, JSON_VALUES, max_size=5), min_size=1, max_size=8)


def _expected_json(records, key):
    """What the loaded value of ``key`` must be, per the documented rules."""
    present = [r[key] for r in records if key in r]
    kinds = set()
    for v in present:
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, int):
            kinds.add("int")
        elif isinstance(v, float):
            kinds.add("float")
        elif isinstance(v, list):
            kinds.add("list")
        elif len(v) == 10 and v[4] == "-" and _is_date(v):
            kinds.add("date")
        elif "T" in v and _is_datetime(v):
            kinds.add("datetime")
        else:
            kinds.add("str")

    def convert(v):
        if v is None:
            return None
        if kinds == {"date"}:
            return dt.date.fromisoformat(v)
        if kinds == {"datetime"}:
            return dt.datetime.fromisoformat(v)
        if kinds == {"int", "float"}:
            return float(v)
        return v

    return [convert(r.get(key)) for r in records]


def _is_date(text):
    try:
        dt.date.fromisoformat(text)
        return text[:4].isdigit()
    except ValueError:
        return False


def _is_datetime(text):
    import re

    return re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$", text) is not None


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(records=RECORDS, fmt=st.sampled_from(["json", "jsonl"]))
def test_json_round_trip_property(tmp_path_factory, records, fmt):
    tmp = tmp_path_factory.mktemp("rt")
    memory = UserMemory.create(tmp / "p", user_name="A")
    path = tmp / f"recs.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(records))
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = memory.import_records(path, domain="prop", collection="items", record_type="Item")
    mapping = field_names(list(dict.fromkeys(k for r in records for k in r)))
    loaded = memory.state["prop"]["items"]
    assert len(loaded) == len(records)
    for key, name in mapping.items():
        expected = _expected_json(records, key)
        actual = [getattr(item, name) for item in loaded]
        assert actual == expected, (key, report.fields)
        assert [type(a) for a in actual] == [type(e) for e in expected], key
    assert [i.sources for i in loaded] == [[f"record:{path.name}#{n}"] for n in range(len(records))]


CSV_COLUMNS = {
    "n": st.integers(min_value=-(10**12), max_value=10**12).map(str),
    "x": st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    "flag": st.sampled_from(["true", "false"]),
    "day": st.dates().map(dt.date.isoformat),
    "text": st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00"), min_size=1, max_size=12
    ),
}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.fixed_dictionaries({k: st.one_of(st.just(""), v) for k, v in CSV_COLUMNS.items()}), min_size=1, max_size=8
    )
)
def test_csv_round_trip_property(tmp_path_factory, rows):
    tmp = tmp_path_factory.mktemp("csv")
    memory = UserMemory.create(tmp / "p", user_name="A")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(CSV_COLUMNS))
    writer.writeheader()
    writer.writerows(rows)
    path = tmp / "rows.csv"
    path.write_text(buffer.getvalue(), newline="")
    memory.import_records(path, domain="prop", collection="rows", record_type="Row")
    loaded = memory.state["prop"].rows
    parse = {"n": int, "x": float, "flag": lambda v: v == "true", "day": dt.date.fromisoformat}
    for column in CSV_COLUMNS:
        cells = [r[column] for r in rows]
        present = [c for c in cells if c != ""]
        expected = [None if c == "" else c for c in cells]
        if column in parse and present:
            # the text column may happen to parse too; only the typed generators are checked for type
            expected = [None if c == "" else parse[column](c) for c in cells]
        actual = [getattr(r, column) for r in loaded]
        if column == "text":
            assert all(
                a is None or a == c or str(a).lower() == c.lower() or a == _maybe_num(c) for a, c in zip(actual, cells)
            )
            continue
        assert actual == expected, column
        assert [type(a) for a in actual] == [type(e) for e in expected], column


def _maybe_num(text):
    for fn in (int, float, dt.date.fromisoformat, dt.datetime.fromisoformat):
        try:
            return fn(text)
        except ValueError:
            continue
    return text
