"""Fixtures of the embedding tests: both implementations of the model and a few
hundred varied sentences written here."""

from __future__ import annotations

import itertools
import json

import pytest


@pytest.fixture(scope="session")
def onnx_embedder():
    from uac.index.embeddings import get_embedder

    return get_embedder("onnx")


@pytest.fixture(scope="session")
def torch_embedder():
    pytest.importorskip(
        "sentence_transformers", reason="the reference extra (sentence-transformers, torch) is not installed"
    )
    from uac.index.embeddings import get_embedder

    return get_embedder("torch")


def varied_sentences() -> list[str]:
    """About 300 sentences: chat turns, questions, numbers and dates, punctuation,
    accents and emoji, line and paragraph separators, one-word turns, and texts longer
    than the model's window."""
    names = ["Caroline", "Melanie", "Jon", "Gina", "Dr. O'Neil", "Zoë"]
    acts = [
        "went to a LGBTQ support group",
        "painted a lake sunrise",
        "signed up for a pottery class",
        "flew to Lisbon for 3 nights (cost: €1,200)",
        "adopted a cat named Oliver",
        "ran the 10k in 52:30",
        "lost a job as a banker",
        "opened a dance studio downtown",
        "read 'Becoming Nicole' again",
        "cooked ramen 🍜 with friends",
    ]
    whens = ["yesterday", "on 8 May 2023", "last weekend", "two days ago", "in the summer of '22"]
    out = [f"{n} {a} {w}." for n, a, w in itertools.product(names, acts, whens)][::1]
    out = out[:240]
    out += [f"What did {n} do {w}?" for n, w in itertools.product(names, whens)]
    out += ["ok", "Thanks!", "?", "hmm...", "lol", "Wow!!! 😀😀", "café au lait, s'il vous plaît", "東京に行きました"]
    # the characters str.splitlines() breaks at besides "\n", inside one text
    out += [
        "Lisbon\u2028in June",
        "first\u2029second paragraph",
        "next\x85line",
        "carriage\rreturn",
        "vertical\x0btab\x0cfeed",
        "file\x1cgroup\x1drecord\x1eseparators",
    ]
    long_turn = " ".join(f"{a} and then" for a in acts) * 6  # well past 256 word pieces
    out += [long_turn, "Caroline: " + long_turn, "x" * 3000]
    return out


@pytest.fixture(scope="session")
def sentences() -> list[str]:
    return varied_sentences()


@pytest.fixture
def one_session_memory(tmp_path):
    """A new memory (user Ana) that ingested one session of the given lines, said on 8 May 2023."""

    def make(*lines: str):
        from uac.memory import UserMemory

        memory = UserMemory.create(tmp_path / "p", user_name="Ana")
        chat = tmp_path / "s.json"
        chat.write_text(
            json.dumps({"date": "2023-05-08", "messages": [{"role": "user", "content": line} for line in lines]})
        )
        memory.ingest(chat)
        return memory

    return make
