"""``.uac/index/manifest.json``: the settings the indexes were built with, and the
position of the fact log they cover.

The index version and the model decide whether the indexes must be built again
(``doctor`` asks for it); what BM25 reads may change while the vectors stay valid
(:meth:`IndexManifest.vectors_still_valid`).  The log position ``(bytes,
sha256)`` says that every session committed in the log's first ``bytes`` bytes
is indexed (:mod:`uac.index.catchup` indexes what follows).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..filestamp import FileStamp
from ..fsutil import atomic_write_text, read_regular

#: bump when what goes into the indexes changes; doctor then asks for a rebuild
INDEX_VERSION = 1


class IndexManifest:
    """The manifest of one project's indexes (in ``directory``, inside ``root``)."""

    def __init__(self, directory: Path, root: Path) -> None:
        self.path = Path(directory) / "manifest.json"
        self.root = Path(root)
        #: (stamp of the manifest file, its content): re-read only when the file changed
        self._read: tuple[FileStamp, dict[str, Any] | None] | None = None

    def forget(self) -> None:
        """Let go of the content kept in memory (read again next time)."""
        self._read = None

    @staticmethod
    def expected() -> dict[str, Any]:
        """The settings this uac builds indexes with."""
        from .embeddings import MODEL_NAME
        from .texts import TEXT_SETTINGS

        return {"index_version": INDEX_VERSION, "model": MODEL_NAME, "texts": TEXT_SETTINGS}

    def read(self) -> dict[str, Any] | None:
        """The manifest, or None.  It is parsed again only when its file changed (size,
        modification time or inode, not following a link): a warm search pays a ``stat``."""
        stamp = FileStamp.of(self.path, follow_symlinks=False)
        if self._read is not None and self._read[0] == stamp:
            return dict(self._read[1]) if self._read[1] is not None else None
        try:
            data = json.loads(read_regular(self.root, self.path).decode("utf-8"))
        except (OSError, ValueError):
            data = None
        data = data if isinstance(data, dict) else None
        self._read = (stamp, data)
        return dict(data) if data is not None else None

    def settings_differ(self, manifest: dict[str, Any]) -> bool:
        """True if the indexes were built with other settings than this uac's (rebuild
        needed).  The tokenizer's version is not one of them: it is kept with each
        BM25 index, which alone is built again when it changes (a manifest written
        while it was listed here still matches)."""
        expected = self.expected()
        texts = manifest.get("texts")
        if isinstance(texts, dict) and "stemmer" in texts:
            manifest = {**manifest, "texts": {k: v for k, v in texts.items() if k != "stemmer"}}
        return any(manifest.get(key) != value for key, value in expected.items())

    def vectors_still_valid(self, manifest: dict[str, Any]) -> bool:
        """Were the indexes built with the vectors this uac would compute (same index
        version and model, same vector and excerpt settings, a fact's vector its own),
        so that a rebuild for other settings -- what BM25 reads -- can keep them?"""
        from .texts import VECTOR_SETTINGS

        expected = self.expected()
        texts = manifest.get("texts")
        if not isinstance(texts, dict) or any(manifest.get(k) != expected[k] for k in ("index_version", "model")):
            return False
        if any(texts.get(key) != expected["texts"].get(key) for key in VECTOR_SETTINGS):
            return False
        return float(expected["texts"].get("context_weight", 0.0)) == 0.0

    def write(self, log_position: tuple[int, str] | None = None) -> None:
        """Record the settings and, if given, the log position ``(bytes, sha256)`` the
        indexes cover: every session committed in the log's first ``bytes`` bytes."""
        data = dict(self.expected())
        if log_position is not None:
            data["log"] = {"bytes": log_position[0], "sha256": log_position[1]}
        atomic_write_text(self.path, json.dumps(data, indent=2) + "\n")

    def covered_position(self, manifest: dict[str, Any] | None = None) -> tuple[int, str] | None:
        """The log position the manifest (read now unless given) says the indexes
        cover, or ``None`` if unknown."""
        manifest = self.read() if manifest is None else manifest
        if manifest is None:
            return None
        log_part = manifest.get("log")
        if not isinstance(log_part, dict):
            return None
        size, digest = log_part.get("bytes"), log_part.get("sha256")
        if type(size) is not int or not isinstance(digest, str):
            return None
        return size, digest


__all__ = ["INDEX_VERSION", "IndexManifest"]
