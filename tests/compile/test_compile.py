"""Compiling facts: incremental (full coverage beyond 30,000 characters),
bounded (stops at its prefix), repair loop, failure isolation, offline view."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from uac.errors import ModelNotConfigured
from uac.facts.model import Fact
from uac.compile import routing
from uac.compile.bounded import bounded_prefix
from uac.compile.llm_shared import fact_line

from .helpers import handler_for, make_facts, prompt_of


def split_domain(fact_id: str) -> str:
    return ["travel", "food"][int(fact_id[1:]) % 2]


@pytest.fixture
def big_facts():
    facts = make_facts(400, pad=10)
    assert sum(len(fact_line(f)) + 1 for f in facts) > 2 * 30_000
    return facts


def test_incremental_covers_every_fact_beyond_the_bounded_prefix(scripted_memory, scripted, big_facts):
    scripted.handler = handler_for(split_domain)
    report = scripted_memory.compile(facts=big_facts)
    data = report.to_json()
    assert report.ok and report.mode == "incremental"
    assert data["totals"]["facts_covered"] == 400 and data["totals"]["coverage"] == 1.0
    for domain in ("travel", "food"):
        entry = report.domain(domain)
        assert entry.status == "compiled" and entry.records == 200
        assert entry.facts_routed == 200 and entry.coverage == 1.0
        assert entry.calls >= 2  # the domain's facts did not fit one budgeted call
        assert entry.prompt_tokens > 0 and entry.completion_tokens > 0
    budget = scripted_memory.project.config.compile.domain_prompt_chars
    domain_prompts = [prompt_of(r) for r in scripted.requests if "You maintain the" in prompt_of(r)]
    assert domain_prompts and all(len(r.messages[-1].content) <= budget for r in scripted.requests if "You maintain the" in prompt_of(r))
    cited = {s for d in ("travel", "food") for item in scripted_memory.state[d]["items"] for s in item.sources}
    assert cited == {f.id for f in big_facts}
    history = [json.loads(line) for line in (scripted_memory.project.paths.internal / "compile_history.jsonl").read_text().splitlines()]
    assert {h["purpose"] for h in history} >= {"route", "structure.domain:travel", "structure.domain:food"}
    assert all(len(h["prompt_sha256"]) == 64 and h["outcome"] == "ok" for h in history)
    assert data["routing"]["by_model"] == 400


def test_incremental_sends_only_new_facts(scripted_memory, scripted, big_facts):
    scripted.handler = handler_for(split_domain)
    scripted_memory.compile(facts=big_facts[:100])
    scripted.requests.clear()
    report = scripted_memory.compile(facts=big_facts[:120])
    assert report.coverage == 1.0 and report.facts_covered == 120
    prompts = "\n".join(prompt_of(r) for r in scripted.requests)
    new_section = [p.split("NEW facts", 1)[1] for p in map(prompt_of, scripted.requests) if "NEW facts" in p]
    assert all("[f0005]" not in s for s in new_section)  # already cited: only in the current code
    assert "[f0110]" in prompts
    assert report.domain("travel").facts_new == 10 and report.domain("travel").facts_routed == 60
    # nothing new: no model call at all
    scripted.requests.clear()
    again = scripted_memory.compile(facts=big_facts[:120])
    assert scripted.requests == [] and all(d.status == "unchanged" for d in again.domains)


def test_routing_falls_back_to_keywords_for_missed_ids(scripted_memory, scripted):
    facts = make_facts(8)

    def handler(request):
        prompt = prompt_of(request)
        if "Route each fact" in prompt:
            return {"json": {"routes": [{"id": "f0000", "domain": "travel"}, {"id": "f0001", "domain": "Not A Slug!"}]}}
        return handler_for()(request)

    scripted.handler = handler
    report = scripted_memory.compile(facts=facts)
    assert report.routed_by_model == 1 and report.routed_by_keywords == 7
    names = {d.domain for d in report.domains}
    assert names == {routing.classify_fact(f) for f in facts[1:]} | {"travel"}
    assert report.coverage == 1.0


def test_bounded_mode_stops_at_its_prefix(scripted_memory, scripted, big_facts):
    def handler(request):
        prompt = prompt_of(request)
        ids = re.findall(r"^\[(f\d{4})\]", prompt, re.M)
        state = "from .schema import Item\n\nitems: list[Item] = [\n" + "".join(f'    Item(text="{i}", sources=["{i}"]),\n' for i in ids) + "]\n"
        schema = 'from dataclasses import dataclass, field\n\n\n@dataclass\nclass Item:\n    text: str\n    sources: list[str] = field(default_factory=list)\n'
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


def test_repair_loop_feeds_validator_messages_back(scripted_memory, scripted):
    facts = make_facts(3)
    good = handler_for(lambda _i: "travel")
    calls = {"domain": 0}

    def handler(request):
        prompt = prompt_of(request)
        if "You maintain the" in prompt and calls["domain"] == 0:
            calls["domain"] += 1
            return {"json": {"schema_py": "import os\n", "state_py": "x: int = 1\n"}}
        return good(request)

    scripted.handler = handler
    report = scripted_memory.compile(facts=facts)
    entry = report.domain("travel")
    assert entry.status == "compiled" and entry.repair_rounds == 1 and entry.calls == 2
    repair_request = scripted.requests[-1]
    last = repair_request.messages[-1].content
    assert "rejected by the validator" in last and "domains/travel/schema.py:1: `import module` is not allowed" in last
    assert repair_request.messages[-2].role == "assistant"
    history = (scripted_memory.project.paths.internal / "compile_history.jsonl").read_text()
    assert "rejected: domains/travel/schema.py:1" in history


def test_failed_domain_keeps_previous_view_byte_identical(scripted_memory, scripted):
    facts = make_facts(20)
    scripted.handler = handler_for(split_domain)
    scripted_memory.compile(facts=facts[:10])
    travel_dir = scripted_memory.project.paths.domains / "travel"
    before = {p.name: p.read_bytes() for p in travel_dir.iterdir()}
    scripted.handler = handler_for(split_domain, broken_domains={"travel"})
    report = scripted_memory.compile(facts=facts)
    travel = report.domain("travel")
    assert travel.status == "failed" and "not allowed" in travel.rejection
    assert travel.repair_rounds == scripted_memory.project.config.compile.repair_rounds
    assert {p.name: p.read_bytes() for p in travel_dir.iterdir()} == before
    assert report.domain("food").status == "compiled" and not report.ok
    assert travel.facts_covered == 5 and travel.facts_routed == 10
    assert not [p for p in scripted_memory.project.paths.domains.iterdir() if p.name.startswith(".")]
    assert len(scripted_memory.state["travel"]["items"]) == 5


def test_unknown_fact_ids_are_rejected(scripted_memory, scripted):
    facts = make_facts(2)
    good = handler_for(lambda _i: "travel")

    def handler(request):
        reply = good(request)
        if "You maintain the" in prompt_of(request) and len(scripted.requests) == 2:
            reply["json"]["state_py"] = reply["json"]["state_py"].replace('"f0000"', '"f9999"')
        return reply

    scripted.handler = handler
    report = scripted_memory.compile(facts=facts)
    assert report.domain("travel").repair_rounds == 1
    assert "unknown fact ids: f9999" in prompt_of(scripted.requests[-1])


def test_incremental_needs_a_model(memory):
    with pytest.raises(ModelNotConfigured):
        memory.compile(mode="incremental", facts=make_facts(2))


def test_offline_compile_builds_dated_timelines(memory):
    facts = [
        Fact("a1", "We flew to Paris and stayed at a hotel", "S1", dt.date(2023, 5, 8), speaker="Alice", event_date=dt.date(2023, 5, 7)),
        Fact("a2", "I baked bread for dinner", "S1", dt.date(2023, 5, 8), speaker="Alice"),
        Fact("a3", "My trip to Rome was last month", "S2", dt.date(2023, 4, 1), speaker="Bob"),
        Fact("a4", "The sky is blue", "S2", None),
    ]
    report = memory.compile(facts=facts)
    assert report.mode == "offline" and report.coverage == 1.0
    state = memory.state
    assert set(state) == {"travel", "food", "general"}
    travel = state["travel"].events
    assert [e.sources for e in travel] == [["a3"], ["a1"]]
    assert travel[1].date == dt.date(2023, 5, 7) and travel[1].actor == "Alice" and travel[1].session_id == "S1"
    assert state["general"].events[0].date is None
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
