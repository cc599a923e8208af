"""End to end on the demo data: ingested facts and imported records compile
into one offline view through the CLI, and every fact is cited."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from uac.cli import main
from uac.memory import UserMemory

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo"


@pytest.mark.slow
@pytest.mark.embeddings
def test_ingest_import_compile_show(tmp_path, capsys):
    root = tmp_path / "maya"
    memory = UserMemory.create(root, user_name="Maya")
    memory.ingest(DEMO / "conversation.json", extractor="rules")
    memory.import_records(DEMO / "trips.csv", domain="travel", collection="trips")
    facts = memory.facts()
    assert facts
    assert main(["compile", str(root), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "offline" and report["totals"]["facts"] == len(facts)
    assert report["totals"]["coverage"] == 1.0
    state = memory.state
    assert len(state["travel"].trips) > 0
    records = [
        r for domain in state.values() for value in domain.values() if isinstance(value, (list, tuple)) for r in value
    ]
    cited = {s for r in records for s in getattr(r, "sources", ()) if not s.startswith("record:")}
    assert cited == {f.id for f in facts}
    assert main(["show", str(root)]) == 0
    manifest = capsys.readouterr().out
    assert "`travel`" in manifest and "Trip" in manifest and "Event" in manifest
    assert memory.doctor().check("view").status == "ok"
