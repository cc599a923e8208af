"""The CLI commands: import-records, compile, show."""

from __future__ import annotations

import json

from uac.cli import main
from uac.memory import UserMemory


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_records_show_and_compile(capsys, tmp_path):
    project = tmp_path / "alice"
    UserMemory.create(project, user_name="Alice")
    records = tmp_path / "trips.csv"
    records.write_text("Destination,Start,Cost\nLisbon,2023-05-07,812.5\nKyoto,2024-01-02,2100\n")
    code, out, _ = run(
        capsys, "import-records", str(project), str(records), "--domain", "travel", "--collection", "trips", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert data["records_added"] == 2 and data["record_type"] == "Trip"
    assert data["renamed"] == {"Destination": "destination", "Start": "start", "Cost": "cost"}
    code, out, _ = run(
        capsys, "import-records", str(project), str(records), "--domain", "travel", "--collection", "trips"
    )
    assert code == 0 and "Nothing to add: the 2 record(s)" in out and "(2 in total)" in out
    more = tmp_path / "more_trips.csv"
    more.write_text("Destination,Start,Cost\nOslo,2024-03-07,400\nRome,2024-06-02,950.5\n")
    code, out, _ = run(capsys, "import-records", str(project), str(more), "--domain", "travel", "--collection", "trips")
    assert code == 0 and "Appended 2 record(s) into travel.trips (4 Trip records in total)" in out
    code, out, _ = run(capsys, "show", str(project))
    assert code == 0 and "`travel`" in out and "trips (4 × Trip)" in out
    code, out, _ = run(capsys, "show", str(project), "travel")
    assert code == 0 and "# domains/travel/schema.py" in out and "class Trip:" in out and 'destination="Lisbon"' in out
    code, _, err = run(capsys, "show", str(project), "food")
    assert code == 2 and "no domain 'food'" in err and "travel" in err
    code, out, _ = run(capsys, "compile", str(project), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["mode"] == "offline" and report["ok"] is True and "totals" in report


def test_import_records_errors(capsys, tmp_path):
    project = tmp_path / "alice"
    UserMemory.create(project, user_name="Alice")
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    code, _, err = run(capsys, "import-records", str(project), str(bad), "--domain", "travel", "--collection", "trips")
    assert code == 2 and "bad.json" in err and "not valid JSON" in err
    code, _, err = run(capsys, "compile", str(project), "--mode", "incremental")
    assert code == 2 and "needs a language model" in err
    code, _, err = run(capsys, "compile", str(project), "--mode", "nonsense")
    assert code == 2 and "unknown compile mode" in err
