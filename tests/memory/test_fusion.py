"""Reciprocal rank fusion and the repeat penalty, without any model."""

from __future__ import annotations

import pytest

from uac.index.search import REPEAT_PENALTY, _diversify, rrf
from uac.index.entry import Entry
from uac.index.tokens import tokenize


def test_rrf_scores_are_sums_of_reciprocal_ranks():
    fused = dict(rrf([["a", "b", "c"], ["b", "d"]]))
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["c"] == pytest.approx(1 / 63)
    assert fused["d"] == pytest.approx(1 / 62)
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


def test_tokenize_stems_and_drops_stop_words():
    assert tokenize("Caroline's paintings were painted at the lakes") == ["caroline", "paint", "paint", "lake"]
