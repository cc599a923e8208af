"""The one repair loop every compile mode uses: what it returns, what its policy changes,
and the compile history it leaves (one line per model call, endpoint errors included)."""

from __future__ import annotations

import json

import pytest

from uac.compile.repair import FilesJudge, RepairPolicy, call_with_repair
from uac.dialect.problems import CodeRejected, Problem
from uac.errors import ModelError
from uac.fsutil import read_utf8, split_lines

from .helpers import domain_of_prompt, handler_for, make_facts, prompt_of

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def history(memory):
    path = memory.project.paths.internal / "compile_history.jsonl"
    return [json.loads(line) for line in split_lines(read_utf8(path))] if path.exists() else []


def even(data):
    if data["n"] % 2:
        raise CodeRejected([Problem("reply", 0, f"n must be even, not {data['n']}")])
    return data["n"]


def test_the_loop_sends_the_problems_back_and_returns_what_it_did(scripted, scripted_llm):
    scripted.enqueue({"json": {"n": 3}}, {"json": {"n": 4}})
    policy = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=2)
    exchange = call_with_repair(scripted_llm, "a number, please", policy, FilesJudge(even, shape='{"n": 0}'))
    assert exchange.accepted and exchange.verdict.value == 4
    assert exchange.usage.calls == 2 and exchange.usage.repair_rounds == 1
    assert [line["outcome"] for line in exchange.history] == ["rejected: reply: n must be even, not 3", "ok"]
    assert [line["attempt"] for line in exchange.history] == [0, 1]
    repair = scripted.requests[1].messages[-1].content
    assert "n must be even, not 3" in repair and '{"n": 0}' in repair


def test_the_loop_stops_after_its_rounds_and_hands_back_the_last_verdict(scripted, scripted_llm):
    scripted.enqueue({"json": {"n": 1}}, {"json": {"n": 3}}, {"json": {"n": 5}})
    policy = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=1)
    exchange = call_with_repair(scripted_llm, "a number, please", policy, FilesJudge(even, shape='{"n": 0}'))
    assert not exchange.accepted and exchange.verdict.problems == ("reply: n must be even, not 3",)
    assert exchange.usage.calls == 2 and len(scripted.requests) == 2


def test_a_strict_policy_repairs_a_reply_off_its_schema_and_a_lenient_one_judges_it(scripted, scripted_llm):
    seen = []

    def anything(data):
        seen.append(data)
        return data

    scripted.enqueue({"json": {"n": "three"}}, {"json": {"n": 3}}, {"json": {"n": "three"}})
    strict = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=1)
    exchange = call_with_repair(scripted_llm, "a number", strict, FilesJudge(anything, shape='{"n": 0}'))
    assert exchange.accepted and seen == [{"n": 3}] and exchange.usage.repair_rounds == 1
    lenient = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=1, lenient=True)
    exchange = call_with_repair(scripted_llm, "a number", lenient, FilesJudge(anything, shape='{"n": 0}'))
    assert exchange.accepted and seen[-1] == {"n": "three"} and exchange.usage.calls == 1


def test_a_first_reply_cut_off_is_handed_back_only_when_the_policy_splits(scripted, scripted_llm):
    cut = {"content": '{"n": 1', "finish_reason": "length"}
    scripted.enqueue(cut)
    splits = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=1, split_cut_off=True)
    exchange = call_with_repair(scripted_llm, "a number", splits, FilesJudge(even, shape='{"n": 0}'))
    assert (
        exchange.cut_off and exchange.verdict is None and exchange.history[0]["outcome"] == "cut off at the token limit"
    )
    scripted.enqueue(cut, {"json": {"n": 2}})
    repairs = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=1)
    exchange = call_with_repair(scripted_llm, "another number", repairs, FilesJudge(even, shape='{"n": 0}'))
    assert not exchange.cut_off and exchange.accepted and exchange.usage.repair_rounds == 1
    assert exchange.history[0]["finish_reason"] == "length" and exchange.history[0]["outcome"].startswith("rejected: ")


def test_an_endpoint_error_is_handed_back_with_the_calls_before_it(scripted, scripted_llm):
    scripted.enqueue({"json": {"n": 1}}, {"error": "fatal", "message": "504 Gateway Timeout"})
    policy = RepairPolicy(purpose="test.repair", schema_name="number", json_schema=SCHEMA, rounds=2)
    exchange = call_with_repair(scripted_llm, "a number", policy, FilesJudge(even, shape='{"n": 0}'))
    assert isinstance(exchange.endpoint_error, ModelError) and not exchange.accepted
    assert exchange.usage.calls == 1
    assert [line["attempt"] for line in exchange.history] == [0, 1]
    assert "504 Gateway Timeout" in exchange.history[1]["outcome"]


def test_a_cut_off_reply_of_one_fact_is_one_line_of_the_history(scripted_memory, scripted):
    """A batch of one fact cannot be split: its cut-off reply is repaired, and the history
    keeps one line per call (the cut-off call once, saying it stopped at the limit)."""
    calls = {"n": 0}

    def cut_first(request, reply):
        if domain_of_prompt(prompt_of(request)):
            calls["n"] += 1
            if calls["n"] == 1:
                return {"content": '{"operations": [{"op": "add_class", "name": "Ent', "finish_reason": "length"}
        return reply

    scripted.handler = handler_for(lambda _i: "travel", wrap=cut_first)
    report = scripted_memory.compile(facts=make_facts(1))
    assert report.domain("travel").facts_recorded == 1 and report.domain("travel").repair_rounds == 1
    lines = [line for line in history(scripted_memory) if line.get("purpose", "").startswith("structure.ops")]
    assert [line["attempt"] for line in lines] == [0, 1]
    assert lines[0]["finish_reason"] == "length" and lines[1]["outcome"] == "ok"


def test_the_bounded_mode_logs_an_endpoint_error_before_raising_it(scripted_memory, scripted):
    scripted.enqueue({"error": "fatal", "message": "504 Gateway Timeout"})
    with pytest.raises(ModelError, match="504 Gateway Timeout"):
        scripted_memory.compile(mode="bounded", facts=make_facts(3))
    lines = [line for line in history(scripted_memory) if line.get("mode") == "bounded"]
    assert len(lines) == 1 and "endpoint error: 504 Gateway Timeout" in lines[0]["outcome"]
