"""fields_json: the JSON form of a dataclass that prints its fields."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from uac.fieldjson import fields_json


@dataclass
class _Report:
    name: str
    turns: tuple[str, ...] = ()
    ids: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def test_each_field_under_its_name_in_declared_order_as_new_containers():
    report = _Report("trip", ("D1:3", "D1:4"), ["f1"], {"kept": 2}, 0.123456)
    data = fields_json(report)
    assert list(data) == ["name", "turns", "ids", "counts", "seconds"]
    assert data == {
        "name": "trip",
        "turns": ["D1:3", "D1:4"],
        "ids": ["f1"],
        "counts": {"kept": 2},
        "seconds": 0.123456,
    }
    data["ids"].append("f2")
    data["counts"]["kept"] = 9
    assert report.ids == ["f1"] and report.counts == {"kept": 2}  # the report is not changed through its JSON


def test_changed_values_keep_their_place_and_an_unknown_name_is_refused():
    data = fields_json(_Report("trip", seconds=0.123456), seconds=round(0.123456, 3))
    assert list(data)[-1] == "seconds" and data["seconds"] == 0.123
    with pytest.raises(TypeError, match="no field secs"):
        fields_json(_Report("trip"), secs=1)


def test_reports_print_their_fields():
    from uac.index.catchup import CatchUpReport
    from uac.records.forget import ViewForgetReport
    from uac.records.importer import ImportReport

    assert CatchUpReport("current", seconds=1.234567).to_json() == {
        "status": "current",
        "sessions_indexed": 0,
        "facts_added": 0,
        "chunks_added": 0,
        "entries_removed": 0,
        "vectors_removed": 0,
        "seconds": 1.2346,
    }
    assert list(ViewForgetReport().to_json()) == [
        "changes_purged",
        "records_removed",
        "records_revisited",
        "domains_rewritten",
        "history_lines_dropped",
    ]
    imported = ImportReport("travel", "trips", "Trip", "trips.csv", 2, 2, seconds=0.01234).to_json()
    assert list(imported)[8:] == ["replaced", "appended", "fields", "renamed", "schema_changes", "seconds"]
    assert imported["seconds"] == 0.012
