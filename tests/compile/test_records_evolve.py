"""A records collection follows next month's export: numbers that gain decimals, dates
that become months, columns added or gone; anything that would reinterpret data is
refused, naming each field, and changes nothing."""

from __future__ import annotations

import json

import pytest

from uac import Period, UserError
from uac.cli import main


def _csv(path, text):
    path.write_text(text)
    return path


def _state_bytes(memory, domain="money"):
    return (memory.project.paths.domains / domain / "state.py").read_bytes()


def test_an_int_column_that_gains_decimals_becomes_float(memory, tmp_path):
    first = _csv(tmp_path / "2024-05.csv", "day,shop,amount\n2024-05-02,Lidl,42\n2024-05-09,Aldi,17\n")
    memory.import_records(first, domain="money", collection="expenses")
    assert [f["type"] for f in memory.import_records(first, domain="money", collection="expenses").fields][2] == "int"
    second = _csv(tmp_path / "2024-06.csv", "day,shop,amount\n2024-06-01,Lidl,89.50\n")
    report = memory.import_records(second, domain="money", collection="expenses")
    assert report.records_added == 1 and report.records_total == 3
    assert report.schema_changes == [
        {"field": "amount", "change": "widened", "from": "int", "to": "float", "reason": "values of 2024-06.csv"}
    ]
    expenses = memory.state["money"].expenses
    assert [e.amount for e in expenses] == [42.0, 17.0, 89.5]
    assert all(type(e.amount) is float for e in expenses)
    ran = memory.run("result = sum(e.amount for e in expenses)")
    assert ran.ok and ran.result == 148.5
    assert "amount: float" in (memory.project.paths.domains / "money" / "schema.py").read_text()


def test_a_float_collection_takes_whole_numbers(memory, tmp_path):
    memory.import_records(_csv(tmp_path / "a.csv", "item,price\ntea,3.5\n"), domain="money", collection="buys")
    report = memory.import_records(_csv(tmp_path / "b.csv", "item,price\ncake,4\n"), domain="money", collection="buys")
    assert report.schema_changes == [] and [b.price for b in memory.state["money"].buys] == [3.5, 4.0]


def test_dates_that_become_months_make_the_field_a_period(memory, tmp_path):
    memory.import_records(
        _csv(tmp_path / "a.csv", "what,when\nLisbon,2024-05-02\n"), domain="travel", collection="trips"
    )
    report = memory.import_records(
        _csv(tmp_path / "b.csv", "what,when\nOslo,2024-07\nRome,2024-summer\n"), domain="travel", collection="trips"
    )
    assert report.schema_changes[0]["from"] == "date" and report.schema_changes[0]["to"] == "Period"
    trips = memory.state["travel"].trips
    assert [t.when for t in trips] == [Period("2024-05-02"), Period("2024-07"), Period("2024-summer")]
    ran = memory.run("import datetime\nresult = [t.what for t in trips if t.when.overlaps(datetime.date(2024, 7, 15))]")
    assert ran.ok and ran.result == ["Oslo", "Rome"], ran


def test_a_new_column_is_an_optional_field_and_a_missing_one_becomes_optional(memory, tmp_path):
    memory.import_records(
        _csv(tmp_path / "a.csv", "item,price,shop\ntea,3.5,Lidl\n"), domain="money", collection="buys"
    )
    report = memory.import_records(
        _csv(tmp_path / "b.csv", "item,price,card\ncake,4.0,visa\n"), domain="money", collection="buys"
    )
    changes = {c["field"]: c for c in report.schema_changes}
    assert changes["card"] == {
        "field": "card",
        "change": "added",
        "from": None,
        "to": "str | None",
        "reason": "new in b.csv",
    }
    assert changes["shop"]["change"] == "optional" and changes["shop"]["to"] == "str | None"
    buys = memory.state["money"].buys
    assert [(b.item, b.shop, b.card) for b in buys] == [("tea", "Lidl", None), ("cake", None, "visa")]
    # the same file again adds nothing and changes nothing
    again = memory.import_records(tmp_path / "b.csv", domain="money", collection="buys")
    assert again.records_added == 0 and again.schema_changes == []


def test_json_mixed_values_widen_to_any_and_keep_each_value(memory, tmp_path):
    (tmp_path / "a.json").write_text(json.dumps([{"k": "x", "v": 1}]))
    (tmp_path / "b.json").write_text(json.dumps([{"k": "y", "v": "one"}, {"k": "z", "v": 2}]))
    memory.import_records(tmp_path / "a.json", domain="misc", collection="pairs")
    report = memory.import_records(tmp_path / "b.json", domain="misc", collection="pairs")
    assert report.schema_changes[0]["to"] == "Any"
    assert [p.v for p in memory.state["misc"].pairs] == [1, "one", 2]


@pytest.mark.parametrize(
    ("first", "second", "words"),
    [
        ("n\n5\n", "n\nfive\n", "field n: int in the collection, str in the file"),
        ("flag\ntrue\n", "flag\n1\n", "field flag: bool in the collection, int in the file"),
        ("d\n2024-05-02\n", "d\n2024-05-02 10:30\n", "field d: date in the collection, datetime in the file"),
        ("n\n5\n", "n\n2024-05-02\n", "field n: int in the collection, date in the file"),
    ],
)
def test_what_would_reinterpret_data_is_refused_and_changes_nothing(memory, tmp_path, first, second, words):
    memory.import_records(_csv(tmp_path / "a.csv", first), domain="money", collection="rows")
    before = _state_bytes(memory)
    with pytest.raises(UserError) as caught:
        memory.import_records(_csv(tmp_path / "b.csv", second), domain="money", collection="rows")
    assert words in caught.value.message and "without reinterpreting data" in caught.value.message
    assert "replace" in caught.value.hint
    assert _state_bytes(memory) == before


def test_a_whole_number_too_large_for_a_float_is_refused(memory, tmp_path):
    memory.import_records(_csv(tmp_path / "a.csv", "n\n1.5\n"), domain="money", collection="rows")
    before = _state_bytes(memory)
    with pytest.raises(UserError) as caught:
        memory.import_records(_csv(tmp_path / "b.csv", f"n\n{2**60}\n"), domain="money", collection="rows")
    assert "too large" in str(caught.value)
    assert _state_bytes(memory) == before
    memory.import_records(_csv(tmp_path / "e.csv", f"n\n{2**60}\n"), domain="money", collection="big")
    with pytest.raises(UserError) as caught:
        memory.import_records(_csv(tmp_path / "f.csv", "n\n0.5\n"), domain="money", collection="big")
    assert "cannot become float" in str(caught.value)


def test_the_cli_prints_the_changes(memory, tmp_path, capsys):
    memory.import_records(_csv(tmp_path / "a.csv", "amount\n42\n"), domain="money", collection="expenses")
    code = main(
        [
            "import-records",
            str(memory.root),
            str(_csv(tmp_path / "b.csv", "amount\n9.99\n")),
            "--domain",
            "money",
            "--collection",
            "expenses",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "amount: int -> float" in out
    code = main(
        [
            "import-records",
            str(memory.root),
            str(_csv(tmp_path / "c.csv", "amount\n1.25\n")),
            "--domain",
            "money",
            "--collection",
            "expenses",
            "--json",
        ]
    )
    assert json.loads(capsys.readouterr().out)["schema_changes"] == []
