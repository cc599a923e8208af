"""The incremental compile protocol end to end, with a scripted model that answers like
models do: operations per batch, fenced or prose-wrapped JSON, wrong date forms,
rejected operations, cut-off replies, endpoint errors."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from uac.compile import routing
from uac.compile.incremental import compile_incremental
from uac.facts.log import FactLog, Supersession
from uac.facts.model import Fact
from uac.fsutil import read_utf8, split_lines

from .helpers import adds_by_fact, domain_of_prompt, handler_for, make_facts, prompt_of, records


def split_domain(fact_id: str) -> str:
    return ["travel", "food"][int(fact_id[1:]) % 2]


def op_prompts(scripted, domain=None):
    return [
        prompt_of(r)
        for r in scripted.requests
        if domain_of_prompt(prompt_of(r)) and (domain is None or domain_of_prompt(prompt_of(r)) == domain)
    ]


def history(memory):
    path = memory.project.paths.internal / "compile_history.jsonl"
    return [json.loads(line) for line in split_lines(read_utf8(path))]


@pytest.fixture
def big_facts():
    return make_facts(400, pad=10)


def test_every_fact_is_recorded_with_replies_that_do_not_grow(scripted_memory, scripted, big_facts):
    scripted.handler = handler_for(split_domain)
    report = scripted_memory.compile(facts=big_facts)
    data = report.to_json()
    assert report.ok and report.mode == "incremental"
    assert data["totals"]["facts_recorded"] == 400 and data["totals"]["coverage"] == 1.0
    config = scripted_memory.project.config.compile
    for domain in ("travel", "food"):
        entry = report.domain(domain)
        assert entry.status == "compiled" and entry.records == 200 and entry.facts_recorded == 200
        assert entry.calls == 200 // config.batch_facts  # one call per batch of at most 25 facts
        assert entry.batches == entry.calls and entry.ops_rejected == 0
    prompts = op_prompts(scripted)
    assert all(len(p) <= config.domain_prompt_chars for p in prompts)
    # the last batch of a domain holding 175 records sees a bounded selection, not the domain
    last = op_prompts(scripted, "travel")[-1]
    assert sum(int(n) for n in re.findall(r"\((\d+) records\)", last)) == 175
    assert last.count("(id=") < 60
    assert data["totals"]["largest_completion_tokens"] < 3_000
    # the travel facts of make_facts are trips and hobbies: one Trip or one Event each
    assert {name: len(scripted_memory.state["travel"][name]) for name in scripted_memory.state["travel"]} == {
        "trips": 100,
        "events": 100,
    }
    cited = {s for d in ("travel", "food") for item in records(scripted_memory, d) for s in item.sources}
    assert cited == {f.id for f in big_facts}
    assert {h["purpose"] for h in history(scripted_memory)} >= {"route", "structure.ops:travel", "structure.ops:food"}


def test_only_new_facts_are_sent_and_nothing_new_costs_nothing(scripted_memory, scripted, big_facts):
    scripted.handler = handler_for(split_domain)
    scripted_memory.compile(facts=big_facts[:100])
    scripted.requests.clear()
    report = scripted_memory.compile(facts=big_facts[:120])
    assert report.to_json()["totals"]["facts_recorded"] == 120
    new_sections = [p.split("## NEW facts", 1)[1] for p in op_prompts(scripted)]
    assert all("[f0005]" not in s for s in new_sections) and any("[f0110]" in s for s in new_sections)
    assert report.domain("travel").facts_new == 10 and report.domain("travel").facts_routed == 60
    scripted.requests.clear()
    again = scripted_memory.compile(facts=big_facts[:120])
    assert scripted.requests == [] and all(d.status == "unchanged" for d in again.domains)


def test_considered_facts_are_not_sent_again(scripted_memory, scripted):
    facts = make_facts(4) + [Fact("f0100", "Ok", "S1", dt.date(2023, 1, 1), speaker="Alice")]
    scripted.handler = handler_for(lambda _i: "travel")
    report = scripted_memory.compile(facts=facts)
    travel = report.domain("travel").to_json()
    assert travel["facts"] == {"recorded": 4, "considered": 1, "pending": 0}
    ledger = next((scripted_memory.project.paths.internal / "compile" / "travel").glob("ledger-*.json"))
    assert json.loads(ledger.read_text())["considered"] == {"f0100": "too short to record"}
    scripted.requests.clear()
    scripted_memory.compile(facts=facts)
    assert scripted.requests == []


def test_unaddressed_facts_stay_pending_and_come_back(scripted_memory, scripted):
    facts = make_facts(3)

    def forget_f0001(request, reply):
        if "json" in reply and "operations" in reply["json"]:
            reply["json"]["operations"] = [op for op in reply["json"]["operations"] if op.get("sources") != ["f0001"]]
        return reply

    scripted.handler = handler_for(lambda _i: "travel", wrap=forget_f0001)
    report = scripted_memory.compile(facts=facts)
    entry = report.domain("travel")
    assert entry.to_json()["facts"] == {"recorded": 2, "considered": 0, "pending": 1}
    assert entry.repair_rounds == scripted_memory.project.config.compile.repair_rounds
    assert "facts f0001 are not addressed yet" in scripted.requests[-1].messages[-1].content
    scripted.handler = handler_for(lambda _i: "travel")
    scripted.requests.clear()
    again = scripted_memory.compile(facts=facts)
    assert again.domain("travel").to_json()["facts"] == {"recorded": 3, "considered": 0, "pending": 0}
    assert "[f0001]" in op_prompts(scripted)[0] and "[f0000]" not in op_prompts(scripted)[0].split("## NEW facts")[1]


def test_valid_operations_are_kept_and_all_problems_go_back_at_once(scripted_memory, scripted):
    facts = make_facts(3)
    rounds = {"n": 0}

    def sloppy(request, reply):
        if "json" not in reply or "operations" not in reply["json"] or rounds["n"]:
            return reply
        rounds["n"] += 1
        ops = reply["json"]["operations"]
        adds = adds_by_fact(ops)
        adds["f0000"]["values"]["start_date"] = "sometime in spring"  # a date the model got wrong
        adds["f0002"]["sources"] = ["f9999"]  # an id that is not in the batch
        ops.append({"op": "update", "id": "event-77", "set": {"text": "x"}, "sources": ["f0001"]})
        # the way models answer: a fence around the JSON
        return {"content": "```json\n" + json.dumps(reply["json"]) + "\n```"}

    scripted.handler = handler_for(lambda _i: "travel", wrap=sloppy)
    report = scripted_memory.compile(facts=facts)
    entry = report.domain("travel")
    assert entry.repair_rounds == 1 and entry.facts_recorded == 3
    repair = scripted.requests[2].messages[-1].content
    problems = repair.split("\n\n(Operation numbers")[0]
    assert problems.count("\n- ") == 4  # three rejected operations and the unaddressed facts, in one message
    assert 'expects a date as "YYYY-MM-DD"' in repair and "sources f9999 are not facts of this batch" in repair
    assert "no record 'event-77'" in repair and "facts f0000, f0002 are not addressed yet" in repair
    assert scripted.requests[2].messages[-2].role == "assistant"
    # the valid operations of the first reply were kept (both classes, the add of f0001) and the
    # repair answered only the two facts: each fact recorded once
    travel = scripted_memory.state["travel"]
    assert sorted(s for r in records(scripted_memory, "travel") for s in r.sources) == ["f0000", "f0001", "f0002"]
    assert [t.destination for t in travel["trips"]] == ["Lisbon"] and len(travel["events"]) == 2


def test_a_reply_that_is_not_json_is_repaired(scripted_memory, scripted):
    calls = {"n": 0}

    def garbage_first(request, reply):
        calls["n"] += 1
        return (
            {"content": "I will now think about the domain."}
            if domain_of_prompt(prompt_of(request)) and calls["n"] == 2
            else reply
        )

    scripted.handler = handler_for(lambda _i: "travel", wrap=garbage_first)
    report = scripted_memory.compile(facts=make_facts(2))
    assert report.domain("travel").facts_recorded == 2 and report.domain("travel").repair_rounds == 1
    assert "not valid JSON" in scripted.requests[2].messages[-1].content


def test_a_cut_off_reply_splits_the_batch(scripted_memory, scripted):
    def cut_big_batches(request, reply):
        prompt = prompt_of(request)
        if domain_of_prompt(prompt) and prompt.split("## NEW facts")[1].count("\n[f") > 2:
            return {"content": '{"operations": [{"op": "add_class", "name": "Ent', "finish_reason": "length"}
        return reply

    scripted.handler = handler_for(lambda _i: "travel", wrap=cut_big_batches)
    report = scripted_memory.compile(facts=make_facts(8))
    entry = report.domain("travel")
    assert entry.facts_recorded == 8 and entry.batches_split == 3  # 8 -> 4+4 -> 2+2+2+2
    assert entry.batches == 4 and report.ok


def test_an_endpoint_error_fails_one_domain_and_keeps_its_earlier_batches(scripted_memory, scripted):
    scripted_memory.project.save_config(scripted_memory.project.config.with_section("compile", batch_facts=5))
    facts = make_facts(40)
    calls = {"travel": 0}

    def fail_second_travel_batch(request, reply):
        if domain_of_prompt(prompt_of(request)) == "travel":
            calls["travel"] += 1
            if calls["travel"] == 2:
                return {"error": "fatal", "message": "504 Gateway Timeout"}
        return reply

    scripted.handler = handler_for(split_domain, wrap=fail_second_travel_batch)
    report = scripted_memory.compile(facts=facts)
    travel, food = report.domain("travel"), report.domain("food")
    assert travel.status == "failed" and "504 Gateway Timeout" in travel.rejection and not report.ok
    assert travel.to_json()["facts"] == {"recorded": 5, "considered": 0, "pending": 15}
    assert food.status == "compiled" and food.facts_recorded == 20
    assert len(records(scripted_memory, "travel")) == 5
    assert "`travel`" in scripted_memory.project.paths.manifest.read_text()
    # the next compile continues where it stopped
    scripted.handler = handler_for(split_domain)
    again = scripted_memory.compile(facts=facts)
    assert again.domain("travel").to_json()["facts"] == {"recorded": 20, "considered": 0, "pending": 0}


def test_records_citing_a_superseded_fact_are_revisited(scripted_memory, scripted):
    log = FactLog(scripted_memory.project.paths.facts)
    old = Fact(
        "s1-f1",
        "I work at Acme Corp as an engineer",
        "s1",
        dt.date(2023, 1, 5),
        speaker="Sam",
        valid_from=dt.date(2023, 1, 5),
    )
    with scripted_memory.project.lock("test"):
        log.append_session("s1", [old])
    scripted.handler = handler_for(lambda _i: "work")
    scripted_memory.compile()
    (record,) = records(scripted_memory, "work")
    assert record.sources == ["s1-f1"]
    new = Fact(
        "s2-f1",
        "I now work at Initech as a manager",
        "s2",
        dt.date(2023, 6, 1),
        speaker="Sam",
        valid_from=dt.date(2023, 6, 1),
    )
    with scripted_memory.project.lock("test"):
        log.append_session("s2", [new], [Supersession("s1-f1", "s2-f1", dt.date(2023, 6, 1), "s2")])
    scripted.requests.clear()
    report = scripted_memory.compile()
    prompt = op_prompts(scripted, "work")[0]
    revisit = prompt.split("REVISIT")[1].split("## NEW facts")[0]
    assert '"record": {"id": "event-1"' in revisit and "cites s1-f1, replaced by s2-f1" in revisit
    assert "[s2-f1]" in prompt.split("## NEW facts")[1]
    (revisited,) = records(scripted_memory, "work")  # updated in place, the new fact not added again
    assert revisited.id == "event-1"
    assert revisited.text == "I now work at Initech as a manager" and revisited.sources == ["s1-f1", "s2-f1"]
    assert revisited.day == dt.date(2023, 6, 1)
    assert report.domain("work").facts_pending == 0
    scripted.requests.clear()
    scripted_memory.compile()
    assert scripted.requests == []  # revisited once, not on every run


def test_new_fields_on_a_domain_with_records_and_refused_drops(scripted_memory, scripted):
    scripted.handler = handler_for(lambda _i: "travel")
    scripted_memory.compile(facts=make_facts(2))

    def evolve(request, reply):
        if (
            "json" in reply
            and "operations" in reply["json"]
            and "`events: list[Event]` (1 records)" in prompt_of(request)
        ):
            reply["json"]["operations"] = [
                {"op": "add_field", "class": "Event", "name": "mood", "type": "str | None", "default": None},
                {"op": "remove_field", "class": "Event", "name": "speaker"},
                *[
                    dict(op, values={**op["values"], "mood": "happy"}) if op["op"] == "add" else op
                    for op in reply["json"]["operations"]
                ],
            ]
        return reply

    scripted.handler = handler_for(lambda _i: "travel", wrap=evolve)
    report = scripted_memory.compile(facts=make_facts(3))
    assert report.domain("travel").facts_recorded == 3
    events = scripted_memory.state["travel"]["events"]
    assert [e.mood for e in events] == [None, "happy"] and all(e.speaker == "Alice" for e in events)
    repair = scripted.requests[-1].messages[-1].content
    assert "uac never drops data, so it cannot remove a field" in repair


def test_routing_falls_back_to_keywords_for_missed_ids(scripted_memory, scripted):
    facts = make_facts(8)

    def wrap(request, reply):
        if "Route each fact" in prompt_of(request):
            return {"json": {"routes": [{"id": "f0000", "domain": "travel"}, {"id": "f0001", "domain": "Not A Slug!"}]}}
        return reply

    scripted.handler = handler_for(wrap=wrap)
    report = scripted_memory.compile(facts=facts)
    assert report.routed_by_model == 1 and report.routed_by_keywords == 7
    assert {d.domain for d in report.domains} == {routing.classify_fact(f) for f in facts[1:]} | {"travel"}
    assert report.to_json()["totals"]["facts_recorded"] == 8


def test_a_view_written_by_the_bounded_mode_is_adopted(scripted_memory, scripted, big_facts):
    def bounded(request):
        ids = [line[1:6] for line in prompt_of(request).splitlines() if line.startswith("[f")][:3]
        state = (
            "from .schema import Item\n\nitems: list[Item] = [\n"
            + "".join(f'    Item(text="{i}", sources=["{i}"]),\n' for i in ids)
            + "]\n"
        )
        schema = "from dataclasses import dataclass, field\n\n\n@dataclass\nclass Item:\n    text: str\n    sources: list[str] = field(default_factory=list)\n"
        return {"json": {"domains": [{"name": "life", "schema_py": schema, "state_py": state}]}}

    scripted.handler = bounded
    scripted_memory.compile(mode="bounded", facts=big_facts[:3])
    scripted.handler = handler_for(lambda _i: "life")
    report = scripted_memory.compile(facts=big_facts[:5])
    life = scripted_memory.state["life"]
    assert [i.id for i in life["items"]] == ["item-1", "item-2", "item-3"]
    assert report.domain("life").facts_recorded == 5


def test_compile_needs_no_lock_holder_and_reports_json(scripted_memory, scripted):
    scripted.handler = handler_for(lambda _i: "travel")
    report = compile_incremental(
        scripted_memory.project, make_facts(2), scripted_memory.llm, scripted_memory.project.config.compile
    )
    data = report.to_json()
    assert data["domains"][0]["facts"] == {"recorded": 2, "considered": 0, "pending": 0}
    # add_class Trip, add_class Event, one add per fact
    assert data["domains"][0]["operations"]["applied"] == 4 and data["domains"][0]["batches"]["committed"] == 1


def test_a_record_that_lost_a_forgotten_fact_is_revisited(scripted_memory, scripted):
    log = FactLog(scripted_memory.project.paths.facts)
    one = Fact("s1-f1", "I adopted a dog called Rex", "s1", dt.date(2023, 1, 5), speaker="Sam")
    two = Fact("s1-f2", "Rex is a three year old beagle", "s1", dt.date(2023, 1, 5), speaker="Sam")
    with scripted_memory.project.lock("test"):
        log.append_session("s1", [one, two])

    def merge(request, reply):
        ops = reply.get("json", {}).get("operations")
        if ops and len([o for o in ops if o["op"] == "add"]) == 2:
            first, second = [o for o in ops if o["op"] == "add"]
            first["sources"] = ["s1-f1", "s1-f2"]
            ops.remove(second)
        return reply

    scripted.handler = handler_for(lambda _i: "pets", wrap=merge)
    scripted_memory.compile()
    (record,) = records(scripted_memory, "pets")
    assert record.sources == ["s1-f1", "s1-f2"]
    report = scripted_memory.forget(fact="s1-f2")
    assert report.records_revisited == 1 and report.records_removed == 0
    assert records(scripted_memory, "pets")[0].sources == ["s1-f1"]
    scripted.handler = handler_for(lambda _i: "pets")
    scripted.requests.clear()
    scripted_memory.compile()
    (prompt,) = op_prompts(scripted, "pets")
    assert "a fact it came from was forgotten" in prompt.split("REVISIT")[1]


def test_a_batch_that_cannot_be_written_leaves_its_facts_pending(scripted_memory, scripted, monkeypatch):
    from uac.compile import incremental
    from uac.dialect.problems import CodeRejected, Problem

    calls = {"n": 0}

    def flaky(real):
        def write(project, name, files):
            calls["n"] += 1
            if calls["n"] == 1:
                raise CodeRejected([Problem("domains/travel/schema.py", 3, "simulated rejection")])
            return real(project, name, files)

        return write

    # the files are swapped in after a check of what changed, or after a full load
    monkeypatch.setattr(incremental.store, "write_domain", flaky(incremental.store.write_domain))
    monkeypatch.setattr(incremental.store, "swap_domain", flaky(incremental.store.swap_domain))
    facts = make_facts(3, sessions=1)
    with scripted_memory.project.lock("test"):
        FactLog(scripted_memory.project.paths.facts).append_session("S1", facts)
    scripted.handler = handler_for(lambda _i: "travel")
    report = scripted_memory.compile()
    travel = report.domain("travel")
    assert travel.status == "failed" and "simulated rejection" in travel.rejection and not report.ok
    assert travel.to_json()["facts"] == {"recorded": 0, "considered": 0, "pending": 3}
    assert scripted_memory.doctor().check("view").data["facts"]["domains"]["travel"]["pending"] == 3
    again = scripted_memory.compile()
    assert again.domain("travel").to_json()["facts"] == {"recorded": 3, "considered": 0, "pending": 0}
    assert scripted_memory.doctor().check("view").status == "ok"


def test_enum_fields_take_no_enum_default(scripted_memory, scripted):
    from uac.compile.ops import apply_operations
    from uac.compile.working_copy import DomainWork

    work = DomainWork.empty("health")
    outcome = apply_operations(
        work,
        [
            {"op": "add_class", "name": "RaceStatus", "members": ["TRAINING", "DONE"]},
            {
                "op": "add_class",
                "name": "Race",
                "fields": [{"name": "status", "type": "RaceStatus", "default": "TRAINING"}],
            },
        ],
        set(),
    )
    assert "an enum field takes no enum default" in outcome.problems[0]


def test_a_batch_reads_back_only_the_records_it_changed(scripted_memory, scripted, monkeypatch):
    """Each batch is checked from the records it changed (not the whole domain), the files
    still load through the full validator, and the load cache holds what that load gives."""
    from uac.dialect import fastload, render
    from uac.view import store

    scripted_memory.project.save_config(scripted_memory.project.config.with_section("compile", batch_facts=4))
    scripted.handler = handler_for(lambda _i: "travel")
    facts = make_facts(80)
    scripted_memory.compile(facts=facts[:72])
    read = {"records": 0, "loads": 0}
    real_record, real_load = fastload.Builder.record, store.load_domain_dir

    def counting_record(self, name, record, args):
        read["records"] += 1
        return real_record(self, name, record, args)

    def counting_load(*args, **kwargs):
        read["loads"] += 1
        return real_load(*args, **kwargs)

    monkeypatch.setattr(fastload.Builder, "record", counting_record)
    monkeypatch.setattr(store, "load_domain_dir", counting_load)
    report = scripted_memory.compile(facts=facts)
    travel = report.domain("travel")
    assert travel.batches == 2 and travel.records == 80
    # the domain is loaded before the batches, for the manifest and for the coverage after them,
    # each time from the load cache (no record read); the batches read back their 8 new records
    assert read == {"records": 8, "loads": 3}
    monkeypatch.undo()
    fresh = store.load_domain(scripted_memory.project, "travel", cache=False)
    cached = store.load_domain(scripted_memory.project, "travel")
    assert cached.from_cache and cached.source_hash == fresh.source_hash
    assert list(cached.values) == list(fresh.values) and fresh.record_count() == 80
    for name, value in fresh.values.items():
        assert [render.flat(r) for r in cached.values[name]] == [render.flat(r) for r in value]
    assert cached.schema == fresh.schema


def test_a_disk_error_while_a_batch_is_written_keeps_the_batches_before(scripted_memory, scripted, monkeypatch):
    """Batches are written while the model answers the next one; when a write fails, the
    domain goes back to what the batch before left, that batch's facts stay pending, the
    batch answered meanwhile is planned again, and nothing is lost."""
    from uac.compile import incremental
    from uac.errors import StoreError
    from uac.view import store

    scripted_memory.project.save_config(scripted_memory.project.config.with_section("compile", batch_facts=4))
    real = store.swap_domain
    calls = {"n": 0}

    def failing_second(project, name, files):
        calls["n"] += 1
        if calls["n"] == 2:
            raise StoreError("simulated disk full")
        return real(project, name, files)

    monkeypatch.setattr(incremental.store, "swap_domain", failing_second)
    scripted.handler = handler_for(lambda _i: "travel")
    facts = make_facts(16)
    report = scripted_memory.compile(facts=facts)
    travel = report.domain("travel")
    assert "batch 2 could not be written: simulated disk full" in travel.rejection
    assert travel.batches == 3 and travel.batches_failed == 1
    assert travel.to_json()["facts"] == {"recorded": 12, "considered": 0, "pending": 4}
    assert len(records(scripted_memory, "travel")) == 12
    # the third batch was answered twice: once planned on the lost batch, once again
    third = [p for p in op_prompts(scripted, "travel") if "[f0008]" in p.split("## NEW facts", 1)[1]]
    assert len(third) == 2
    monkeypatch.undo()
    again = scripted_memory.compile(facts=facts)
    assert again.domain("travel").to_json()["facts"] == {"recorded": 16, "considered": 0, "pending": 0}
    assert sorted(s for r in records(scripted_memory, "travel") for s in r.sources) == sorted(f.id for f in facts)
    assert scripted_memory.doctor().check("view").status == "ok"
