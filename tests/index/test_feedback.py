"""Pseudo-relevance feedback for the facts' BM25 list: the words that mark the best
facts of a first ranking find a fact that shares no word with the query."""

from __future__ import annotations

import json

import pytest

from uac.index import search
from uac.index.search import LEXICAL_FEEDBACK_TERMS, LEXICAL_FEEDBACK_WEIGHT, feedback_terms
from uac.index.tokens import tokenize
from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings

SAID = [
    "I adopted a puppy named Biscuit.",
    "I bought new running shoes for the marathon.",
    "My sister Ana lives in Porto.",
    "I baked sourdough bread on Sunday.",
    "Work was busy with quarterly reports.",
    "Biscuit chewed through the garden hose.",  # no word of the query below
    "The weather was rainy all week.",
    "I started reading a novel about sailors.",
]
QUERY = "What puppy did I adopt?"


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    root = tmp_path_factory.mktemp("feedback")
    sessions = [
        # one sentence per session: a fact's BM25 text holds its own turn and the one before
        {"session_id": f"s{n}", "date": f"2024-03-{n + 1:02d}", "messages": [{"role": "user", "content": text}]}
        for n, text in enumerate(SAID)
    ]
    chat = root / "chat.json"
    chat.write_text(json.dumps(sessions), "utf-8")
    memory = UserMemory.create(root / "project", user_name="Sam")
    memory.ingest(chat, format="messages", extractor="rules")
    return memory


def _fact(memory, words: str) -> str:
    return next(f.id for f in memory.facts() if words in f.text)


def test_feedback_terms_come_from_the_best_facts(memory):
    facts = memory.context.index.channel("facts")
    adopted = _fact(memory, "adopted a puppy")
    terms = feedback_terms(facts, tokenize(QUERY), [adopted])
    assert "biscuit" in terms  # the puppy's name: rare, and in the best fact
    assert not set(terms) & set(tokenize(QUERY))  # the query's own words are not added again
    assert 0 < len(terms) <= LEXICAL_FEEDBACK_TERMS
    assert set(terms.values()) == {LEXICAL_FEEDBACK_WEIGHT}
    assert feedback_terms(facts, tokenize(QUERY), []) == {}


def test_feedback_finds_a_fact_sharing_no_word_with_the_query(memory):
    facts = memory.context.index.channel("facts")
    hose = _fact(memory, "garden hose")
    tokens = tokenize(QUERY)
    plain = facts.lexical(tokens, 10)
    assert hose not in plain  # BM25 alone cannot see it
    wider = facts.lexical(tokens, 10, extra=feedback_terms(facts, tokens, plain[:1]))
    assert plain[0] == wider[0] == _fact(memory, "adopted a puppy")  # the query's own words still lead
    assert hose in wider


def test_search_reads_the_bm25_list_again(memory, monkeypatch):
    calls = []
    real = type(memory.context.index.channel("facts")).lexical

    def counting(self, tokens, n, *, max_ordinal=None, extra=None):
        calls.append((self.channel, extra))
        return real(self, tokens, n, max_ordinal=max_ordinal, extra=extra)

    monkeypatch.setattr(type(memory.context.index.channel("facts")), "lexical", counting)
    memory.search(QUERY, k=5, channel="facts")
    assert [c for c, extra in calls if extra] == ["facts"]  # once, on the facts channel
    calls.clear()
    memory.search(QUERY, k=5, channel="all")
    assert not [c for c, extra in calls if extra]  # the fused ranking of all channels is left alone
    calls.clear()
    monkeypatch.setattr(search, "LEXICAL_FEEDBACK_TERMS", 0)
    memory.search(QUERY, k=5, channel="facts")
    assert not [c for c, extra in calls if extra]
