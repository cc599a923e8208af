"""The channels agree on what is current: for a question about now, an archive excerpt that
states a superseded fact ranks below the fact in force (demoted, not removed)."""

from __future__ import annotations

import pytest

from uac.index.search import hybrid_search
from uac.memory import UserMemory

pytestmark = pytest.mark.embeddings


@pytest.fixture(scope="module")
def initech(tmp_path_factory):
    memory = UserMemory.create(tmp_path_factory.mktemp("now") / "sam", user_name="Sam")

    def say(date, *lines):
        memory.add_session(
            {"date": date, "messages": [{"role": "user", "content": line} for line in lines]}, extractor="rules"
        )

    say("2023-01-10", "I work at Acme Corp.")
    say(
        "2023-02-10",
        "I baked bread with my sister on Sunday.",
        "Where I work now the coffee is awful.",
        "Work has been busy now that spring is here.",
    )
    say("2024-03-01", "I now work at Initech.")
    yield memory
    memory.close()


def _ids(hits):
    return [(h.channel, h.text) for h in hits]


def _position(hits, channel, words):
    return next(n for n, h in enumerate(hits) if h.channel == channel and words in h.text)


def test_the_superseded_excerpt_ranks_below_the_fact_in_force(initech):
    [acme] = [f for f in initech.facts(include_superseded=True) if "Acme" in f.text]
    assert acme.invalid_at is not None  # "I now work at Initech." superseded it
    hits = initech.search("Where do I work now?", k=8)
    excerpt = _position(hits, "archive", "I work at Acme Corp.")
    fact = _position(hits, "facts", "now works at Initech")
    assert fact < excerpt  # without the rule the excerpt came first (4th against 5th)
    assert hits[excerpt].score < min(h.score for h in hits[:excerpt])
    # what the index alone ranks: the excerpt before the fact in force
    ctx = initech.context
    raw = hybrid_search(ctx.index, ctx.fact_table(), "Where do I work now?", k=8)
    assert _position(raw, "archive", "I work at Acme Corp.") < _position(raw, "facts", "now works at Initech")


def test_the_excerpt_is_kept_and_other_questions_rank_as_before(initech):
    ctx = initech.context
    for question in ("Where did I work in January 2023?", "Who did I bake bread with?"):
        raw = hybrid_search(ctx.index, ctx.fact_table(), question, k=8)
        assert _ids(initech.search(question, k=8)) == _ids(raw)
    assert any("Acme" in h.text for h in initech.search("Where do I work now?", k=8, channel="archive"))


def test_the_answer_context_lists_the_current_excerpt_first(initech):
    answer = initech.ask("Where do I work now?", top_archive=5)
    texts = [item.text for item in answer.archive]
    acme = next(n for n, t in enumerate(texts) if "Acme" in t)
    initech_excerpt = next(n for n, t in enumerate(texts) if "Initech" in t)
    assert initech_excerpt < acme == len(texts) - 1
    # below the others, not tied with them (without the rule it tied with the bread excerpt)
    others = [item.score for n, item in enumerate(answer.archive) if n != acme]
    assert answer.archive[acme].score <= 0.5 * min(others)


def test_an_excerpt_that_also_states_the_replacement_is_not_demoted(tmp_path):
    memory = UserMemory.create(tmp_path / "ana", user_name="Ana")
    memory.add_session(
        {"date": "2023-01-10", "messages": [{"role": "user", "content": "I work at Acme Corp."}]}, extractor="rules"
    )
    memory.add_session(
        {
            "date": "2024-03-01",
            "messages": [{"role": "user", "content": "I work at Acme Corp. Scratch that: I now work at Initech."}],
        },
        extractor="rules",
    )
    ctx = memory.context
    question = "Where do I work now?"
    raw = hybrid_search(ctx.index, ctx.fact_table(), question, k=8)
    kept = [h for h in memory.search(question, k=8) if h.channel == "archive" and "Initech" in h.text]
    assert kept and kept[0].score == next(h.score for h in raw if h.id == kept[0].id)
    memory.close()
