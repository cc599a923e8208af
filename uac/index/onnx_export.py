"""The ONNX export of the bundled model, made once and cached.

The graph is written from the model's own weights by :mod:`uac.index.onnx_build`
(numpy and ``onnx.helper``, no torch) the first time it is needed -- on first use,
in about a second, or ahead of time with ``python -m uac.index.onnx_export`` (which
``make install`` runs) -- and never downloaded.  It lives in the user cache::

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
directory, checked against sentence-transformers' vectors of a few sentences
(:mod:`uac.index.reference_vectors`, or sentence-transformers itself for a model
those vectors were not made with), and renamed into place as a whole, so no
reader ever sees a partial or wrong model.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .. import heavy
from ..errors import StoreError
from ..fsutil import atomic_write_text, fsync_dir, read_json_object
from .embeddings import MODEL_NAME, model_dir, offline_environment

if TYPE_CHECKING:
    import numpy

#: bump when the graph changes (inputs, outputs, opset, how it is built); 3: built without torch
EXPORT_FORMAT = 3
WEIGHTS = "model.weights"
#: the files whose content the export depends on
SOURCE_FILES = ("config.json", "model.safetensors")
#: the graph is published only if it agrees with the reference vectors this well
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
            hint="Reinstall the package user-as-code-minilm.",
        ) from None
    recorded = read_json_object(stamp)
    if recorded is not None and isinstance(recorded.get("checksum"), str):
        return recorded["checksum"]
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
        heavy.load("embeddings")  # numpy and onnxruntime, never beside another thread's import of them
        import onnx
    except (ImportError, StoreError) as exc:
        raise StoreError(
            f"the ONNX graph of the embedding model needs the onnx package: {exc}.",
            hint="Reinstall user-as-code with its dependencies (pip install user-as-code).",
        ) from exc
    from .onnx_build import OPSET, build_model

    checksum = model_checksum(source)
    model = build_model(source)
    work = Path(tempfile.mkdtemp(prefix=f".{target_dir.name}.", dir=target_dir.parent))
    try:
        onnx.save_model(
            model,
            str(work / "model.onnx"),
            save_as_external_data=True,
            all_tensors_to_one_file=True,
            location=WEIGHTS,
            size_threshold=1024,
        )
        del model
        checked_against = _check_export(work / "model.onnx", checksum)
        meta = {
            "model": MODEL_NAME,
            "source": str(source),
            "model_checksum": checksum,
            "export_format": EXPORT_FORMAT,
            "opset": OPSET,
            "onnx": onnx.__version__,
            "built_by": "uac.index.onnx_build",
            "checked_against": checked_against,
        }
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


def _reference(checksum: str) -> "tuple[Sequence[str], numpy.ndarray, str]":
    """Sentences and the vectors the graph must reproduce, and where they come from."""
    from . import reference_vectors

    recorded = reference_vectors.load(checksum)
    if recorded is not None:
        return recorded[0], recorded[1], "reference vectors"
    try:
        from .st_embedder import SentenceTransformerEmbedder

        reference = SentenceTransformerEmbedder()
    except StoreError as exc:
        raise StoreError(
            f"the installed embedding model (sha256 {checksum[:12]}...) is not the one uac's reference "
            "vectors were made with, and sentence-transformers is not installed to check the ONNX graph "
            f"against ({exc.message})",
            hint="Reinstall the model uac was released with (the package user-as-code-minilm, version 0.1.0), "
            "or install the reference extra (pip install 'user-as-code[reference]') to check against sentence-transformers.",
        ) from None
    sentences = list(reference_vectors.SENTENCES)
    return sentences, reference.encode(sentences), "sentence-transformers"


def _check_export(path: Path, checksum: str) -> str:
    """Refuse a graph that does not reproduce the reference vectors; say what it was checked against."""
    import numpy as np

    from .onnx_embedder import OnnxEmbedder

    sentences, want, source = _reference(checksum)
    got = OnnxEmbedder(model_path=path).encode(list(sentences))
    cosine = (got * want).sum(axis=1)
    if not np.all(cosine >= MIN_COSINE):
        raise StoreError(
            f"the ONNX graph of {MODEL_NAME} disagrees with {source} "
            f"(lowest cosine {float(cosine.min()):.6f}); it was not used.",
            hint="Report this with the versions of onnx and onnxruntime; meanwhile set UAC_EMBEDDINGS=torch "
            "(pip install 'user-as-code[reference]').",
        )
    return source


def main(argv: list[str] | None = None) -> int:
    """Make (or find) the export and print where it is."""
    path = ensure_onnx_model()
    print(f"{MODEL_NAME} ONNX export: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
