"""Candidates of reconcile: found by what a fact is about, at a bounded cost."""

from __future__ import annotations

import datetime as dt
import time

from uac.facts.model import Fact
from uac.memorize.reconcile import is_plan, looks_like_change, read_changes
from uac.memorize.topics import COMMON_KEY, MAX_CANDIDATES, TopicIndex

DAY = dt.date(2023, 1, 1)
THINGS = ["pottery", "chess", "salsa", "sourdough", "cycling", "guitar", "birdwatching", "sudoku", "karaoke", "origami"]


def fact(number: int, text: str, speaker: str = "Maya") -> Fact:
    return Fact(f"s{number}-f1", text, f"s{number}", DAY + dt.timedelta(days=number // 30), ("D1:1",), speaker)


def memory_of(count: int) -> list[Fact]:
    """``count`` facts, all Maya's, every one mentioning her garden, with a few topics each."""
    out = [fact(0, "Maya plans to run the Berlin marathon in September.")]
    out.append(fact(1, "Theo plans to visit Berlin for the marathon expo.", "Theo"))
    for number in range(2, count):
        thing = THINGS[number % len(THINGS)]
        out.append(fact(number, f"Maya practised {thing} in her garden session {number}."))
    return out


def test_candidates_come_by_subject_and_entities_not_by_recency():
    index = TopicIndex(memory_of(10_000))
    new = fact(20_000, "Maya cancelled the Berlin marathon, her knee hurts.")
    found = index.candidates(new)
    assert found[0].id == "s0-f1"  # 9,998 facts are more recent
    assert "s1-f1" not in [f.id for f in found]  # Theo's plan does not name Maya
    assert len(found) <= MAX_CANDIDATES
    assert index.candidates(fact(20_001, "Theo cancelled the Berlin trip.", "Theo"))[0].id == "s1-f1"


def test_keys_too_common_to_name_a_topic_are_not_looked_up_and_the_cost_stays_bounded():
    facts = memory_of(10_000)
    started = time.perf_counter()
    index = TopicIndex(facts)
    built = time.perf_counter() - started
    # "garden" is in 9,998 facts and "pottery" in a thousand: neither says which fact is meant
    assert index.candidates(fact(20_000, "Maya actually sold her garden pottery wheel.")) == []
    started = time.perf_counter()
    for number in range(200):
        index.candidates(fact(30_000 + number, f"Maya no longer does {THINGS[number % 10]} in the garden."))
    looked = time.perf_counter() - started
    assert built < 5.0 and looked < 1.0, (built, looked)  # generous: a shared 2-core machine
    assert len([f for f in facts if "garden" in f.text]) > COMMON_KEY


def test_what_looks_like_a_change_or_a_plan():
    assert looks_like_change(fact(1, "Maya cancelled the trip to Kyoto."))
    assert looks_like_change(fact(1, "Lena is actually a doctor, not a nurse."))
    assert looks_like_change(fact(1, "Maya no longer plays the cello."))
    assert not looks_like_change(fact(1, "Maya went hiking with Theo."))
    assert is_plan(fact(1, "Maya is planning a trip to Kyoto in June."))
    assert not is_plan(fact(1, "Maya went to Kyoto in June."))


def test_a_reply_that_does_not_parse_keeps_its_whole_pairs():
    cut = '<think>pairs</think>```json\n{"changes": [{"new": "s2-f1", "old": "s1-f1", "relation": "cancels"}, {"new": "s2-f2", "ol'
    assert read_changes(cut) == ([{"new": "s2-f1", "old": "s1-f1", "relation": "cancels"}], False, 1)
    whole = 'Sure: {"changes": [{"new": "s2-f1", "old": "s1-f1", "relation": "fulfils"}]} Done.'
    assert read_changes(whole) == ([{"new": "s2-f1", "old": "s1-f1", "relation": "fulfils"}], True, 0)
    assert read_changes("I cannot tell.") == ([], False, 0)


def test_a_person_in_many_facts_does_not_alone_make_a_candidate():
    """Tom is in a third of the facts: sharing only him says nothing about the topic, while a
    fact that shares him and the thing itself still comes first."""
    topics = ["dinner at Sakura Tei", "a walk by the canal", "the cinema", "a pub quiz", "brunch at Rijsel"]
    earlier = [fact(n, f"Hannah went to {topics[n % len(topics)]} with Tom, evening {n}.", "Hannah") for n in range(40)]
    earlier += [fact(100 + n, f"Hannah repotted plant number {n} on the balcony.", "Hannah") for n in range(80)]
    earlier.append(fact(300, "Hannah and Tom's old kettle broke, they are looking at kettles.", "Hannah"))
    index = TopicIndex(earlier)
    found = [f.id for f in index.candidates(fact(400, "Hannah and Tom bought a new kettle for 40 pounds.", "Hannah"))]
    assert found == ["s300-f1"]
    # a rare name still makes a candidate by itself
    rijsel = index.candidates(fact(401, "Hannah cancelled the Rijsel booking.", "Hannah"))
    assert rijsel and all("Rijsel" in f.text for f in rijsel)
