"""The view's change log: three compiles read back change by change, through the API and
the command line; as-of views; bad input; a damaged log, doctor and its repair."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from uac.cli import app, main
from uac.errors import DomainNotFound, InputError, NotFound
from uac.memory import UserMemory
from uac.view import changes, store

from .conftest import open_scripted, write_session


def fact_ids(memory) -> dict[str, str]:
    return {f.text: f.id for f in memory.facts(include_superseded=True)}


def lines(report) -> list[tuple]:
    return [
        (c["compile"], c["domain"], c["record"], c["kind"], c["field"], c["old"], c["new"], c["facts"])
        for c in (e.to_json() for e in report.changes)
    ]


LISBON = "Alice flew to Lisbon for a hiking trip."
ACME = "Alice works at Acme Labs as a baker."
KYOTO = "Alice flew to Kyoto for a conference trip."
GLOBEX = "Alice now works at Globex as a chef."


def test_three_compiles_line_by_line(compiled_thrice):
    memory = UserMemory.open(compiled_thrice)
    ids = fact_ids(memory)
    lisbon, acme, kyoto, globex = ids[LISBON], ids[ACME], ids[KYOTO], ids[GLOBEX]
    assert lines(memory.history()) == [
        (
            "c1",
            "food",
            "event-1",
            "added",
            None,
            None,
            {"day": "2024-03-01", "id": "event-1", "notes": [], "speaker": "Alice", "text": ACME},
            [acme],
        ),
        (
            "c1",
            "travel",
            "trip-1",
            "added",
            None,
            None,
            {"destination": "Lisbon", "id": "trip-1", "notes": [], "start_date": "2024-03-01", "traveller": "Alice"},
            [lisbon],
        ),
        ("c2", "food", "event-1", "updated", "text", ACME, GLOBEX, [globex]),
        ("c2", "food", "event-1", "updated", "day", "2024-03-01", "2024-04-01", [globex]),
        ("c2", "food", "event-1", "updated", "sources", [acme], [acme, globex], [globex]),
        (
            "c2",
            "travel",
            "trip-2",
            "added",
            None,
            None,
            {"destination": "Kyoto", "id": "trip-2", "notes": [], "start_date": "2024-04-01", "traveller": "Alice"},
            [kyoto],
        ),
        (
            "c2",
            "work",
            "event-1",
            "added",
            None,
            None,
            {"day": "2024-04-01", "id": "event-1", "notes": [], "speaker": "Alice", "text": GLOBEX},
            [globex],
        ),
    ]
    # the third compile changed nothing: no c3
    assert changes.read_state(memory.project)["next_seq"] == 3
    # each change carries the sentences of its facts
    first = memory.history(limit=1).changes[0].to_json()
    assert first["sentences"] == [{"fact": globex, "text": GLOBEX, "session_id": globex.rsplit("-", 1)[0]}]
    assert memory.history(limit=1).truncated


def test_filters(compiled_thrice):
    memory = UserMemory.open(compiled_thrice)
    assert [c.change.record for c in memory.history(domain="travel").changes] == ["trip-1", "trip-2"]
    assert [(c.change.compile, c.change.field) for c in memory.history(domain="food", record="event-1").changes] == [
        ("c1", None),
        ("c2", "text"),
        ("c2", "day"),
        ("c2", "sources"),
    ]
    assert {c.change.compile for c in memory.history(since="c1").changes} == {"c2"}
    assert {c.change.compile for c in memory.history(until="c1").changes} == {"c1"}
    day = memory.history().changes[0].change.at[:10]
    assert memory.history(since=day).total == 7 and memory.history(until=day).total == 7


def test_diff_grouped_by_domain_and_record(compiled_thrice):
    memory = UserMemory.open(compiled_thrice)
    report = memory.diff("c1").to_json()
    assert report["changes"] == 5
    assert [
        (d["domain"], [(r["record"], [c["field"] or c["kind"] for c in r["changes"]]) for r in d["records"]])
        for d in report["domains"]
    ] == [
        ("food", [("event-1", ["text", "day", "sources"])]),
        ("travel", [("trip-2", ["added"])]),
        ("work", [("event-1", ["added"])]),
    ]
    assert memory.diff("c1", "c1").count == 0


def test_view_at_replays_the_log(compiled_thrice):
    memory = UserMemory.open(compiled_thrice)
    then = memory.view_at("food", "c1").to_json()
    assert then["compile"] == "c1" and then["records"] == 1
    assert then["collections"]["events"][0]["fields"]["text"] == ACME
    now = memory.view_at("food", "c2").to_json()
    assert now["collections"]["events"][0]["fields"]["text"] == GLOBEX
    # what the log replays to is what the view holds
    for name in store.domain_names(memory.project):
        current = changes.records_of(store.load_domain(memory.project, name).values)
        replayed = changes.replay(memory.project, name)
        assert {k: (r.fields, r.sources) for k, r in current.items()} == {
            k: (r["fields"], r["sources"]) for k, r in replayed.items()
        }
    assert memory.view_at("work", "c1").record_count == 0  # the domain came later


def test_bad_input_is_a_clear_error_or_nothing(compiled_thrice):
    memory = UserMemory.open(compiled_thrice)
    assert memory.history(since="2999-01-01").total == 0
    assert memory.history(since="1999-01-01").total == 7
    with pytest.raises(NotFound, match="no compile c9"):
        memory.history(since="c9")
    with pytest.raises(InputError, match="neither a compile id nor a date"):
        memory.history(since="last week")
    with pytest.raises(NotFound, match="no change of a record 'trip-99'"):
        memory.history(record="trip-99")
    with pytest.raises(DomainNotFound):
        memory.view_at("garden", "c1")
    with pytest.raises(InputError):
        memory.diff("")


def test_cli(compiled_thrice, capsys):
    runner = CliRunner()
    root = str(compiled_thrice)
    out = runner.invoke(app, ["history", root, "--domain", "food"])
    assert out.exit_code == 0, out.output
    text = out.output.splitlines()
    assert text[0].startswith("c1 ") and text[0].endswith(
        'food/event-1 added {"day": "2024-03-01", "id": "event-1", "notes": [], "speaker": "Alice", "text": "Alice works at Acme Labs as a baker."}'
    )
    assert text[1].startswith(f'    because: "{ACME}" [')
    assert text[2].endswith(f"food/event-1 updated text: '{ACME}' -> '{GLOBEX}'")
    assert text[3].startswith(f'    because: "{GLOBEX}" [')
    assert len(text) == 8
    data = json.loads(runner.invoke(app, ["history", root, "--since", "c1", "--json"]).output)
    assert data["total"] == 5 and not data["truncated"]
    diff = runner.invoke(app, ["diff", root, "--since", "c1"]).output.splitlines()
    assert diff[:3] == ["food", "  event-1 (events)", diff[2]] and diff[2].startswith("    c2 ")
    assert "  trip-2 (trips)" in diff and "work" in diff
    show = runner.invoke(app, ["show", root, "travel", "--at", "c1"]).output.splitlines()
    assert show[0].startswith("# travel at c1 (last changed by c1): 1 records")
    assert (
        show[2] == "  trip-1: destination='Lisbon', id='trip-1', notes=[], start_date='2024-03-01', traveller='Alice'"
    )
    assert main(["history", root, "--since", "c42"]) == 2
    assert "no compile c42" in capsys.readouterr().err
    assert main(["history", root, "--record", "nope"]) == 2
    assert main(["show", root, "travel", "--at", "when"]) == 2
    assert "No changes in that range." in runner.invoke(app, ["history", root, "--since", "2999-01-01"]).output


def test_a_damaged_log_is_read_around_and_rebuilt(project):
    memory = UserMemory.open(project)
    segment = changes.segment_paths(memory.project)[0]
    good = segment.read_bytes().splitlines(keepends=True)
    segment.write_bytes(good[0] + b"{broken\n" + b"".join(good[1:]) + b'{"torn')
    (segment.parent / "state.json").write_text("{not json")
    report = memory.history()
    assert report.total == 7 and report.damaged_lines == 1
    check = memory.doctor().check("history")
    assert check.status == "fail" and "2 damaged line" in check.detail and "state.json unreadable" in check.detail
    fixed = memory.doctor(repair=True).check("history")
    assert fixed.status == "ok" and fixed.repaired
    assert memory.doctor().check("history").status == "ok"
    assert memory.history().total == 7 and memory.history().damaged_lines == 0
    assert changes.read_state(memory.project)["next_seq"] == 3


def test_a_log_behind_the_view_catches_up(project):
    """A project from before the log (or a crash between a swap and its append): the next
    write of a domain logs what its files held first, under a resync compile."""
    memory = UserMemory.open(project)
    for path in changes.segment_paths(memory.project) + [changes.history_dir(memory.project) / "state.json"]:
        path.unlink()
    changes._MEMO.clear()
    assert memory.history().total == 0
    assert memory.doctor().check("history").status == "warn"
    memory = open_scripted(project)
    memory.ingest(
        write_session(project.parent / "c.json", "2024-05-01", ["I flew to Oslo for a ski trip."]), extractor="rules"
    )
    assert memory.compile(mode="incremental").ok
    travel = [
        (c.change.compile, c.change.mode, c.change.record, c.change.kind)
        for c in memory.history(domain="travel").changes
    ]
    assert travel == [
        ("c1", "resync", "trip-1", "added"),
        ("c1", "resync", "trip-2", "added"),
        ("c2", "incremental", "trip-3", "added"),
    ]
    # the domains not written yet are logged by doctor --repair
    assert memory.doctor(repair=True).check("history").status == "ok"
    assert {c.change.domain for c in memory.history(since="c2").changes} == {"food", "work"}
    assert memory.doctor().check("history").status == "ok"


def test_offline_compiles_and_imports_are_logged(tmp_path):
    memory = UserMemory.create(tmp_path / "bob", user_name="Bob")
    memory.ingest(
        write_session(
            tmp_path / "a.json",
            "2024-03-01",
            ["I flew to Lisbon for a hiking trip.", "I work at Acme Labs as a baker."],
        ),
        extractor="rules",
    )
    memory.compile(mode="offline")
    memory.ingest(
        write_session(tmp_path / "b.json", "2024-04-01", ["I now work at Globex as a chef."]), extractor="rules"
    )
    memory.compile(mode="offline")
    changed = [c.change for c in memory.history(domain="work").changes]
    employer = {c.record: c.new["employer"] for c in changed if c.kind == "added"}
    # the job left stays in the view, no longer current (the offline kinds read the fact Globex superseded)
    assert [(c.compile, c.mode, c.kind, c.field, employer[c.record]) for c in changed] == [
        ("c1", "offline", "added", None, "Acme Labs"),
        ("c2", "offline", "updated", "current", "Acme Labs"),
        ("c2", "offline", "added", None, "Globex"),
    ]
    books = tmp_path / "books.csv"
    books.write_text("title,year\nDune,1965\n")
    memory.import_records(books, domain="library", collection="books")
    imported = memory.history(domain="library").changes
    assert [(c.change.mode, c.change.kind, c.change.new["title"], c.change.facts) for c in imported] == [
        ("import", "added", "Dune", ["record:books.csv#0"])
    ]


def test_diffs_name_corrections():
    before = {"r": changes.Rec("jobs", {"employer": "Acme"}, ["f1"])}
    after = {"r": changes.Rec("jobs", {"employer": "Globex"}, ["f1", "fix1"])}
    found = changes.diff(before, after, frozenset({"fix1"}))
    assert found[0] == ("jobs", "r", "corrected", "employer", "Acme", "Globex", ["fix1"])
    assert changes.diff(before, after)[0][2] == "updated"


CRASH_CHILD = """
import sys
sys.path.insert(0, {repo!r})
from tests.view.conftest import open_scripted, write_session
from pathlib import Path
memory = open_scripted(Path({root!r}))
memory.ingest(write_session(Path({root!r}).parent / "c.json", "2024-05-01", ["I flew to Oslo for a ski trip."]), extractor="rules")
memory.compile(mode="incremental")
"""


@pytest.mark.slow
def test_kill_between_the_swap_and_the_append(project):
    """kill -9 after a domain's files are swapped in and before its changes are appended:
    the log is behind the view, never ahead of it; doctor finds it and the repair logs it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    tests = str(Path(__file__).resolve().parents[1])
    env = {
        **os.environ,
        "UAC_CRASH_AT": "history:swapped",
        "PYTHONPATH": os.pathsep.join([str(Path(tests).parent), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", CRASH_CHILD.format(repo=str(Path(tests).parent), root=str(project))],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == -9, done.stderr.decode()
    memory = UserMemory.open(project)
    trips = store.load_domain(memory.project, "travel").values["trips"]
    assert [t.destination for t in trips] == ["Lisbon", "Kyoto", "Oslo"]  # the view has the new trip
    replayed = changes.replay(memory.project, "travel")
    assert sorted(replayed) == ["trip-1", "trip-2"]  # the log does not claim it, nor anything else
    check = memory.doctor().check("history")
    assert check.status == "warn" and "behind the view for travel" in check.detail
    assert memory.doctor(repair=True).check("history").repaired
    assert [(c.change.mode, c.change.record) for c in memory.history(since="c2").changes] == [("resync", "trip-3")]
    assert memory.doctor().check("history").status == "ok"
