"""A whole LoCoMo conversation compiled incrementally by the rule model: every fact of
the rules extractor ends up recorded or considered (needs the dataset: set UAC_LOCOMO_DATA)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from uac.memory import UserMemory

from .helpers import protocol_handler

DATA = os.environ.get("UAC_LOCOMO_DATA", "")


@pytest.mark.slow
@pytest.mark.embeddings
@pytest.mark.skipif(not DATA or not Path(DATA).is_file(), reason="set UAC_LOCOMO_DATA to the LoCoMo JSON file")
def test_conv26_every_fact_recorded_or_considered(tmp_path, scripted_llm, scripted):
    scripted.handler = protocol_handler
    memory = UserMemory.create(tmp_path / "conv26", user_name="Caroline", llm=scripted_llm)
    ingest = memory.ingest(DATA, sample_id="conv-26", extractor="rules")
    assert len(ingest.sessions_added) == 19
    facts = memory.facts()
    assert len(facts) > 1_100
    # compiled session by session, as an agent would after each conversation
    sessions = sorted({f.session_id for f in facts}, key=lambda s: int(s.rsplit("s", 1)[1]))
    seen: list = []
    for session in sessions:
        seen += [f for f in facts if f.session_id == session]
        report = memory.compile(facts=seen)
        assert report.ok, report.to_json()
    totals = report.to_json()["totals"]
    assert totals["facts_recorded"] + totals["facts_considered"] == len(facts)
    assert totals["facts_pending"] == 0
    doctor = memory.doctor().check("view")
    counts = doctor.data["facts"]
    assert counts["not_compiled"] == 0
    assert sum(d["recorded"] + d["considered"] for d in counts["domains"].values()) == len(memory.facts())
