"""The ONNX embedder reproduces sentence-transformers.

The always-on test covers a few hundred varied sentences; the LoCoMo test covers
every turn of the dataset when ``$UAC_LOCOMO_DATA`` names the file, and is
skipped otherwise."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.embeddings

MIN_COSINE = 0.9999
LOCOMO_CANDIDATES = [os.environ.get("UAC_LOCOMO_DATA", "")]


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    assert a.shape == b.shape
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def onnx_vectors(onnx_embedder, sentences) -> np.ndarray:
    """The ONNX vectors of every sentence, encoded together (the tests below compare them)."""
    return onnx_embedder.encode(sentences)


def test_the_two_backends_are_what_they_say(onnx_embedder, torch_embedder):
    assert onnx_embedder.backend == "onnx" and torch_embedder.backend == "torch"
    assert onnx_embedder.dim == torch_embedder.dim == 384
    assert onnx_embedder.max_seq_length == torch_embedder.max_seq_length == 256


def test_sentence_vectors_agree(onnx_vectors, torch_embedder, sentences):
    got = onnx_vectors
    want = torch_embedder.encode(sentences)
    assert got.dtype == np.float32 and got.shape == (len(sentences), 384)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosine = _cosines(got, want)
    worst = int(np.argmin(cosine))
    assert cosine.min() >= MIN_COSINE, (sentences[worst][:80], float(cosine.min()))


def test_batching_and_order_do_not_change_vectors(onnx_embedder, onnx_vectors, sentences):
    together = onnx_vectors
    one_by_one = np.stack([onnx_embedder.encode([s])[0] for s in sentences[:40]])
    assert _cosines(together[:40], one_by_one).min() >= 0.99999
    reversed_ = onnx_embedder.encode(sentences[::-1])[::-1]
    assert _cosines(together, reversed_).min() >= 0.99999


def test_truncation_matches_the_reference(onnx_embedder, torch_embedder, sentences):
    long_texts = [s for s in sentences if len(s) > 1000]
    assert long_texts and max(onnx_embedder.token_counts(long_texts)) > 256
    # a text past the window embeds like its first 256 word pieces, in both implementations
    cosine = _cosines(onnx_embedder.encode(long_texts), torch_embedder.encode(long_texts))
    assert cosine.min() >= MIN_COSINE


def test_token_counts_match_the_reference_tokenizer(onnx_embedder, torch_embedder, sentences):
    assert onnx_embedder.token_counts(sentences) == torch_embedder.token_counts(sentences)


def test_span_vectors_agree(onnx_embedder, torch_embedder, sentences):
    groups = [sentences[i : i + 4] for i in range(0, 200, 4)] + [sentences[-3:]]
    prefixes = [f"{name}:" for name in ("Caroline", "Melanie", "") * 20][: len(groups)]
    got = onnx_embedder.encode_spans(groups, prefixes)
    want = torch_embedder.encode_spans(groups, prefixes)
    assert got.shape == (sum(len(g) for g in groups), 384)
    assert _cosines(got, want).min() >= MIN_COSINE


def test_empty_input(onnx_embedder):
    assert onnx_embedder.encode([]).shape == (0, 384)
    assert onnx_embedder.encode_spans([]).shape == (0, 384)


def _locomo_turns() -> list[str] | None:
    for candidate in LOCOMO_CANDIDATES:
        if candidate and Path(candidate).is_file():
            data = json.loads(Path(candidate).read_text("utf-8"))
            turns = []
            for item in data:
                conversation = item["conversation"]
                for key, value in conversation.items():
                    if key.startswith("session_") and isinstance(value, list):
                        for turn in value:
                            text = turn.get("text", "")
                            if turn.get("blip_caption"):
                                text = f"{text} [image: {turn['blip_caption']}]"
                            turns.append(f"{turn['speaker']}: {text}")
            return turns
    return None


@pytest.mark.slow
@pytest.mark.timeout(10800)
def test_every_locomo_turn_agrees(onnx_embedder, torch_embedder):
    turns = _locomo_turns()
    if turns is None:
        pytest.skip("LoCoMo data not found (set UAC_LOCOMO_DATA to locomo10.json)")
    assert len(turns) == 5882
    got = onnx_embedder.encode(turns)
    want = torch_embedder.encode(turns)
    cosine = _cosines(got, want)
    worst = int(np.argmin(cosine))
    assert cosine.min() >= MIN_COSINE, (turns[worst][:80], float(cosine.min()))
