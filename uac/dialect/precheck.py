"""Layer 1 of validation: checks on the raw text of generated code.

They run before any parser sees the text: size limit, UTF-8 only, no NUL, no
byte-order mark, no ``coding`` declaration, no non-ASCII character outside
string literals and comments (so Unicode look-alikes and NFKC-normalised
identifiers never reach the parser), and the bracket nesting depth measured
on the text (nesting bombs are refused before ``ast.parse`` could recurse on
them).  :func:`split_code` separates string literals from code; the fast
loader (:mod:`.fastload`) reuses its output.
"""

from __future__ import annotations

import re

from . import limits
from .problems import CodeRejected, reject

_TOKENS = re.compile(
    r'("""[\s\S]*?"""' r"|'''[\s\S]*?'''" r'|"(?:[^"\\\n]|\\[\s\S])*"' r"|'(?:[^'\\\n]|\\[\s\S])*'" r"|#[^\n]*)"
)
_STRINGS_AND_COMMENTS = re.compile(
    r"""(?:[rRbBuUfF]{0,2})(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|"(?:[^"\\\n]|\\[\s\S])*"|'(?:[^'\\\n]|\\[\s\S])*')|\#[^\n]*"""
)
_NOT_BRACKETS = re.compile(r"[^\[\](){}]+")
_INNERMOST = re.compile(r"\(\)|\[\]|\{\}")
_CODING = re.compile(r"^[ \t\f]*#.*?coding[:=]", re.MULTILINE)
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def precheck(data: bytes | str, path: str, *, max_bytes: int) -> str:
    """Check the raw text and return it decoded; raises :class:`CodeRejected`."""
    return precheck_split(data, path, max_bytes=max_bytes)[0]


def precheck_split(data: bytes | str, path: str, *, max_bytes: int, depth: bool = True) -> tuple[str, str, list[str]]:
    """:func:`precheck`, returning ``(text, code, strings)``: the code has each
    string literal replaced by NUL and comments removed (see :func:`split_code`).

    ``depth=False`` leaves the bracket-depth check to the caller, which must
    run :func:`check_depth` before handing the text to any parser."""
    size = len(data) if isinstance(data, bytes) else len(data.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise reject(path, 0, f"file is {size:,} bytes; the limit is {max_bytes:,}")
    if isinstance(data, bytes):
        if data.startswith(b"\xef\xbb\xbf"):
            raise reject(path, 1, "byte-order mark not allowed (plain UTF-8 only)")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise reject(path, data.count(b"\n", 0, exc.start) + 1, f"not valid UTF-8 (byte {exc.start})") from None
    else:
        text = data
        if text.startswith("\ufeff"):
            raise reject(path, 1, "byte-order mark not allowed (plain UTF-8 only)")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise reject(path, _line_of(text, exc.start), "not encodable as UTF-8 (lone surrogate)") from None
    nul = text.find("\x00")
    if nul >= 0:
        raise reject(path, _line_of(text, nul), "NUL character not allowed")
    coding = _CODING.search(text)
    if coding:
        raise reject(
            path, _line_of(text, coding.start()), "encoding declarations ('# coding:' / '-*- coding') are not allowed"
        )
    code, strings = split_code(text)
    if not code.isascii():
        lined = _STRINGS_AND_COMMENTS.sub(_blank, text)  # keeps line numbers, for the message
        odd = _NON_ASCII.search(lined)
        assert odd is not None
        raise reject(
            path,
            _line_of(lined, odd.start()),
            f"non-ASCII character {odd.group()!r} (U+{ord(odd.group()):04X}) outside a string: identifiers must be ASCII",
        )
    if depth:
        check_depth(text, code, path)
    return text, code, strings


def check_depth(text: str, code: str, path: str) -> None:
    """The bracket-depth limit on ``code`` (line numbers of a failure from ``text``)."""
    try:
        _check_bracket_depth(code, path)
    except CodeRejected:
        _check_bracket_depth(_STRINGS_AND_COMMENTS.sub(_blank, text), path)
        raise


def _blank(match: re.Match[str]) -> str:
    # keep line numbers: a string or comment becomes its newlines only
    return '""' + "\n" * match.group().count("\n") if not match.group().startswith("#") else ""


def _check_bracket_depth(code: str, path: str) -> None:
    brackets = _NOT_BRACKETS.sub("", code)
    for _depth in range(limits.MAX_BRACKET_DEPTH + 1):
        if not brackets:
            return
        reduced = _INNERMOST.sub("", brackets)
        if reduced == brackets:
            raise reject(path, 0, "unbalanced or mismatched brackets")
        brackets = reduced
    if brackets:
        first = _first_deep_line(code)
        raise reject(path, first, f"brackets nested deeper than {limits.MAX_BRACKET_DEPTH} levels")


def _first_deep_line(code: str) -> int:
    depth = 0
    line = 1
    for char in code:
        if char == "\n":
            line += 1
        elif char in "([{":
            depth += 1
            if depth > limits.MAX_BRACKET_DEPTH:
                return line
        elif char in ")]}":
            depth -= 1
    return 0


def split_code(text: str) -> tuple[str, list[str]]:
    """``(code, strings)``: each string literal replaced by NUL, comments removed.

    A string prefix (``r``, ``b``, ``f``...) stays in the code as a letter
    right before the NUL, which the fast path never accepts.
    """
    parts = _TOKENS.split(text)
    strings: list[str] = []
    for index in range(1, len(parts), 2):
        token = parts[index]
        if token[0] == "#":
            parts[index] = ""
        else:
            strings.append(token)
            parts[index] = "\x00"
    return "".join(parts), strings


__all__ = ["check_depth", "precheck", "precheck_split", "split_code"]
