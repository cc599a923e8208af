"""Reciprocal rank fusion, the repeat penalty and the lean towards a named speaker, without any model."""

from __future__ import annotations

import pytest

from uac.facts.table import NONE, OPEN, FactTable
from uac.index.entry import Entry
from uac.index.search import (
    OTHER_SPEAKER_FACTOR,
    QUESTION_FACTOR,
    REPEAT_PENALTY,
    RRF_K,
    _diversify,
    _prefer_named_speaker,
    named_speaker,
    query_focus,
    rrf,
)
from uac.index.tokens import tokenize


def test_rrf_scores_are_sums_of_reciprocal_ranks():
    fused = dict(rrf([["a", "b", "c"], ["b", "d"]]))
    assert RRF_K == 20
    assert fused["a"] == pytest.approx(1 / 21)
    assert fused["b"] == pytest.approx(1 / 22 + 1 / 21)
    assert fused["c"] == pytest.approx(1 / 23)
    assert fused["d"] == pytest.approx(1 / 22)
    assert dict(rrf([["a", "b"]], k=60))["b"] == pytest.approx(1 / 62)
    assert [item for item, _ in rrf([["a", "b", "c"], ["b", "d"]])] == ["b", "a", "d", "c"]


def test_rrf_ties_keep_first_seen_order():
    assert [item for item, _ in rrf([["x"], ["y"]])] == ["x", "y"]


class _Channel:
    def __init__(self, entries):
        self.entries = {e.id: e for e in entries}

    def entry(self, entry_id):
        return self.entries[entry_id]


class _Index:
    def __init__(self, entries):
        self._channel = _Channel(entries)

    def channel(self, name):
        return self._channel


def test_hits_repeating_covered_turns_move_down():
    entries = [
        Entry("f1", "a", "a", "s1", "2024-01-01", ["D1:1"]),
        Entry("f2", "b", "b", "s1", "2024-01-01", ["D1:1"]),  # same turn as f1
        Entry("f3", "c", "c", "s1", "2024-01-01", ["D1:2"]),
    ]
    fused = [(("facts", "f1"), 0.030), (("facts", "f2"), 0.029), (("facts", "f3"), 0.020)]
    out = _diversify(_Index(entries), fused, k=3)
    assert [item for (_, item), _ in out] == ["f1", "f3", "f2"]
    assert dict((item, score) for (_, item), score in out)["f2"] == pytest.approx(0.029 * REPEAT_PENALTY)


def test_questions_move_down_but_stay():
    entries = [
        Entry("f1", "Ben asked: Where did Ann go?", "", "s1", "2024-01-01", ["D1:1"]),
        Entry("f2", "Ann went to Lisbon.", "", "s1", "2024-01-01", ["D1:2"]),
    ]
    fused = [(("facts", "f1"), 0.030), (("facts", "f2"), 0.020)]
    out = _diversify(_Index(entries), fused, k=2)
    assert [item for (_, item), _ in out] == ["f2", "f1"]
    assert dict((item, score) for (_, item), score in out)["f1"] == pytest.approx(0.030 * QUESTION_FACTOR)


def test_tokenize_stems_and_drops_stop_words():
    # a final e goes too ("lake" meets "lakes"; the same stem on both sides, names included)
    assert tokenize("Caroline's paintings were painted at the lakes") == ["carolin", "paint", "paint", "lak"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("What does Melanie paint?", "Melanie"),
        ("what did melanie's kids like?", "Melanie"),
        ("Where did Caroline move from?", "Caroline"),
        ("What did Caroline tell Melanie?", None),  # both named: no lean
        ("Where is the lake?", None),
        ("Is Mel around?", None),  # a nickname is no name
    ],
)
def test_named_speaker(query, expected):
    assert named_speaker(query, ["Caroline", "Melanie"]) == expected


def _table(speakers: list[str | None]) -> FactTable:
    names = sorted({s for s in speakers if s})
    return FactTable(
        ids=[f"f{n}" for n in range(len(speakers))],
        start=[NONE] * len(speakers),
        end=[OPEN] * len(speakers),
        event=[NONE] * len(speakers),
        event_end=[NONE] * len(speakers),
        speaker=[names.index(s) if s else -1 for s in speakers],
        speaker_names=names,
    )


def test_facts_of_the_named_speaker_move_up():
    table = _table(["Caroline", "Melanie", None, "Melanie"])
    fused = [
        (("facts", "f0"), 0.030),
        (("facts", "f1"), 0.029),
        (("facts", "f2"), 0.028),
        (("archive", "c1"), 0.027),
        (("facts", "f3"), 0.020),
    ]
    text, person = query_focus(table, "What does Melanie paint?")
    assert (text, person) == ("What does paint?", "Melanie")
    out = _prefer_named_speaker(table, person, fused)
    assert [item for (_, item), _ in out] == ["f1", "f2", "c1", "f3", "f0"]
    assert dict((item, score) for (_, item), score in out)["f0"] == pytest.approx(0.030 * OTHER_SPEAKER_FACTOR)
    assert _prefer_named_speaker(table, None, fused) == fused


@pytest.mark.parametrize(
    "speakers, query, channel, expected",
    [
        (["Caroline", "Melanie"], "What do Melanie's kids like?", "facts", ("What do kids like?", "Melanie")),
        (["Caroline", "Melanie"], "what did melanie paint?", "all", ("what did paint?", "Melanie")),
        # naming nobody, or both: the query as it is
        (["Caroline", "Melanie"], "What is painted?", "facts", ("What is painted?", None)),
        (["Caroline", "Melanie"], "Did Caroline meet Melanie?", "facts", ("Did Caroline meet Melanie?", None)),
        # the archive channel has no speakers to lean towards
        (["Caroline", "Melanie"], "What did Melanie paint?", "archive", ("What did Melanie paint?", None)),
        # with a single speaker there is nobody to prefer
        (["Melanie"], "What did Melanie paint?", "facts", ("What did Melanie paint?", None)),
        # nothing but the name: it stays
        (["Caroline", "Melanie"], "Melanie?", "facts", ("Melanie?", "Melanie")),
    ],
)
def test_query_focus(speakers, query, channel, expected):
    assert query_focus(_table(speakers), query, channel) == expected
