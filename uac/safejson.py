"""JSON from outside (session files, records, request bodies), parsed with limits.

``json.loads`` accepts documents uac cannot store or work with: nesting deep
enough to exhaust the interpreter's recursion limit, integers with thousands
of digits (past Python's conversion limit), numbers that overflow to
infinity, and lone UTF-16 surrogates (``"\\ud800"``), which no UTF-8 file can
hold.  :func:`loads` refuses each of them with an :class:`~uac.errors.InputError`
that names the input and the spot.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .errors import InputError

#: deepest nesting of arrays and objects accepted (a LoCoMo file needs 4)
MAX_DEPTH = 32
#: longest integer accepted, in digits
MAX_INT_DIGITS = 1000

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Refused(ValueError):
    pass


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"an integer with {digits:,} digits (at most {MAX_INT_DIGITS:,} are accepted)")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:40]}{'...' if len(text) > 40 else ''} is too large to store")
    return value


def _parse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number uac can store")


def has_lone_surrogate(text: str) -> bool:
    """True if ``text`` holds a UTF-16 surrogate that is not part of a pair."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(text: str, what: str) -> str:
    """``text``, or an :class:`InputError` if it is not valid Unicode (a lone surrogate:
    on the command line, bytes that are not UTF-8 arrive as those)."""
    if has_lone_surrogate(text):
        raise InputError(
            f"{what} is not valid Unicode text (it holds a lone surrogate, such as bytes that are not UTF-8).",
            hint="Give the text in UTF-8.",
        )
    return text


def _describe(path: list[Any]) -> str:
    out = "the top level"
    parts = []
    for key in path:
        parts.append(f"[{key}]" if isinstance(key, int) else (f".{key}" if str(key).isidentifier() else f"[{key!r}]"))
    if parts:
        out = "".join(parts).lstrip(".")
    return out if len(out) <= 120 else out[:117] + "..."


def check_value(value: Any, where: str, *, strings: bool = True) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and (``strings``) lone surrogates."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= MAX_DEPTH:
                raise InputError(
                    f"{where}: the JSON is nested more than {MAX_DEPTH} levels deep (at {_describe(_path_to(value, item))}).",
                    hint=f"Flatten the data: uac accepts up to {MAX_DEPTH} levels of arrays and objects.",
                )
            if isinstance(item, dict):
                for key, child in item.items():
                    if strings and has_lone_surrogate(key):
                        _surrogate(where, value, item, key)
                    stack.append((child, depth + 1))
            else:
                stack.extend((child, depth + 1) for child in item)
        elif strings and isinstance(item, str) and has_lone_surrogate(item):
            _surrogate(where, value, item)


def _surrogate(where: str, root: Any, item: Any, key: str | None = None) -> None:
    spot = _describe(_path_to(root, item))
    what = f"the key {key.encode('utf-8', 'backslashreplace').decode()[:60]!r} of {spot}" if key is not None else spot
    raise InputError(
        f"{where}: {what} holds a lone surrogate (an unpaired UTF-16 escape \\ud800-\\udfff), which is not text.",
        hint="Send valid Unicode: a character outside the BMP is a pair of escapes (\\ud83d\\ude00), or write it as UTF-8.",
    )


def _path_to(root: Any, target: Any) -> list[Any]:
    """The keys from ``root`` to the object ``target`` (identity), for messages."""
    stack: list[tuple[Any, list[Any]]] = [(root, [])]
    while stack:
        item, path = stack.pop()
        if item is target:
            return path
        if isinstance(item, dict):
            stack.extend((child, path + [key]) for key, child in item.items())
        elif isinstance(item, list):
            stack.extend((child, path + [index]) for index, child in enumerate(item))
    return []


def loads(text: str, where: str, *, hint: str | None = None, line_offset: int = 0) -> Any:
    """Parse ``text`` (from ``where``: a path or "the request body") within the limits.

    ``hint`` goes with a malformed-JSON error; ``line_offset`` shifts its line
    number (a JSONL line).
    """
    try:
        value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{where}:{exc.lineno + line_offset}:{exc.colno}: not valid JSON ({exc.msg}).", hint=hint
        ) from None
    except _Refused as exc:
        raise InputError(f"{where}: not valid JSON for uac: {exc}.") from None
    except RecursionError:
        raise InputError(
            f"{where}: the JSON is nested more than {MAX_DEPTH} levels deep.",
            hint=f"Flatten the data: uac accepts up to {MAX_DEPTH} levels of arrays and objects.",
        ) from None
    check_value(value, where, strings=bool(_SURROGATE_ESCAPE.search(text)))
    return value
