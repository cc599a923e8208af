"""uac's saved BM25 scores exactly as the bm25s library does with its defaults."""

from __future__ import annotations

import random

import numpy as np
import pytest

from uac.index.bm25 import BM25
from uac.index.tokens import tokenize

WORDS = (
    "caroline melanie painted painting paints lake sunrise support group camping kids dog beach "
    "boston moving job counselor pottery class friday banker dance studio cat oliver trip lisbon "
    "ferry island museum lighthouse 2023 may june yesterday week"
).split()


def _corpus(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 18))) for _ in range(n)]
    return texts + ["", "the and of", "???", "Caroline's dog"]


def _queries(seed: int = 4) -> list[str]:
    rng = random.Random(seed)
    out = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(120)]
    return out + ["caroline caroline lake", "nothing matches zzz", "the"]


def test_scores_equal_bm25s_bit_for_bit():
    bm25s = pytest.importorskip("bm25s")
    texts = _corpus(600)
    reference = bm25s.BM25()
    reference.index([tokenize(t) or ["_"] for t in texts], show_progress=False)
    ours = BM25.build(texts)
    compared = 0
    for query in _queries():
        tokens = tokenize(query)
        known = [t for t in tokens if t in reference.vocab_dict]
        got = ours.scores(tokens)
        if not known:
            assert got is None
            continue
        want = reference.get_scores(known)
        assert got is not None and got.dtype == np.float32
        assert np.array_equal(got, want), query
        compared += 1
    assert compared > 100


def test_extending_equals_building_afresh_and_survives_a_save(tmp_path):
    texts = _corpus(400)
    whole = BM25.build(texts, stamp=(1, 2, 3, 4))
    grown = (
        BM25.build(texts[:150]).extended(texts[150:300], stamp=(0, 0, 0, 0)).extended(texts[300:], stamp=(1, 2, 3, 4))
    )
    path = tmp_path / "facts.bm25.npz"
    grown.save(path)
    loaded = BM25.load(path)
    assert loaded is not None and loaded.stamp == (1, 2, 3, 4) and loaded.size == len(texts)
    for query in _queries()[:60]:
        tokens = tokenize(query)
        a, b, c = whole.scores(tokens), grown.scores(tokens), loaded.scores(tokens)
        assert (a is None and b is None and c is None) or (np.array_equal(a, b) and np.array_equal(a, c))


def test_a_damaged_or_foreign_file_is_ignored(tmp_path):
    path = tmp_path / "facts.bm25.npz"
    assert BM25.load(path) is None
    path.write_bytes(b"not an npz file")
    assert BM25.load(path) is None
    np.savez(path, format=np.array([999]))
    assert BM25.load(path) is None


def test_empty_index_and_unknown_terms():
    assert BM25.empty().scores(["lake"]) is None
    index = BM25.build(["a lake at sunrise"])
    assert index.scores(["mountain"]) is None
    scores = index.scores(tokenize("lake"))  # the stemmed form: "lak"
    assert scores is not None and scores.shape == (1,) and scores[0] > 0


def test_an_index_built_with_another_tokenizer_is_not_used(tmp_path, monkeypatch):
    """A BM25 index keeps the tokenizer version it was built with; after a change
    of the stemmer its words would not meet a query's, so it is not loaded (and the
    store builds BM25 again, without touching the vectors)."""
    from uac.index import bm25 as bm25_module

    path = tmp_path / "facts.bm25.pack"
    BM25.build(_corpus(20)).save(path)
    assert BM25.load(path) is not None
    monkeypatch.setattr(bm25_module, "STEMMER_VERSION", bm25_module.STEMMER_VERSION + 1)
    assert BM25.load(path) is None


@pytest.mark.embeddings
def test_a_stemmer_change_rebuilds_bm25_only(tmp_path, monkeypatch, one_session_memory):
    """A project indexed by a uac with another stemmer (its manifest lists the old
    version, its BM25 files carry it) searches with the new one at once: BM25 is
    built again from the corpus; nothing is embedded again."""
    import json as _json

    from uac.index import bm25 as bm25_module
    from uac.index import catchup, maintain
    from uac.memory import UserMemory

    memory = one_session_memory(
        "I moved to Lisbon and started painting again.", "My sister is moving to Porto next spring."
    )
    expected = [h.to_json() for h in memory.search("moving painting", k=5)]
    index_dir = memory.root / ".uac" / "index"
    manifest = _json.loads((index_dir / "manifest.json").read_text())
    manifest["texts"]["stemmer"] = 1
    (index_dir / "manifest.json").write_text(_json.dumps(manifest))
    with monkeypatch.context() as old:
        old.setattr(bm25_module, "STEMMER_VERSION", 1)
        for channel in ("facts", "archive"):
            memory.index.channel(channel).bm25().save(index_dir / f"{channel}.bm25.pack")
    memory.close()

    def refuse(*args, **kwargs):
        raise AssertionError("indexed again")

    for module in (maintain, catchup):
        monkeypatch.setattr(module, "rebuild", refuse)
        monkeypatch.setattr(module, "index_sessions", refuse)
    reopened = UserMemory.open(tmp_path / "p")
    assert [h.to_json() for h in reopened.search("moving painting", k=5)] == expected
    reopened.close()
    assert BM25.load(index_dir / "facts.bm25.pack") is not None  # saved again with the current stemmer


def test_a_loaded_index_reads_its_token_ids_to_extend(tmp_path):
    """A saved index is opened without its documents' token ids; extending it (a
    search after an ingest) reads them from the file."""
    texts = _corpus(60)
    path = tmp_path / "facts.bm25.pack"
    BM25.build(texts[:40]).save(path)
    loaded = BM25.load(path)
    assert loaded is not None and loaded._doc_tokens is None
    grown = loaded.extended(texts[40:], stamp=(1, 2, 3, 4))
    whole = BM25.build(texts)
    for query in _queries()[:30]:
        a, b = whole.scores(tokenize(query)), grown.scores(tokenize(query))
        assert (a is None and b is None) or np.array_equal(a, b)


def test_weighted_terms_add_their_share_of_a_score():
    index = BM25.build(["a lake at sunrise", "a dog on the beach", "the lake and the dog"])
    lake = index.scores(tokenize("lake"))
    dog = index.scores(tokenize("dog"))
    both = index.scores(tokenize("lake"), {"dog": 0.5})
    assert np.allclose(both, lake + 0.5 * dog)
    assert np.allclose(index.scores([], {"dog": 0.5}), 0.5 * dog)  # feedback words alone still score
    assert index.scores(["zzz"], {"yyy": 0.5}) is None
    assert index.document_frequency("lak") == 2 and index.document_frequency("zzz") == 0
