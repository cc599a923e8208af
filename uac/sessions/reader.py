"""Reading an input file: bytes to text to JSON, with errors that name the spot.

Every problem is an :class:`~uac.errors.InputError` naming the file and, where
it applies, the line and column (bad JSON) or byte offset (bad UTF-8).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import safejson
from ..errors import InputError
from ..fsutil import split_lines

#: the longest single turn uac accepts (characters); longer ones are refused
MAX_TURN_CHARS = 100_000


def read_text(path: Path) -> str:
    path = Path(path)
    if not path.exists():
        raise InputError(f"{path} does not exist.", hint="Check the path of the session file.")
    if not path.is_file():
        raise InputError(f"{path} is not a file.")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{path} is not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line}) cannot be decoded.",
            hint="Convert the file to UTF-8 (e.g. 'iconv -f latin1 -t utf-8').",
        ) from None
    return text.removeprefix("\ufeff")


def parse_json(text: str, path: Path, *, line_offset: int = 0) -> Any:
    return safejson.loads(
        text,
        str(path),
        hint="Fix the JSON, or give {opt:format} transcript if it is a plain transcript.",
        line_offset=line_offset,
    )


def parse_jsonl(text: str, path: Path) -> list[Any]:
    values = []
    for number, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        values.append(parse_json(line, path, line_offset=number - 1))
    return values


def check_turn_size(text: str, path: Path, where: str) -> None:
    if len(text) > MAX_TURN_CHARS:
        raise InputError(
            f"{path}: {where} is {len(text):,} characters long; uac accepts turns of up to "
            f"{MAX_TURN_CHARS:,} characters.",
            hint="Split the message into several turns (or store the document elsewhere and refer to it).",
        )
