"""Running checksums of the append-only derived files, recorded as they are written.

The corpus files (``<channel>.jsonl``) and the flat vector copies
(``<channel>.vectors``) grow by appends and are replaced whole now and then.
``.uac/index/digests.json`` records, per file, its length and the CRC-32 of
those bytes.  An append extends the recorded CRC with the appended bytes only
(CRC-32 can be continued, unlike a saved sha256), so writing costs what the
new data costs; a replace records the new file's CRC.  When the record does
not describe the bytes an append follows (no record yet, a crash between a
write and its record), the whole file is checksummed again.

``doctor`` compares every recorded file with its record -- one pass over the
bytes in C, a fraction of a second at 100,000 facts -- and so finds a
derived file that was damaged or changed behind uac's back without reading
its entries.  Like everything under ``.uac/`` the record is derived data.
"""

from __future__ import annotations

import json
import logging
import zlib
from pathlib import Path

from ..fsutil import atomic_write_text, read_json_object

log = logging.getLogger(__name__)

FILE = "digests.json"
BLOCK = 1 << 22


def _path(directory: Path) -> Path:
    return Path(directory) / FILE


def read_digests(directory: Path) -> dict[str, dict[str, int]]:
    data = read_json_object(_path(directory))
    if data is None:
        return {}
    return {
        str(name): {"bytes": int(rec["bytes"]), "crc32": int(rec["crc32"])}
        for name, rec in data.items()
        if isinstance(rec, dict) and type(rec.get("bytes")) is int and type(rec.get("crc32")) is int
    }


def _write(directory: Path, digests: dict[str, dict[str, int]]) -> None:
    try:
        atomic_write_text(_path(directory), json.dumps(digests, sort_keys=True) + "\n")
    except OSError as exc:  # a read-only project: doctor then checks what it can
        log.debug("derived-file checksums not saved in %s: %s", directory, exc)


def file_crc(path: Path) -> tuple[int, int] | None:
    """(length, CRC-32) of a file, or None if there is none."""
    crc, size = 0, 0
    try:
        with open(path, "rb") as handle:
            while block := handle.read(BLOCK):
                crc = zlib.crc32(block, crc)
                size += len(block)
    except FileNotFoundError:
        return None
    return size, crc


def record_file(path: Path) -> None:
    """Record the file as it is now (after a replace or a truncation)."""
    path = Path(path)
    digests = read_digests(path.parent)
    current = file_crc(path)
    if current is None:
        digests.pop(path.name, None)
    else:
        digests[path.name] = {"bytes": current[0], "crc32": current[1]}
    _write(path.parent, digests)


def record_append(path: Path, offset: int, appended: bytes) -> None:
    """Record that ``appended`` was written at ``offset`` (the file's new end)."""
    path = Path(path)
    digests = read_digests(path.parent)
    previous = digests.get(path.name)
    if previous is not None and previous["bytes"] == offset:
        digests[path.name] = {"bytes": offset + len(appended), "crc32": zlib.crc32(appended, previous["crc32"])}
        _write(path.parent, digests)
    else:
        record_file(path)


def forget_file(path: Path) -> None:
    path = Path(path)
    digests = read_digests(path.parent)
    if digests.pop(path.name, None) is not None:
        _write(path.parent, digests)


def check_digests(directory: Path) -> tuple[list[str], int]:
    """(problems, files checked): each recorded file against its record."""
    problems: list[str] = []
    digests = read_digests(directory)
    for name, rec in sorted(digests.items()):
        current = file_crc(Path(directory) / name)
        if current is None:
            problems.append(f".uac/index/{name} is missing")
        elif current[0] != rec["bytes"]:
            problems.append(f".uac/index/{name} holds {current[0]} bytes where {rec['bytes']} were written")
        elif current[1] != rec["crc32"]:
            problems.append(
                f".uac/index/{name} is damaged (its checksum differs from the one recorded when it was written)"
            )
    return problems, len(digests)


__all__ = ["check_digests", "file_crc", "forget_file", "read_digests", "record_append", "record_file"]
