"""The model through sentence-transformers (torch): the reference implementation.

Used when ``UAC_EMBEDDINGS=torch``, to write the reference vectors the ONNX
graph is checked against (:mod:`uac.index.reference_vectors`) and in the tests
that check the ONNX path against it.  It needs the ``reference`` extra
(``pip install 'user-as-code[reference]'``).  Importing
this module is cheap; creating a :class:`SentenceTransformerEmbedder` imports
torch and sentence-transformers (seconds).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..errors import StoreError
from .embeddings import Embedder, model_dir, offline_environment

if TYPE_CHECKING:
    import numpy


def load_sentence_transformer(**model_kwargs: Any) -> Any:
    """The bundled model as a ``SentenceTransformer`` on the CPU (offline)."""
    offline_environment()
    path = model_dir()
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise StoreError(
            f"sentence-transformers cannot be imported: {exc}.",
            hint="Install the reference extra: pip install 'user-as-code[reference]' "
            "(on Linux, torch's CPU build first), or use the default ONNX embeddings (unset UAC_EMBEDDINGS).",
        ) from exc
    kwargs: dict[str, Any] = {"device": "cpu"}
    if model_kwargs:
        kwargs["model_kwargs"] = model_kwargs
    return SentenceTransformer(str(path), **kwargs)


class SentenceTransformerEmbedder(Embedder):
    backend = "torch"

    def __init__(self, *, batch_size: int = 64) -> None:
        self.model = load_sentence_transformer()
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(getter())
        self.max_seq_length = int(getattr(self.model, "max_seq_length", 256) or 256)
        self.batch_size = batch_size

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        tokenizer = self.model.tokenizer
        return [len(tokenizer.tokenize(text)) for text in texts]

    def token_embeddings(self, texts: Sequence[str]) -> "list[numpy.ndarray]":
        import numpy as np

        matrices = self.model.encode(
            list(texts), batch_size=self.batch_size, output_value="token_embeddings", show_progress_bar=False
        )
        return [m.float().cpu().numpy() if hasattr(m, "cpu") else np.asarray(m, dtype=np.float32) for m in matrices]

    def encode(self, texts: Sequence[str]) -> "numpy.ndarray":
        """sentence-transformers' own ``encode`` (the reference), normalised."""
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)
