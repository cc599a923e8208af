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
