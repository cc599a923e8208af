"""Derived search indexes (Chroma vectors + BM25) and hybrid search.

Heavy libraries (chromadb, onnxruntime, sentence-transformers) are imported inside
the functions that use them, never at import time of this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..project import Project
    from .store import MemoryIndex


def open_index(project: "Project") -> "MemoryIndex":
    from .store import MemoryIndex

    return MemoryIndex(project.paths.internal, project.config.index, root=project.root)
