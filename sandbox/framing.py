"""Length-prefixed JSON frames over pipes (host <-> worker).

A frame is a 4-byte big-endian unsigned length followed by that many bytes of
UTF-8 JSON text.  Nothing else ever travels between the two processes: no
pickle, no code objects.  This module is imported by both sides and uses the
standard library only.
"""

from __future__ import annotations

import json
import os
import struct

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 512 * 1024 * 1024


class FrameError(Exception):
    """A frame could not be read or decoded."""


def encode_frame(message: object) -> bytes:
    """Serialise ``message`` to one frame (raises ``ValueError``/``TypeError`` if not JSON)."""
    body = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    if len(body) > MAX_FRAME_BYTES:
        raise ValueError(f"frame of {len(body)} bytes exceeds {MAX_FRAME_BYTES}")
    return HEADER.pack(len(body)) + body


def write_frame(fd: int, message: object) -> None:
    """Write one frame to a file descriptor, handling short writes."""
    data = memoryview(encode_frame(message))
    while data:
        written = os.write(fd, data)
        data = data[written:]


def decode_body(body: bytes) -> object:
    """Decode the JSON body of a frame."""
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"invalid frame body: {exc}") from None


def read_exact(fd: int, size: int) -> bytes:
    """Blocking read of exactly ``size`` bytes; ``FrameError`` on EOF."""
    chunks = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            raise FrameError("end of stream")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> object:
    """Blocking read of one frame (used by the worker)."""
    (size,) = HEADER.unpack(read_exact(fd, HEADER.size))
    if size > MAX_FRAME_BYTES:
        raise FrameError(f"frame of {size} bytes exceeds {MAX_FRAME_BYTES}")
    return decode_body(read_exact(fd, size))
