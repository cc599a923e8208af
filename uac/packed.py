"""Packed array files: named numpy arrays behind one small JSON header.

The saved search tables under ``.uac/index/`` (the corpus tables, BM25, the
fact-log table) are read by the first search of every project a process
opens, so their form decides what opening a project costs.  A packed file is

* 8 bytes ``UACPACK1``, then the header length (8 bytes, little-endian);
* the header, JSON: ``kind`` (what the file holds), ``format`` (its layout
  version), ``meta`` (small values) and, per array, its dtype, shape and offset;
* the arrays' raw bytes, each starting on a 64-byte boundary.

Reading one is a single read (a small file) or a memory map (a larger one:
only the pages a search touches are read); arrays are views into that
buffer, never copied or parsed.  Files are always replaced whole
(:func:`~uac.fsutil.atomic_write_bytes`), so a map stays valid while a
writer replaces the file.  A file that is missing, of another kind or
format, or damaged reads as ``None``: the tables are derived data, rebuilt
from their sources.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from .fsutil import atomic_write_bytes

if TYPE_CHECKING:
    import numpy

MAGIC = b"UACPACK1"
ALIGN = 64
#: files up to this size are read in one go; larger ones are memory-mapped
READ_LIMIT = 64 * 1024


class Pack:
    """The header and the arrays of one packed file (views into its bytes)."""

    __slots__ = ("kind", "format", "meta", "arrays")

    def __init__(self, kind: str, format: int, meta: dict[str, Any], arrays: "dict[str, numpy.ndarray]") -> None:
        self.kind = kind
        self.format = format
        self.meta = meta
        self.arrays = arrays

    def __getitem__(self, name: str) -> "numpy.ndarray":
        return self.arrays[name]

    def text(self, name: str) -> str:
        """An array written by :func:`text_array`, as the text it holds."""
        return bytes(self.arrays[name]).decode("utf-8")


def text_array(value: Any) -> "numpy.ndarray":
    """``value`` as JSON in a byte array (lists of strings are stored this way:
    ``json.loads`` decodes them faster than any per-item layout)."""
    import numpy as np

    return np.frombuffer(json.dumps(value, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)


def _pad(size: int) -> int:
    return -size % ALIGN


def pack_bytes(kind: str, format: int, arrays: "Mapping[str, numpy.ndarray]", meta: dict[str, Any] | None = None) -> bytes:
    import numpy as np

    ready = {name: np.ascontiguousarray(array) for name, array in arrays.items()}
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, array in ready.items():
        layout[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset}
        offset += array.nbytes + _pad(array.nbytes)
    header = json.dumps({"kind": kind, "format": format, "meta": meta or {}, "arrays": layout}).encode("utf-8")
    start = len(MAGIC) + 8 + len(header)
    parts = [MAGIC, struct.pack("<Q", len(header)), header, b"\0" * _pad(start)]
    for array in ready.values():
        parts.append(array.tobytes())
        parts.append(b"\0" * _pad(array.nbytes))
    return b"".join(parts)


def write_pack(path: Path, kind: str, format: int, arrays: "Mapping[str, numpy.ndarray]", meta: dict[str, Any] | None = None) -> None:
    """Write the arrays to ``path`` atomically (the old file stays whole until replaced)."""
    atomic_write_bytes(Path(path), pack_bytes(kind, format, arrays, meta))


def is_pack(path: Path) -> bool:
    """Does ``path`` start like a packed file (False if it cannot be read)?"""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def read_pack(path: Path, kind: str, format: int) -> Pack | None:
    """The packed file at ``path`` if it holds ``kind`` in layout ``format``, else None."""
    import numpy as np

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size < len(MAGIC) + 8:
            return None
        buffer: Any
        if size <= READ_LIMIT:
            buffer = os.read(fd, size)
            if len(buffer) != size:
                return None
        else:
            buffer = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    try:
        if bytes(buffer[: len(MAGIC)]) != MAGIC:
            return None
        (length,) = struct.unpack("<Q", bytes(buffer[len(MAGIC) : len(MAGIC) + 8]))
        start = len(MAGIC) + 8
        header = json.loads(bytes(buffer[start : start + length]).decode("utf-8"))
        if header.get("kind") != kind or header.get("format") != format:
            return None
        base = start + length + _pad(start + length)
        arrays = {}
        for name, spec in header["arrays"].items():
            dtype = np.dtype(spec["dtype"])
            shape = tuple(int(n) for n in spec["shape"])
            count = 1
            for n in shape:
                count *= n
            offset = base + int(spec["offset"])
            if offset + count * dtype.itemsize > size:
                return None
            arrays[name] = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)
        meta = header.get("meta") or {}
        if not isinstance(meta, dict):
            return None
        return Pack(kind, format, meta, arrays)
    except (ValueError, KeyError, TypeError, struct.error, UnicodeDecodeError):
        return None
