"""Iterative evidence selection (Membase Algorithm 1) with a scripted decider."""

from __future__ import annotations

import json

from uac.answer.iterative import select_evidence
from uac.answer.model import EvidenceItem


def item(i, score, channel="facts"):
    return EvidenceItem(
        id=f"F{i}", channel=channel, text=f"fact {i}", score=score, session_id="s", session_date="2024-01-01"
    )


CORPUS = {
    "when did Ana visit": [item(1, 0.05), item(2, 0.04), item(3, 0.03)],
    "Ana flight date": [item(4, 0.06), item(2, 0.05)],
    "Ana hotel": [item(5, 0.02)],
}


def search(query, channel, k):
    return CORPUS.get(query, [])[:k]


def test_core_persists_follow_ups_run_and_max_score_is_kept(scripted, scripted_llm):
    scripted.enqueue(
        {"json": {"selected": ["F1"], "follow_up_queries": ["Ana flight date"], "sufficient": False}},
        {"json": {"selected": ["F4"], "follow_up_queries": [], "sufficient": True}},
    )
    selection = select_evidence(scripted_llm, "when did Ana visit", search, channels=[("facts", 10)], rounds=3)
    assert selection.queries == ["when did Ana visit", "Ana flight date"]
    assert selection.rounds == 2
    ids = [i.id for i in selection.items]
    # core first (by best score: F4 0.06 > F1 0.05), then the reservation, then the rest
    assert ids[:2] == ["F4", "F1"]
    assert set(ids) == {"F1", "F2", "F3", "F4"} and len(ids) == len(set(ids))
    f2 = next(i for i in selection.items if i.id == "F2")
    assert f2.score == 0.05  # max over the two queries that found it (eq. 2)
    # the second decider prompt shows F1 as already selected
    second = scripted.requests[1].messages[-1].content
    assert "Evidence already selected" in second and "[F1 |" in second.split("New candidates")[0]


def test_rounds_are_bounded(scripted, scripted_llm):
    corpus_queries = iter(f"q{i}" for i in range(100))

    def endless(query, channel, k):
        return [item(hash(query) % 1000, 0.01)]

    for _ in range(10):
        scripted.enqueue({"json": {"selected": [], "follow_up_queries": [next(corpus_queries)], "sufficient": False}})
    selection = select_evidence(scripted_llm, "q", endless, channels=[("facts", 5)], rounds=3, patience=10)
    assert selection.rounds == 3 and len(scripted.requests) == 3


def test_no_progress_stops_after_patience(scripted, scripted_llm):
    for i in range(5):
        scripted.enqueue({"json": {"selected": [], "follow_up_queries": [f"more {i}"], "sufficient": False}})
    selection = select_evidence(
        scripted_llm, "when did Ana visit", search, channels=[("facts", 5)], rounds=5, patience=2
    )
    assert selection.rounds == 2


def test_decider_failure_falls_back_to_first_candidates(scripted, scripted_llm):
    scripted.enqueue("not json", "still not json")
    selection = select_evidence(
        scripted_llm, "when did Ana visit", search, channels=[("facts", 10)], rounds=1, fallback=2, retries=1
    )
    assert selection.decider_failures == 1
    assert selection.core_ids == ["F1", "F2"]


def test_output_is_capped_and_unique(scripted, scripted_llm):
    scripted.enqueue({"json": {"selected": ["F1", "F2", "F3"], "follow_up_queries": [], "sufficient": True}})
    selection = select_evidence(scripted_llm, "when did Ana visit", search, channels=[("facts", 10)], k=2)
    assert [i.id for i in selection.items] == ["F1", "F2"]
    assert json.loads(json.dumps(selection.to_json()))["core"] == ["F1", "F2", "F3"]
