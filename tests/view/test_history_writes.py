"""What the change log records of writes that do not stand (an import undone when a step
after its swap fails logs nothing), and records told apart by their domain."""

from __future__ import annotations

import json

import pytest

from uac.errors import RuntimeFailure
from uac.memory import UserMemory
from uac.view import changes, manifest


def _write(path, rows):
    path.write_text(json.dumps(rows), "utf-8")
    return path


def _fail(*_args, **_kwargs):
    raise RuntimeFailure("the disk is full")


def test_an_undone_import_logs_nothing(tmp_path, monkeypatch):
    memory = UserMemory.create(tmp_path / "ann", user_name="Ann")
    memory.import_records(_write(tmp_path / "trips.json", [{"city": "Lisbon"}]), domain="travel", collection="trips")
    before = [c.to_json() for c in memory.history().changes]
    assert [(c["compile"], c["kind"]) for c in before] == [("c1", "added")]
    monkeypatch.setattr(manifest, "_count_lines", _fail)  # the step after the swap fails
    with pytest.raises(RuntimeFailure):
        memory.import_records(_write(tmp_path / "more.json", [{"city": "Kyoto"}]), domain="travel", collection="trips")
    with pytest.raises(RuntimeFailure):  # a new domain, removed again
        memory.import_records(_write(tmp_path / "food.json", [{"dish": "ramen"}]), domain="food", collection="meals")
    monkeypatch.undo()
    assert [c.to_json() for c in memory.history().changes] == before
    assert changes.read_state(memory.project)["next_seq"] == 2
    assert memory.doctor().check("history").status == "ok"
    # the same import then goes through, as the next compile
    memory.import_records(tmp_path / "more.json", domain="travel", collection="trips")
    assert [
        (c.change.compile, c.change.kind, c.change.new.get("city")) for c in memory.history(since="c1").changes
    ] == [("c2", "added", "Kyoto")]


def test_a_record_is_named_with_its_domain(compiled_thrice):
    """``event-1`` is a record of food and one of work: an id alone is ambiguous."""
    from typer.testing import CliRunner

    from uac.cli import app
    from uac.errors import InputError

    memory = UserMemory.open(compiled_thrice)
    with pytest.raises(InputError, match=r"in more than one domain \(food, work\)"):
        memory.history(record="event-1")
    food = [(c.change.domain, c.change.kind, c.change.field) for c in memory.history(record="food/event-1").changes]
    assert food == [
        ("food", "added", None),
        ("food", "updated", "text"),
        ("food", "updated", "day"),
        ("food", "updated", "sources"),
    ]
    assert [c.change.domain for c in memory.history(domain="work", record="event-1").changes] == ["work"]
    assert [c.change.domain for c in memory.history(record="trip-2").changes] == ["travel"]  # one domain has it
    out = CliRunner().invoke(app, ["history", str(compiled_thrice), "--record", "work/event-1"])
    assert out.exit_code == 0 and " work/event-1 added " in out.output.splitlines()[0]
    import io

    from uac.changelog import stream_history

    streamed = io.StringIO()
    stream_history(memory.context, streamed.write, record="food/event-1")
    assert json.loads(streamed.getvalue())["total"] == 4
