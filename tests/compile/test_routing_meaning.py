"""Routing facts by meaning (the bundled embedding model against the domains'
descriptions), measured on a labelled set of chat sentences against the keyword
classifier alone."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uac.compile import route_meaning as meaning
from uac.compile import routing
from uac.facts.model import Fact

from .routing_sentences import HELD_OUT, LABELLED


def _facts(pairs):
    return [Fact(f"L{n:03d}", text, "S1", dt.date(2024, 3, 1), speaker="Maya") for n, (text, _) in enumerate(pairs)]


def accuracy(routes: dict[str, str], pairs) -> float:
    facts = _facts(pairs)
    return sum(routes[f.id] == want for f, (_, want) in zip(facts, pairs)) / len(pairs)


@pytest.fixture(scope="module")
def figures():
    out = {}
    for name, pairs in (("labelled", LABELLED), ("held_out", HELD_OUT)):
        facts = _facts(pairs)
        out[name] = (
            accuracy(routing.route_by_keywords(facts).routes, pairs),
            accuracy(meaning.route_by_meaning(facts).routes, pairs),
        )
    return out


def test_the_labelled_sets_cover_every_domain():
    assert len(LABELLED) >= 60
    for pairs in (LABELLED, HELD_OUT):
        assert {want for _, want in pairs} == set(routing.DOMAINS)


def test_meaning_beats_keywords_on_the_labelled_sentences(figures, capsys):
    with capsys.disabled():
        for name, (words, sense) in figures.items():
            print(f"\nrouting accuracy, {name}: keywords {words:.3f}, by meaning {sense:.3f}")
    for words, sense in figures.values():
        assert sense >= words + 0.2
    assert figures["labelled"][1] >= 0.8 and figures["held_out"][1] >= 0.7


@pytest.mark.parametrize(
    "text, domain",
    [
        ("Got back from Lisbon", "travel"),
        ("Spent five nights in Rome", "travel"),
        ("Flew to Porto for a wedding", "travel"),
        ("Had ramen with Ana", "food"),
        ("Thanks, talk soon!", "general"),
    ],
)
def test_sentences_without_keywords_route_by_meaning(text, domain):
    routed = meaning.route_by_meaning(_facts([(text, domain)]))
    assert list(routed.routes.values()) == [domain]


def test_a_hint_wins_and_counts_as_keywords():
    fact = Fact("h1", "Got back from Lisbon", "S1", None, meta={"domain": "work"})
    routed = meaning.route_by_meaning([fact])
    assert routed.routes == {"h1": "work"} and routed.by_keywords == 1 and routed.by_meaning == 0


def test_routing_is_deterministic_and_counts_how():
    facts = _facts(LABELLED)
    first, second = meaning.route_by_meaning(facts), meaning.route_by_meaning(list(reversed(facts)))
    assert first.routes == second.routes
    assert first.by_meaning + first.by_keywords == len(facts) and first.by_meaning > first.by_keywords
    assert first.embedded == len(facts)


def test_stored_vectors_are_used_instead_of_embedding():
    from uac.index.embeddings import get_embedder

    facts = _facts([("Got back from Lisbon", "travel"), ("Had ramen with Ana", "food")])
    vectors = get_embedder().encode([f.text for f in facts])
    # swapped on purpose: the router must read the vectors it is given, not embed the texts
    stored = {facts[0].id: vectors[1], facts[1].id: vectors[0]}
    routed = meaning.route_by_meaning(facts, stored)
    assert routed.routes == {facts[0].id: "food", facts[1].id: "travel"} and routed.embedded == 0


def test_offline_compile_reads_the_index_vectors_and_reports_both_counts(memory, tmp_path):
    conversation = tmp_path / "chat.json"
    turns = [
        {"speaker": "Maya", "dia_id": "D1:1", "text": "Got back from Lisbon last night."},
        {"speaker": "Leo", "dia_id": "D1:2", "text": "How was it?"},
        {"speaker": "Maya", "dia_id": "D1:3", "text": "We had ramen with Ana on the last evening."},
    ]
    conversation.write_text(
        json.dumps(
            {
                "sample_id": "r1",
                "conversation": {
                    "speaker_a": "Maya",
                    "speaker_b": "Leo",
                    "session_1_date_time": "6:10 pm on 14 March, 2024",
                    "session_1": turns,
                },
            }
        )
    )
    memory.ingest(conversation, extractor="rules")
    facts = memory.facts()
    stored = meaning.stored_vectors(memory.project, facts)
    assert set(stored) == {f.id for f in facts}
    report = memory.compile(mode="offline")
    data = report.to_json()["routing"]
    assert data["by_meaning"] + data["by_keywords"] == len(facts) and data["by_meaning"] >= 1
    assert "travel" in memory.state


def test_a_fact_routes_the_same_alone_or_in_a_batch():
    from uac.index.embeddings import get_embedder

    facts = _facts(LABELLED[:20])
    vectors = get_embedder().encode([f.text for f in facts])
    stored = {f.id: vectors[n] for n, f in enumerate(facts)}
    together = meaning.route_by_meaning(facts, stored).routes
    alone = {f.id: meaning.route_by_meaning([f], {f.id: stored[f.id]}).routes[f.id] for f in facts}
    assert alone == together
