"""The model through onnxruntime: the default embedder, torch-free at run time.

The graph is the transformer of all-MiniLM-L6-v2 exported to ONNX
(:mod:`uac.index.onnx_export`); it maps word-piece ids to per-token vectors.
Tokenization uses the model's own ``tokenizer.json`` (the ``tokenizers``
library that the reference uses under the hood), truncated at the model's
``max_seq_length`` like sentence-transformers, and pooling (mean over the
attention mask) and normalisation happen in :class:`~uac.index.embeddings.Embedder`.
Texts are batched in order of length so that padding stays small.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..errors import StoreError
from .embeddings import Embedder, model_dir, offline_environment

if TYPE_CHECKING:
    import numpy
    import tokenizers


def _max_seq_length(source: Path) -> int:
    try:
        return int(json.loads((source / "sentence_bert_config.json").read_text("utf-8"))["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return 256


class OnnxEmbedder(Embedder):
    backend = "onnx"

    def __init__(self, *, model_path: Path | None = None, batch_size: int = 32, threads: int = 0) -> None:
        offline_environment()
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise StoreError(
                f"the ONNX embedder cannot be loaded: {exc}.",
                hint="Reinstall uac with its dependencies: pip install user-as-code (it brings onnxruntime and tokenizers), "
                "or set UAC_EMBEDDINGS=torch.",
            ) from exc
        source = model_dir()
        if model_path is None:
            from .onnx_export import ensure_onnx_model

            model_path = ensure_onnx_model()
        self.model_path = Path(model_path)
        self.max_seq_length = _max_seq_length(source)
        self.batch_size = batch_size
        self._tokenizer_file = source / "tokenizer.json"
        try:
            self._tokenizer = Tokenizer.from_file(str(self._tokenizer_file))
        except Exception as exc:  # the tokenizers library raises plain Exception
            raise StoreError(
                f"cannot read the tokenizer of the embedding model ({self._tokenizer_file}): {exc}.",
                hint="Reinstall the package user-as-code-minilm.",
            ) from exc
        self._tokenizer.enable_truncation(max_length=self.max_seq_length)
        self._tokenizer.no_padding()
        self._counter: "tokenizers.Tokenizer | None" = None  # the untruncated twin, made on first use (ingest only)
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # a short-lived CLI process on a shared machine: do not spin idle threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = onnxruntime.InferenceSession(
                str(self.model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime's load errors have no common base class
            raise StoreError(
                f"onnxruntime cannot load {self.model_path}: {exc}.",
                hint="Delete that file to have it exported again, or set UAC_EMBEDDINGS=torch.",
            ) from exc
        self._inputs = {i.name for i in self.session.get_inputs()}
        self.dim = int(self.session.get_outputs()[0].shape[-1] or 384)

    def token_counts(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        if self._counter is None:
            from tokenizers import Tokenizer

            counter = Tokenizer.from_file(str(self._tokenizer_file))
            counter.no_truncation()
            counter.no_padding()
            self._counter = counter
        return [len(e.ids) for e in self._counter.encode_batch(list(texts), add_special_tokens=False)]

    def token_embeddings(self, texts: Sequence[str]) -> "list[numpy.ndarray]":
        import numpy as np

        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out: list["numpy.ndarray | None"] = [None] * len(encodings)
        for start in range(0, len(order), self.batch_size):
            members = order[start : start + self.batch_size]
            width = max(len(encodings[i].ids) for i in members)
            ids = np.zeros((len(members), width), dtype=np.int64)
            mask = np.zeros((len(members), width), dtype=np.int64)
            for row, i in enumerate(members):
                tokens = encodings[i].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
            for row, i in enumerate(members):
                out[i] = np.asarray(hidden[row, : len(encodings[i].ids)], dtype=np.float32)
        return out  # type: ignore[return-value]  # every slot is filled by the loop above
