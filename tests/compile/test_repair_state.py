"""A repair request shows the domain as the operations already applied left it, and the
same operations and rules as the first prompt."""

from __future__ import annotations

import json

from .helpers import adds_by_fact, domain_of_prompt, handler_for, make_facts, prompt_of, records


def test_the_repair_shows_the_applied_classes_and_records_and_the_first_prompts_rules(scripted_memory, scripted):
    facts = make_facts(4)
    sent = {"n": 0}

    def one_bad_add(request, reply):
        if "json" not in reply or "operations" not in reply["json"] or sent["n"]:
            return reply
        sent["n"] += 1
        adds_by_fact(reply["json"]["operations"])["f0003"]["values"]["day"] = "sometime"
        # the way models answer: reasoning, then prose around a fenced reply
        return {
            "content": "<think>one add per fact</think>Here are the operations:\n```json\n"
            + json.dumps(reply["json"])
            + "\n```"
        }

    scripted.handler = handler_for(lambda _i: "travel", wrap=one_bad_add)
    report = scripted_memory.compile(facts=facts)
    assert report.domain("travel").facts_recorded == 4 and report.domain("travel").repair_rounds == 1
    first = next(prompt_of(r) for r in scripted.requests if domain_of_prompt(prompt_of(r)))
    repair = next(r for r in scripted.requests if len(r.messages) > 2).messages[-1].content
    assert "operation" in repair and "f0003 are not addressed yet" in repair
    now = repair.split("## The domain now")[1]
    assert "The domain is empty" not in now
    assert '{"name": "Trip"' in now and '{"name": "Event"' in now and "`trips: list[Trip]` (1 records)" in now
    assert (
        '{"id": "trip-1", "class": "Trip"' in now
        and '{"id": "event-1", "class": "Event"' in now
        and '{"id": "event-2"' in now
    )
    # the rules are those of the first prompt, word for word: periods allowed, correct and cite offered
    rules = first.split("## What to answer")[1].split("in the order they should be applied. ", 1)[1]
    assert rules in repair and '"2023-summer"' in rules and '"op": "correct"' in rules and '"op": "cite"' in rules
    assert len(records(scripted_memory, "travel")) == 4
