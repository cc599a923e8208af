"""Packed array files: named numpy arrays behind one small JSON header.

The saved search tables under ``.uac/index/`` (the corpus tables, BM25, the
fact-log table) are read by the first search of every project a process
opens, so their form decides what opening a project costs.  A packed file is

* 8 bytes ``UACPACK1``, then the header length (8 bytes, little-endian);
* the header, JSON: ``kind`` (what the file holds), ``format`` (its layout
  version), ``meta`` (small values) and, per array, its dtype, shape and offset;
* the arrays' raw bytes, each starting on a 64-byte boundary; the header keeps
  each array's CRC-32, checked as it is read (a few milliseconds for megabytes).

Reading one is a single read (a small file) or one read per array (a
larger one, and arrays the caller does not need are skipped); arrays are
read-only views of the bytes read, never parsed.  Nothing stays open after a
read: a memory map would keep a duplicate of the file's descriptor for as
long as the arrays live (Python's ``mmap`` does so before 3.13), and a server
keeps the tables of every warm project.  Files are always replaced whole
(:func:`~uac.fsutil.atomic_write_bytes`).  A file that is missing, of another
kind or format, or damaged (an array whose CRC-32 differs) reads as ``None``: the tables are derived data,
rebuilt from their sources.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from .fsutil import atomic_write_bytes

if TYPE_CHECKING:
    import numpy

MAGIC = b"UACPACK1"
ALIGN = 64
#: files up to this size are read in one go; larger ones array by array
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


def _crc(array: "numpy.ndarray") -> int:
    """CRC-32 of an array's bytes (any dtype; the array is contiguous)."""
    return zlib.crc32(array.reshape(-1).view("uint8").data) if array.size else 0


def _pad(size: int) -> int:
    return -size % ALIGN


def pack_bytes(
    kind: str, format: int, arrays: "Mapping[str, numpy.ndarray]", meta: dict[str, Any] | None = None
) -> bytes:
    import numpy as np

    ready = {name: np.ascontiguousarray(array) for name, array in arrays.items()}
    layout: dict[str, dict[str, Any]] = {}
    offset = 0
    for name, array in ready.items():
        layout[name] = {"dtype": array.dtype.str, "shape": list(array.shape), "offset": offset, "crc32": _crc(array)}
        offset += array.nbytes + _pad(array.nbytes)
    header = json.dumps({"kind": kind, "format": format, "meta": meta or {}, "arrays": layout}).encode("utf-8")
    start = len(MAGIC) + 8 + len(header)
    parts = [MAGIC, struct.pack("<Q", len(header)), header, b"\0" * _pad(start)]
    for array in ready.values():
        parts.append(array.tobytes())
        parts.append(b"\0" * _pad(array.nbytes))
    return b"".join(parts)


def write_pack(
    path: Path, kind: str, format: int, arrays: "Mapping[str, numpy.ndarray]", meta: dict[str, Any] | None = None
) -> None:
    """Write the arrays to ``path`` atomically (the old file stays whole until replaced)."""
    atomic_write_bytes(Path(path), pack_bytes(kind, format, arrays, meta))


def is_pack(path: Path) -> bool:
    """Does ``path`` start like a packed file (False if it cannot be read)?"""
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _pread(fd: int, size: int, offset: int) -> bytes:
    data = os.pread(fd, size, offset)
    while len(data) < size:
        more = os.pread(fd, size - len(data), offset + len(data))
        if not more:
            raise ValueError("the file ends early")
        data += more
    return data


def read_pack(path: Path, kind: str, format: int, *, skip: tuple[str, ...] = ()) -> Pack | None:
    """The packed file at ``path`` if it holds ``kind`` in layout ``format``, else None.
    Arrays named in ``skip`` are not read (a caller that needs them later reads the
    file again)."""
    import numpy as np

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        head = len(MAGIC) + 8
        whole = _pread(fd, size, 0) if size <= READ_LIMIT else None
        first = whole[:head] if whole is not None else _pread(fd, head, 0)
        if len(first) < head or first[: len(MAGIC)] != MAGIC:
            return None
        (length,) = struct.unpack("<Q", first[len(MAGIC) :])
        if head + length > size:
            return None
        raw = whole[head : head + length] if whole is not None else _pread(fd, length, head)
        header = json.loads(raw.decode("utf-8"))
        if header.get("kind") != kind or header.get("format") != format:
            return None
        base = head + length + _pad(head + length)
        arrays = {}
        for name, spec in header["arrays"].items():
            if name in skip:
                continue
            dtype = np.dtype(spec["dtype"])
            shape = tuple(int(n) for n in spec["shape"])
            count = 1
            for n in shape:
                count *= n
            offset = base + int(spec["offset"])
            if offset + count * dtype.itemsize > size:
                return None
            if whole is not None:
                array = np.frombuffer(whole, dtype=dtype, count=count, offset=offset)
            else:
                array = np.frombuffer(_pread(fd, count * dtype.itemsize, offset), dtype=dtype, count=count)
            expected = spec.get("crc32")
            if expected is not None and _crc(array) != expected:
                return None  # damaged: the caller rebuilds the table from its sources
            arrays[name] = array.reshape(shape)
        meta = header.get("meta") or {}
        if not isinstance(meta, dict):
            return None
        return Pack(kind, format, meta, arrays)
    except (OSError, ValueError, KeyError, TypeError, struct.error, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def pack_problem(path: Path) -> str | None:
    """What is wrong with the packed file at ``path`` (any kind), or None: a bad
    header, an array past the end, or an array whose CRC-32 differs."""
    try:
        with open(path, "rb") as handle:
            first = handle.read(len(MAGIC) + 8)
            if len(first) < len(MAGIC) + 8 or first[: len(MAGIC)] != MAGIC:
                return "not a packed file"
            header = json.loads(handle.read(struct.unpack("<Q", first[len(MAGIC) :])[0]).decode("utf-8"))
        kind, format = header["kind"], header["format"]
    except (OSError, ValueError, KeyError, TypeError, struct.error, UnicodeDecodeError) as exc:
        return f"unreadable header ({exc})"
    if read_pack(path, kind, format) is None:
        return "an array is damaged or cut short"
    return None
