"""Vectors of a few sentences as sentence-transformers computes them.

The ONNX graph of the bundled model is built by uac (:mod:`uac.index.onnx_build`)
and checked against these vectors before it is used, so the light install
(no torch) still refuses a graph that does not reproduce the reference.  They
were written by ``python -m uac.index.reference_vectors`` with the ``reference``
extra installed (torch and sentence-transformers); ``tests/index`` checks that
they still match sentence-transformers wherever it is installed.

The file records the sha256 of the model's weights and configuration: vectors
of another model say nothing about it, and then the check needs
sentence-transformers itself.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..fsutil import read_json_object

if TYPE_CHECKING:
    import numpy

PATH = Path(__file__).with_name("reference_vectors.json")
SENTENCES = (
    "Caroline went to the LGBTQ support group yesterday.",
    "What did Melanie paint last weekend?",
    "ok",
    "The trip to Lisbon in May 2024 cost 1,200 euros; we stayed near the river and ate grilled sardines.",
)


def load(checksum: str) -> "tuple[Sequence[str], numpy.ndarray] | None":
    """The sentences and their reference vectors for the model with ``checksum``, or None."""
    import numpy as np

    recorded = read_json_object(PATH)
    if recorded is None or recorded.get("model_checksum") != checksum:
        return None
    sentences = recorded.get("sentences")
    vectors = np.asarray(recorded.get("vectors"), dtype=np.float32)
    if not isinstance(sentences, list) or vectors.shape[:1] != (len(sentences),):
        return None
    return sentences, vectors


def write() -> Path:
    """Compute the vectors with sentence-transformers and write the file."""
    from .onnx_export import model_checksum
    from .st_embedder import SentenceTransformerEmbedder

    vectors = SentenceTransformerEmbedder().encode(list(SENTENCES))
    payload = {
        "model_checksum": model_checksum(),
        "sentences": list(SENTENCES),
        "vectors": [[round(float(x), 8) for x in row] for row in vectors],
    }
    rows = ",\n  ".join(json.dumps(row) for row in payload["vectors"])
    text = (
        "{\n"
        f' "model_checksum": {json.dumps(payload["model_checksum"])},\n'
        f' "sentences": {json.dumps(payload["sentences"])},\n'
        f' "vectors": [\n  {rows}\n ]\n'
        "}\n"
    )
    PATH.write_text(text, "utf-8")
    return PATH


def main(argv: list[str] | None = None) -> int:
    print(f"reference vectors written to {write()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
