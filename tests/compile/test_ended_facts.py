"""Facts no longer in force reach the view: a plan cancelled before any compile, a job left,
a value corrected.  They are compiled with the facts that ended them (marked so), and the
record of their time is kept: the cancelled trip with its dates, the old job with its end."""

from __future__ import annotations

import datetime as dt
import json

from uac.facts.log import FactLog, Supersession
from uac.facts.model import Fact

from .helpers import domain_of_prompt, handler_for, prompt_of, records

PLANNED = dt.date(2024, 1, 10)
CANCELLED = dt.date(2024, 1, 30)


def _log_plan_and_cancel(memory) -> None:
    log = FactLog(memory.project.paths.facts)
    plan = Fact("s1-f1", "Alice plans a ski week in Chamonix, 10 to 17 February 2024.", "s1", PLANNED, speaker="Alice")
    other = Fact("s1-f2", "Alice booked a table at Sakura Tei for Friday.", "s1", PLANNED, speaker="Alice")
    cancel = Fact("s2-f1", "Alice cancelled the Chamonix ski week: her knee is hurt.", "s2", CANCELLED, speaker="Alice")
    with memory.project.lock("test"):
        log.append_session("s1", [plan, other])
        log.append_session("s2", [cancel], [Supersession("s1-f1", "s2-f1", CANCELLED, "s2", "cancels")])


def test_a_plan_cancelled_before_any_compile_is_compiled_as_ended_and_kept(scripted_memory, scripted):
    memory = scripted_memory
    _log_plan_and_cancel(memory)
    assert [f.id for f in memory.facts()] == ["s1-f2", "s2-f1"]  # the plan is no longer in force
    seen: list[str] = []

    def answer(request, reply):
        prompt = prompt_of(request)
        if domain_of_prompt(prompt) != "travel" or "These NEW facts are no longer in force" not in prompt:
            return reply
        seen.append(prompt)
        ops = {
            "operations": [
                {
                    "op": "add_class",
                    "name": "Trip",
                    "doc": "A trip.",
                    "fields": [
                        {"name": "destination", "type": "str"},
                        {"name": "when", "type": "Period | None", "default": None},
                        {"name": "status", "type": "str"},
                    ],
                },
                {
                    "op": "add",
                    "collection": "trips",
                    "class": "Trip",
                    "values": {"destination": "Chamonix", "when": "2024-02-10/2024-02-17", "status": "cancelled"},
                    "sources": ["s1-f1", "s2-f1"],
                },
            ]
        }
        # the way models answer: reasoning, then prose around a fenced reply
        return {
            "content": "<think>The plan was cancelled later.</think>\nHere you go:\n```json\n"
            + json.dumps(ops)
            + "\n```"
        }

    scripted.handler = handler_for(lambda i: "food" if i == "s1-f2" else "travel", wrap=answer)
    report = memory.compile()
    (prompt,) = seen
    new_part = prompt.split("## NEW facts", 1)[1]
    assert "[s1-f1]" in new_part and "- s1-f1: cancelled by s2-f1" in new_part
    (trip,) = records(memory, "travel")
    assert trip.destination == "Chamonix" and trip.status == "cancelled"
    assert str(trip.when.start) == "2024-02-10" and trip.sources == ["s1-f1", "s2-f1"]
    # the counts are of the facts in force: the ended plan is not one of them
    assert report.domain("travel").to_json()["facts"] == {"recorded": 1, "considered": 0, "pending": 0}
    assert report.facts_total == 2
    # the next compile has nothing to do: the record was made knowing the plan had ended
    scripted.requests.clear()
    again = memory.compile()
    assert scripted.requests == [] and again.domain("travel").to_json()["facts"]["recorded"] == 1


def test_only_facts_ended_by_facts_being_compiled_join_them():
    from uac.compile.incremental import ended_facts

    day = dt.date(2024, 1, 1)
    a = Fact("a", "works at Kestrel", "s1", day, superseded_by="b")
    b = Fact("b", "works at Brightwater", "s2", day, superseded_by="c")
    c = Fact("c", "works at Initech", "s3", day)
    d = Fact("d", "lives in Leeds", "s1", day, superseded_by="e")
    e = Fact("e", "lives in York", "s2", day)

    class Folded:
        facts = {f.id: f for f in (a, b, c, d, e)}

    assert set(ended_facts(Folded, {"c": c, "e": e})) == {"a", "b", "d"}  # a chain of two, followed
    assert set(ended_facts(Folded, {"c": c})) == {"a", "b"}  # a compile of a subset: Leeds is not its
    assert ended_facts(Folded, {}) == {}


def test_the_protocol_model_leaves_an_ended_fact_out_with_a_reason(scripted_memory, scripted):
    memory = scripted_memory
    _log_plan_and_cancel(memory)
    scripted.handler = handler_for(lambda i: "travel")
    report = memory.compile()
    assert report.domain("travel").to_json()["facts"]["pending"] == 0
    assert report.domain("travel").to_json()["facts"]["recorded"] == 2  # the facts in force
    assert all("s1-f1" not in r.sources for r in records(memory, "travel"))  # no trip from the ended plan
    prompts = [prompt_of(r) for r in scripted.requests if domain_of_prompt(prompt_of(r)) == "travel"]
    assert any("- s1-f1: cancelled by s2-f1" in p for p in prompts)
