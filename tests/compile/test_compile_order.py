"""The order domains compile in: a thing's main domain first, so the domains that record
their side of it can refer to its record (``food`` before ``finance``, whatever the names)."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest

from uac.compile.order import main_first, pulls
from uac.facts.model import Fact
from uac.llm import LLMClient, ScriptedProvider
from uac.llm.parallel import map_ordered

from .helpers import FACT_ID, domain_of_prompt, prompt_of, protocol_handler


def test_without_shared_facts_the_domains_run_in_name_order():
    assert main_first(["work", "food", "finance"], pulls([["food"], ["work"]])) == (
        ["finance", "food", "work"],
        {"finance": set(), "food": set(), "work": set()},
    )


def test_a_main_domain_runs_before_the_domains_that_share_its_facts():
    order, after = main_first(
        ["finance", "food", "travel"], pulls([["food", "finance"], ["travel", "finance", "food"]])
    )
    assert order == ["travel", "food", "finance"]
    assert after == {"travel": set(), "food": {"travel"}, "finance": {"food", "travel"}}


def test_facts_pulling_both_ways_the_heavier_direction_wins():
    routes = [["food", "finance"]] * 3 + [["finance", "food"]]
    assert main_first(["finance", "food"], pulls(routes)) == (["food", "finance"], {"food": set(), "finance": {"food"}})
    # a cycle of three: the lightest pull is the one dropped
    routes = [["a", "b"]] * 3 + [["b", "c"]] * 3 + [["c", "a"]]
    order, after = main_first(["a", "b", "c"], pulls(routes))
    assert order == ["a", "b", "c"] and after == {"a": set(), "b": {"a"}, "c": {"b"}}


def test_domains_outside_the_compile_and_self_routes_are_ignored():
    assert main_first(["finance"], pulls([["food", "finance"], ["finance", "finance"]])) == (
        ["finance"],
        {"finance": set()},
    )


def test_a_unit_starts_after_the_units_it_waits_for_and_the_others_run_meanwhile():
    events: list[str] = []
    lock = threading.Lock()

    def run(name: str) -> str:
        with lock:
            events.append(f"start {name}")
        time.sleep(0.2 if name == "slow" else 0.01)
        with lock:
            events.append(f"end {name}")
        return name.upper()

    started = time.monotonic()
    assert map_ordered(None, run, ["slow", "free", "after"], workers=2, after={2: {0}}) == ["SLOW", "FREE", "AFTER"]
    assert events.index("start after") > events.index("end slow")
    assert events.index("end free") < events.index("end slow")  # the free unit did not wait
    assert time.monotonic() - started < 2


def test_a_unit_waiting_for_one_that_failed_still_runs_and_the_first_error_is_raised():
    ran: list[str] = []

    def run(name: str) -> None:
        if name == "bad":
            raise RuntimeError("the endpoint went away")
        ran.append(name)

    with pytest.raises(RuntimeError, match="went away"):
        map_ordered(None, run, ["bad", "after"], workers=2, after={1: {0}})


def test_waiting_for_a_later_unit_is_refused():
    with pytest.raises(ValueError, match="list those first"):
        map_ordered(None, lambda x: x, ["a", "b"], workers=2, after={0: {1}})


def _routed(main_of: dict[str, list[str]]):
    def handler(request):
        prompt = prompt_of(request)
        if "Route each fact" in prompt:
            ids = FACT_ID.findall(prompt.split("Facts (one per line", 1)[1])
            return {"json": {"routes": [{"id": i, "domains": main_of[i]} for i in ids]}}
        return protocol_handler(request)

    return handler


@pytest.mark.parametrize("concurrency", [1, 3])
def test_the_side_of_a_trip_in_a_domain_named_before_travel_refers_to_the_trip(project_dir, concurrency):
    """``finance`` comes before ``travel`` by name: compiled first, it could not see the
    trip and recorded its side without a reference."""
    from uac.memory import UserMemory

    provider = ScriptedProvider(handler=_routed({"f1": ["travel", "finance"], "f2": ["food"]}))
    day = dt.date(2024, 5, 2)
    facts = [
        Fact(id="f1", text="Alice flew to Bristol for her cousin's wedding.", session_id="S1", session_date=day),
        Fact(id="f2", text="Alice had sushi for dinner.", session_id="S1", session_date=day),
    ]
    llm = LLMClient(provider, sleep=lambda _s: None, concurrency=concurrency)
    with UserMemory.create(project_dir, user_name="Alice", llm=llm) as memory:
        memory.compile(facts=facts)
        (trip,) = memory.state["travel"].trips
        (event,) = memory.state["finance"].events
        assert event.sources == ["f1"] and event.about.code == "travel/trip-1"
        assert memory.state.resolve(event.about).destination == "Bristol"
        report = memory.compile(facts=facts)
    assert [d.domain for d in report.domains] == ["finance", "food", "travel"]  # the report keeps name order
    compiled = [domain_of_prompt(prompt_of(r)) for r in provider.requests if domain_of_prompt(prompt_of(r))]
    assert compiled.index("travel") < compiled.index("finance")
