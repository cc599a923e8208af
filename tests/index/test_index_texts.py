"""What BM25 reads for a fact: its sentence, its whole turn, the turn before and the day in words."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from uac.facts.model import Fact
from uac.index.texts import TEXT_SETTINGS, day_words, session_entries
from uac.index.tokens import tokenize
from uac.sessions.model import Session, Turn


class _Embedder:
    dim = 4

    def encode(self, texts):
        return np.ones((len(texts), self.dim), dtype=np.float32)


SESSION = Session(
    "s1",
    dt.date(2023, 10, 13),
    "13 October 2023",
    (
        Turn("s1:1", "Ben", "How was the group?"),
        Turn(
            "s1:2",
            "Ann",
            "I went to a support group yesterday. It was so powerful.",
            image_caption="a photo of a circle of chairs",
        ),
        Turn("s1:3", "Ben", "Glad to hear."),
    ),
)
FACTS = [
    Fact("s1-f1", "Ann went to a support group yesterday (on 12 October 2023).", "s1", SESSION.date, ("s1:2",), "Ann"),
    Fact("s1-f2", "Ann said: It was so powerful.", "s1", SESSION.date, ("s1:2",), "Ann"),
    Fact("s1-f3", "Ann shared an image: a photo of a circle of chairs.", "s1", SESSION.date, ("s1:2",), "Ann"),
]


def _entries(**settings):
    vectors = np.eye(len(FACTS), 4, dtype=np.float32)
    entries, *_ = session_entries(
        SESSION, FACTS, _Embedder(), fact_vectors=vectors, settings={**TEXT_SETTINGS, **settings}
    )
    return {e.id: e for e in entries}


def test_day_words_are_english_whatever_the_locale():
    assert day_words(dt.date(2023, 10, 13)) == "13 October 2023 (Friday)"


def test_a_fact_is_found_by_the_words_of_its_turn_the_turn_before_and_its_day():
    entry = _entries()["s1-f2"]
    assert entry.text == "Ann said: It was so powerful."  # what a hit shows is the fact alone
    words = set(tokenize(entry.index_text))
    assert {"support", "group"} <= words  # the sentence before it, in the same turn
    assert "chair" in words  # the image caption of its turn
    assert "how" not in words and "group" in set(tokenize(_entries()["s1-f1"].index_text))
    assert {"13", "october", "2023", "friday"} <= words
    # "How was the group?" -- the turn before -- is read too
    assert "Ben: How was the group?" in entry.index_text


def test_the_settings_turn_the_extra_text_off():
    entry = _entries(bm25_own_turn=0, bm25_said_day=0, bm25_context_turns=0)["s1-f2"]
    assert entry.index_text == "Ann said: It was so powerful."


@pytest.mark.parametrize(
    "forms",
    [
        ("move", "moves", "moved", "moving"),
        ("stop", "stops", "stopped", "stopping"),
        ("paint", "paints", "painted", "painting", "paintings"),
        ("hike", "hikes", "hiked", "hiking"),
        ("dance", "danced", "dancing"),
        ("lake", "lakes"),
        ("need", "needed"),
        ("class", "classes"),
    ],
)
def test_every_form_of_a_word_meets_in_bm25(forms):
    from uac.index.tokens import stem

    assert len({stem(w) for w in forms}) == 1, {w: stem(w) for w in forms}


def test_a_question_in_the_present_finds_a_fact_in_the_past_tense():
    from uac.index.tokens import tokenize

    assert set(tokenize("Which city did Leo move to?")) & set(tokenize("Leo moved to a new flat in Hamburg.")) >= {
        "leo",
        "mov",
    }
