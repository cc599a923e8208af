"""The one tolerant reader for structured (JSON) replies.

Real models wrap their JSON in prose, code fences or reasoning, write numbers
as strings and forget keys that may be null.  Every structured call in uac
reads its reply here (:meth:`ChatResponse.json`, :func:`read_json`):

1. reasoning is removed: ``<think>...</think>`` (also ``<thinking>``,
   ``<reasoning>``), everything before a lone closing tag, everything after an
   opening tag that never closes (``reasoning_content`` never reaches the
   content in the first place);
2. JSON is located: the whole text, then fenced blocks anywhere, then JSON
   values embedded in prose (trailing commas forgiven);
3. the value is conformed to the schema with safe coercions only -- numeral
   strings to numbers, ``"true"``/``"false"`` to booleans, numbers to strings, a
   lone value to a one-item list, a missing nullable key to ``null``, keys the
   schema forbids dropped, keys in the wrong case renamed, a bare list to the
   object whose only required property is that list;
4. the result is validated strictly (types, required keys, enums, items).

A reply that fails is an :class:`~uac.errors.InvalidReply` listing the
problems (a :class:`~uac.errors.ReplyCutOff` when the endpoint said it stopped
at the token limit), and it is never cached.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from ..errors import InvalidReply

#: replies longer than this are refused before any parsing
MAX_REPLY_CHARS = 2_000_000
#: at most this many start positions are tried when looking for JSON inside prose
MAX_SCAN_STARTS = 64

_REASONING_TAGS = ("think", "thinking", "reasoning")
_FENCE = re.compile(r"```[ \t]*[A-Za-z0-9_+.-]*[ \t]*\r?\n(.*?)(?:```|\Z)", re.S)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}
_NULL_WORDS = {"null", "none", "n/a", "na", "nil", ""}


def strip_reasoning(text: str | None) -> str:
    """``text`` without reasoning blocks (see the module docstring)."""
    if not text:
        return ""
    for tag in _REASONING_TAGS:
        text = re.sub(rf"<{tag}>.*?</{tag}>", "", text, flags=re.S | re.I)
        closing = re.search(rf"</{tag}>", text, flags=re.I)
        if closing:
            text = text[closing.end() :]
        opening = re.search(rf"<{tag}>", text, flags=re.I)
        if opening:
            text = text[: opening.start()]
    return text.strip()


def looks_binary(text: str) -> bool:
    """Does ``text`` look like bytes rather than words (NULs, many control characters)?"""
    if "\x00" in text:
        return True
    sample = text[:4000]
    if not sample:
        return False
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t")
    return control / len(sample) > 0.05


class _Unreadable(ValueError):
    """Not JSON, or JSON nested too deep to read (internal)."""


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        repaired = _TRAILING_COMMA.sub(r"\1", text)
        if repaired == text:
            raise _Unreadable(text[:40]) from None
        try:
            return json.loads(repaired)
        except json.JSONDecodeError:
            raise _Unreadable(text[:40]) from None
    except RecursionError:
        raise _Unreadable("nested too deep") from None


_MISSING = object()


def json_candidates(text: str) -> Iterator[Any]:
    """Every JSON value found in ``text``, most likely first (see the module docstring)."""
    stripped = text.strip()
    seen_spans: list[tuple[int, int]] = []
    if stripped:
        try:
            yield _loads(stripped)
        except _Unreadable:
            pass
    for match in _FENCE.finditer(text):
        body = match.group(1).strip()
        if body:
            try:
                yield _loads(body)
            except _Unreadable:
                pass
    decoder = json.JSONDecoder()
    position = 0
    starts = 0
    while starts < MAX_SCAN_STARTS:
        found = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not found:
            return
        start = min(found)
        starts += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            position = start + 1
            continue
        if not any(a <= start < b for a, b in seen_spans):
            seen_spans.append((start, end))
            yield value
        position = end


# --- conforming to a schema --------------------------------------------------------


def _types(schema: dict[str, Any]) -> list[str]:
    kind = schema.get("type")
    if kind is None:
        return []
    return list(kind) if isinstance(kind, (list, tuple)) else [kind]


def _is(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    return True


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _coerce(value: Any, kind: str, schema: dict[str, Any]) -> Any:
    """``value`` turned into ``kind`` by a safe coercion, or :data:`_MISSING`."""
    if kind == "integer":
        if isinstance(value, str) and _INT.match(value.strip()):
            return int(value.strip())
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif kind == "number":
        if isinstance(value, str) and _FLOAT.match(value.strip()):
            number = float(value.strip())
            return int(number) if _INT.match(value.strip()) else number
    elif kind == "boolean":
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return bool(value)
    elif kind == "string":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
    elif kind == "null":
        if isinstance(value, str) and value.strip().lower() in _NULL_WORDS:
            return None
    elif kind == "array":
        if value is not None and not isinstance(value, (list, dict)):
            return [value]
        if isinstance(value, dict) and isinstance(schema.get("items"), dict) and "object" in _types(schema["items"]):
            return [value]
    elif kind == "object":
        if isinstance(value, list):
            props = schema.get("properties") or {}
            lists = [k for k in schema.get("required", []) if "array" in _types(props.get(k, {}))]
            if len(lists) == 1 and len(schema.get("required", [])) == 1:
                return {lists[0]: value}
    return _MISSING


@dataclass
class Conformed:
    value: Any
    coercions: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def conform(value: Any, schema: dict[str, Any] | None, path: str = "$") -> Conformed:
    """``value`` checked against ``schema`` after safe coercions (see the module docstring)."""
    out = Conformed(value)
    if not schema:
        return out
    _conform(value, schema, path, out)
    return out


def _conform(value: Any, schema: dict[str, Any], path: str, out: Conformed) -> Any:
    kinds = _types(schema)
    if kinds and not any(_is(value, k) for k in kinds):
        for kind in kinds:
            coerced = _coerce(value, kind, schema)
            if coerced is not _MISSING:
                out.coercions.append(f"{path}: {_kind_of(value)} read as {kind}")
                value = coerced
                break
        else:
            out.problems.append(f"{path}: expected {' or '.join(kinds)}, got {_kind_of(value)}")
            return _set(out, path, value)
    if "enum" in schema and value not in schema["enum"]:
        out.problems.append(f"{path}: {value!r} is not one of {', '.join(map(repr, schema['enum']))}")
    if isinstance(value, dict) and ("properties" in schema or "additionalProperties" in schema):
        value = _conform_object(value, schema, path, out)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        value = [_conform(item, schema["items"], f"{path}[{i}]", out) for i, item in enumerate(value)]
    return _set(out, path, value)


def _set(out: Conformed, path: str, value: Any) -> Any:
    if path == "$":
        out.value = value
    return value


def _conform_object(value: dict[str, Any], schema: dict[str, Any], path: str, out: Conformed) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties") or {}
    result: dict[str, Any] = {}
    lowered = {k.lower(): k for k in value if isinstance(k, str)}
    used: set[str] = set()
    for name, sub in props.items():
        key = name if name in value else lowered.get(name.lower())
        if key is not None and key in value:
            if key != name:
                out.coercions.append(f"{path}.{key}: key read as {name!r}")
            used.add(key)
            result[name] = _conform(value[key], sub, f"{path}.{name}", out)
        elif name in schema.get("required", []):
            if "null" in _types(sub):
                out.coercions.append(f"{path}.{name}: missing, read as null")
                result[name] = None
            else:
                out.problems.append(f"{path}.{name}: missing")
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in used or key in props:
            continue
        if extra is False:
            out.coercions.append(f"{path}.{key}: unexpected key dropped")
        elif isinstance(extra, dict):
            result[key] = _conform(item, extra, f"{path}.{key}", out)
        else:
            result[key] = item
    return result


# --- reading a reply ------------------------------------------------------------------


@dataclass
class Structured:
    """A structured reply as read: the value, the coercions applied, where it was found."""

    value: Any
    coercions: list[str] = field(default_factory=list)


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return repr(text[:160] + ("..." if len(text) > 160 else ""))


def parse_structured(text: str | None, schema: dict[str, Any] | None = None) -> Structured:
    """Find and conform the JSON value of ``text``; raises :class:`InvalidReply`."""
    raw = text or ""
    if len(raw) > MAX_REPLY_CHARS:
        raise InvalidReply(
            f"the model's reply is {len(raw):,} characters long, more than the {MAX_REPLY_CHARS:,} uac reads.",
            problems=["the reply is far too long; answer with the JSON only"],
            hint="A model that repeats itself endlessly needs a lower [llm.max_tokens] limit or a stronger model.",
        )
    if looks_binary(raw):
        raise InvalidReply(
            "the model's reply looks like binary data, not text.",
            problems=["the reply is not text; answer with the JSON only"],
            hint="Check that UAC_LLM_MODEL names a chat model and that the endpoint is an OpenAI-compatible /v1.",
        )
    body = strip_reasoning(raw)
    if not body:
        raise InvalidReply(
            "the model's reply is not valid JSON: it is empty"
            + (" after its reasoning block." if raw.strip() else "."),
            problems=["the reply was empty; answer with the JSON value"],
            hint="If this repeats, the model may be spending its tokens on reasoning: raise [llm.max_tokens].",
        )
    best: Conformed | None = None
    for candidate in json_candidates(body):
        conformed = conform(candidate, schema)
        if not conformed.problems:
            return Structured(conformed.value, conformed.coercions)
        if best is None or len(conformed.problems) < len(best.problems):
            best = conformed
    if best is None:
        raise InvalidReply(
            f"the model's reply is not valid JSON (no JSON value found in it): {_snippet(body)}.",
            problems=["no JSON value was found in the reply; answer with the JSON only"],
            hint="If this repeats, use a model that follows JSON instructions, or check [llm] json_mode.",
        )
    shown = "; ".join(best.problems[:6])
    raise InvalidReply(
        f"the model's reply does not match the expected shape: {shown}.",
        problems=best.problems,
        hint="If this repeats, use a stronger model.",
    )


def clean_id(value: Any) -> str:
    """An id as models write it, reduced to the id: ``"[F12]"``, ``" 'F12' "``, ``"id: F12"`` -> ``"F12"``."""
    text = str(value).strip()
    for _ in range(3):
        before = text
        text = text.strip().strip("`'\"").strip()
        if len(text) >= 2 and text[0] + text[-1] in ("[]", "()", "<>", "{}"):
            text = text[1:-1].strip()
        text = re.sub(r"^(?:id|fact|fact id)\s*[:=#]\s*", "", text, flags=re.I)
        if text == before:
            break
    return text


def list_reply_schema(key: str, properties: dict[str, Any], required: Sequence[str] | None = None) -> dict[str, Any]:
    """The schema of a reply that is one list of objects under ``key``: each item has the
    ``properties`` and no others, with ``required`` of them (all when not given)."""
    item = {
        "type": "object",
        "properties": properties,
        "required": list(properties if required is None else required),
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {key: {"type": "array", "items": item}},
        "required": [key],
        "additionalProperties": False,
    }


def list_reply_outline(key: str) -> dict[str, Any]:
    """Only the outer shape of a :func:`list_reply_schema` reply, for a reader that
    takes its items one by one (an unreadable item then costs that item alone)."""
    return {"type": "object", "properties": {key: {"type": "array"}}, "required": [key]}


__all__ = [
    "MAX_REPLY_CHARS",
    "Conformed",
    "Structured",
    "clean_id",
    "conform",
    "json_candidates",
    "list_reply_outline",
    "list_reply_schema",
    "looks_binary",
    "parse_structured",
    "strip_reasoning",
]
