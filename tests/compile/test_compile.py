"""Compiling facts: the bounded mode (stops at its prefix), the offline view and the
keyword classifier.  The incremental protocol is tested in ``test_incremental.py``."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from uac.compile import routing
from uac.compile.bounded import bounded_prefix
from uac.compile.llm_shared import fact_line
from uac.errors import ModelNotConfigured
from uac.facts.model import Fact

from .helpers import make_facts, prompt_of


@pytest.fixture
def big_facts():
    facts = make_facts(400, pad=10)
    assert sum(len(fact_line(f)) + 1 for f in facts) > 2 * 30_000
    return facts


def test_bounded_mode_stops_at_its_prefix(scripted_memory, scripted, big_facts):
    def handler(request):
        prompt = prompt_of(request)
        ids = re.findall(r"^\[(f\d{4})\]", prompt, re.M)
        state = (
            "from .schema import Item\n\nitems: list[Item] = [\n"
            + "".join(f'    Item(text="{i}", sources=["{i}"]),\n' for i in ids)
            + "]\n"
        )
        schema = "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Item:\n    text: str\n    sources: list[str] = field(default_factory=list)\n"
        return {"json": {"domains": [{"name": "life", "schema_py": schema, "state_py": state}]}}

    scripted.handler = handler
    report = scripted_memory.compile(mode="bounded", facts=big_facts)
    prefix = bounded_prefix(big_facts, 30_000)
    assert report.facts_in_prompt == len(prefix) < len(big_facts)
    (request,) = scripted.requests
    prompt = prompt_of(request)
    assert f"[{prefix[-1].id}]" in prompt and f"[{big_facts[len(prefix)].id}]" not in prompt
    facts_part = prompt.split("Facts (one per line", 1)[1]
    assert sum(len(line) + 1 for line in facts_part.splitlines() if line.startswith("[f")) <= 30_000
    data = report.to_json()["totals"]
    assert data["facts_covered"] == len(prefix) and data["coverage"] == pytest.approx(len(prefix) / 400, abs=1e-4)
    cited = {s for item in scripted_memory.state["life"]["items"] for s in item.sources}
    assert cited == {f.id for f in prefix}


def test_incremental_needs_a_model(memory):
    with pytest.raises(ModelNotConfigured):
        memory.compile(mode="incremental", facts=make_facts(2))


def test_offline_compile_builds_dated_timelines(memory):
    facts = [
        Fact(
            "a1",
            "We flew to Paris and stayed at a hotel",
            "S1",
            dt.date(2023, 5, 8),
            speaker="Alice",
            event_date=dt.date(2023, 5, 7),
        ),
        Fact("a2", "I baked bread for dinner", "S1", dt.date(2023, 5, 8), speaker="Alice"),
        Fact("a3", "My visit to Rome was lovely", "S2", dt.date(2023, 4, 1), speaker="Bob"),
        Fact("a4", "Okay, see you later", "S2", None),
    ]
    report = memory.compile(facts=facts)
    assert report.mode == "offline" and report.coverage == 1.0
    state = memory.state
    assert set(state) == {"travel", "food", "general"}
    travel = state["travel"].events
    assert [e.sources for e in travel] == [["a3"], ["a1"]]
    assert travel[1].when == dt.date(2023, 5, 7) and travel[1].when.precision == "day"
    assert travel[1].said_on == dt.date(2023, 5, 8) and travel[1].actor == "Alice" and travel[1].session_id == "S1"
    # undated in the text: no `when`, only when it was said
    assert travel[0].when is None and travel[0].said_on == dt.date(2023, 4, 1)
    assert state["general"].events[0].when is None and state["general"].events[0].said_on is None
    first = {p.name: p.read_bytes() for p in (memory.project.paths.domains / "travel").iterdir()}
    memory.compile(facts=facts)
    assert {p.name: p.read_bytes() for p in (memory.project.paths.domains / "travel").iterdir()} == first
    manifest = memory.project.paths.manifest.read_text()
    assert "`travel`" in manifest and "events (2 × Event)" in manifest


def test_offline_keeps_imported_collections(memory, tmp_path):
    path = tmp_path / "trips.json"
    path.write_text(json.dumps([{"city": "Oslo"}]))
    memory.import_records(path, domain="travel", collection="trips")
    memory.compile(mode="offline", facts=[Fact("a1", "We flew to Paris", "S1", dt.date(2023, 5, 8))])
    travel = memory.state["travel"]
    assert travel.trips[0].city == "Oslo" and travel.events[0].sources == ["a1"]


def test_keyword_classifier():
    assert routing.classify("We booked a flight to Tokyo") == "travel"
    assert routing.classify("I had sushi for dinner") == "food"
    assert routing.classify("My sister got married") == "relationships"
    assert routing.classify("Nothing in particular") == "general"
    assert routing.classify("anything", {"topic": "Health"}) == "health"
