"""The ``view`` check of ``uac doctor``."""

from __future__ import annotations

import json

from uac.memory import UserMemory


def test_doctor_reports_the_view(tmp_path):
    memory = UserMemory.create(tmp_path / "alice", user_name="Alice")
    records = tmp_path / "trips.json"
    records.write_text(json.dumps([{"city": "Oslo"}]))
    memory.import_records(records, domain="travel", collection="trips")
    check = memory.doctor().check("view")
    assert check.status == "ok" and check.data["records"] == {"travel": 1}
    state = memory.project.paths.domains / "travel" / "state.py"
    state.write_text(state.read_text() + "\nimport os\n")
    check = memory.doctor().check("view")
    assert check.status == "fail" and "travel" in check.detail and "import module" in check.detail


def test_doctor_warns_while_the_view_lags_the_log(tmp_path):
    # ask, repl and run_python answer from the view: a session ingested after the last compile
    # is not in it, and doctor must say so instead of "ok"
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    memory.add_session(
        {"date": "2024-05-01", "messages": [{"role": "user", "content": "I got back from Lisbon yesterday."}]}
    )
    memory.compile(mode="offline")
    assert memory.doctor().check("view").status == "ok"
    memory.add_session({"date": "2024-06-03", "messages": [{"role": "user", "content": "I flew to Oslo on Friday."}]})
    check = memory.doctor().check("view")
    assert check.status == "warn" and "does not include 1 fact(s) yet: run 'uac compile'" in check.detail
    memory.compile(mode="offline")
    assert memory.doctor().check("view").status == "ok"
    memory.close()


def test_doctor_warns_when_facts_were_ingested_and_no_domain_was_ever_compiled(tmp_path):
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    assert memory.doctor().check("view").detail == "no domains yet"
    memory.add_session(
        {"date": "2024-06-03", "messages": [{"role": "user", "content": "I flew to Oslo on Friday."}]}, compile=False
    )
    check = memory.doctor().check("view")
    assert check.status == "warn" and check.detail.startswith("no domains yet")
    assert "does not include 1 fact(s) yet: run 'uac compile'" in check.detail
    memory.close()
