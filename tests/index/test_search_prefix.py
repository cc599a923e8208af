"""A search's first hits do not depend on how many hits were asked for (k up to 20):
``search(q, k=10)`` is ``search(q, k=20)[:10]``, in every channel."""

from __future__ import annotations

import json

import pytest

from uac.index import search
from uac.memory import UserMemory

from .conftest import varied_sentences

pytestmark = pytest.mark.embeddings

QUERIES = [
    "What did Caroline do last weekend?",
    "Which pottery class did Melanie sign up for?",
    "Who adopted a cat?",
    "How fast was the 10k?",
    "trip to Lisbon",
    "What did Zoë cook with friends?",
    "Who lost a job?",
]


@pytest.fixture(scope="module")
def memory(tmp_path_factory):
    root = tmp_path_factory.mktemp("prefix")
    lines = varied_sentences()[:240]
    sessions = [
        {
            "session_id": f"s{n}",
            "date": f"2023-05-{n + 1:02d}",
            "messages": [{"role": "user", "content": line} for line in lines[n * 24 : (n + 1) * 24]],
        }
        for n in range(10)
    ]
    chat = root / "chat.json"
    chat.write_text(json.dumps(sessions), "utf-8")
    memory = UserMemory.create(root / "project", user_name="Sam")
    memory.ingest(chat)
    return memory


def _ids(memory: UserMemory, query: str, k: int, channel: str) -> list[str]:
    return [hit.id for hit in memory.search(query, k=k, channel=channel)]


@pytest.mark.parametrize("channel", ["facts", "archive", "all"])
def test_the_first_hits_are_the_same_for_every_k_up_to_20(memory, channel):
    assert len(_ids(memory, QUERIES[0], 20, "facts")) == 20  # more facts than one list's depth
    for query in QUERIES:
        longest = _ids(memory, query, 20, channel)
        for k in (1, 5, 10, 15):
            assert _ids(memory, query, k, channel) == longest[:k], (query, k)


def test_search_many_agrees_with_search(memory):
    batched = memory.search_many(QUERIES, k=10, channel="facts")
    for query, hits in zip(QUERIES, batched):
        assert [hit.id for hit in hits] == _ids(memory, query, 20, "facts")[:10]


def test_a_depth_that_follows_k_would_change_the_first_hits(memory, monkeypatch):
    """The property above is not free: when the candidate depth grows with k (as it
    does beyond k = 20), the first hits of some query move."""
    monkeypatch.setattr(search, "MIN_CANDIDATES", 10)
    moved = [q for q in QUERIES if _ids(memory, q, 10, "facts") != _ids(memory, q, 20, "facts")[:10]]
    assert moved
