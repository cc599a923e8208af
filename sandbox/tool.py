"""The sandbox as a function-calling tool: its description, its calls, its output.

The description is generated from the policy itself -- the builtins that
exist (:mod:`sandbox.builtins`), the importable modules
(:mod:`sandbox.modules`), what is refused and what to write instead -- and,
given a state payload, from what the state holds (:mod:`sandbox.catalog`):
the collections with their record types and fields, the names several
domains share, the enum types and the fact list.  So it says what the worker
really does and cannot drift from it.

The text sent back to the model is capped (:func:`cap_output`): past
``max_chars`` characters, ``stdout`` and ``result`` are cut and a ``cut``
field says what was left out.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from .builtins import ALTERNATIVES, FORBIDDEN_BUILTINS, HELPERS, SAFE_BUILTINS
from .catalog import StateCatalog, catalog
from .guards import SENSITIVE_ATTRIBUTES
from .modules import ALLOWED_MODULES
from .result import RunResult

#: characters of a run's JSON sent back to the model, unless told otherwise
DEFAULT_OUTPUT_CHARS = 8_000
#: collections listed by name in the description (the rest: repl_names())
MAX_LISTED = 40
#: the unavailable builtins the description names, with what replaces them
_DESCRIBED = ("type", "getattr", "hasattr", "dir", "globals", "vars", "help", "eval", "exec", "open")


def reserved_names() -> frozenset[str]:
    """Names state collections cannot take as globals (the worker's builtins)."""
    return (
        frozenset(SAFE_BUILTINS)
        | frozenset(FORBIDDEN_BUILTINS)
        | frozenset(HELPERS)
        | {"__import__", "__build_class__"}
    )


def _fields_text(fields: list[tuple[str, str]]) -> str:
    return ", ".join(f"{name} ({kind})" for name, kind in fields) or "(none)"


#: what the description says about the ``Period`` values a state holds: without it a model
#: filters them by their words (``'June 2023' in str(p)``), which misses a week that
#: straddles two months, a season, a range
PERIOD_LINE = (
    "- a `Period` (the fields of kind Period above) is when something happened, known to a day, week, "
    "weekend, month, season, year or range: `p.start` and `p.end` are datetime.date (both included) and "
    "`p.precision` says which of those it is (an optional field may hold None instead); `d in p` tests a "
    "date, `p.overlaps(x)` whether it shares a day with a date or another Period. For a time window compare the dates: `p.start <= last and first <= p.end` "
    "(overlaps the window), `first <= p.start and p.end <= last` (inside it). Periods sort and compare with "
    'dates. `str(p)` says it in words ("the week before 9 June 2023"): read it, never filter on it'
)


#: what the description says about references, when the state holds any
REF_LINE = (
    "- a `Ref` (the fields of kind Ref above) names a record of a domain by id: `r.domain`, `r.id`, and "
    '`r.resolve()` returns that record (LookupError if the state holds none); `str(r)` is "<domain>/<id>"'
)


def _holds_refs(info: StateCatalog) -> bool:
    kinds = [kind for item in info.collections[:MAX_LISTED] for _name, kind in item.fields]
    return "Ref" in kinds


def _holds_periods(info: StateCatalog) -> bool:
    kinds = [kind for item in info.collections[:MAX_LISTED] for _name, kind in item.fields]
    kinds += [item.kind for item in info.collections[:MAX_LISTED] if item.kind]
    kinds += [kind for _name, kind in info.fact_fields]
    return "Period" in kinds


def _state_lines(info: StateCatalog) -> list[str]:
    lines: list[str] = []
    for item in info.collections[:MAX_LISTED]:
        if item.domain + "." + item.name in {q for qs in info.shared.values() for q in qs}:
            name = f"`{item.qualified}`"
        elif item.global_name:
            name = f"`{item.qualified}` (also `{item.global_name}`)"
        else:
            name = f"`{item.qualified}`"
        if item.type_name is not None:
            lines.append(f"- {name}: {item.count} {item.type_name} records; fields: {_fields_text(item.fields)}")
        elif item.count is not None:
            lines.append(f"- {name}: a list of {item.count} values" + (f" ({item.kind})" if item.kind else ""))
        else:
            lines.append(f"- {name}: a {item.kind} value")
    if len(info.collections) > MAX_LISTED:
        lines.append(f"- ... and {len(info.collections) - MAX_LISTED} more collections: repl_names() lists them all")
    for name, where in info.shared.items():
        lines.append(
            f"- `{name}` is a collection of several domains, so there is no global `{name}`: write "
            + " or ".join(f"`{q}`" for q in where)
        )
    if info.facts_count is not None:
        lines.append(
            f"- `facts`: {info.facts_count} Fact records, the individual statements of the conversations "
            f"(use them for what the typed records lack); fields: {_fields_text(info.fact_fields)}"
        )
    if _holds_periods(info):
        lines.append(PERIOD_LINE)
    if _holds_refs(info):
        lines.append(REF_LINE)
    for name, members in info.enums.items():
        global_note = f" (the global `{name}`)" if name in info.enum_globals else ""
        lines.append(
            f"- enum `{name}`{global_note}, members {', '.join(members)}: a field of this type holds a member, "
            "so `x.value` and `x.name` work and a member of a string enum equals its value"
        )
    return lines


def describe_python_tool(payload: Mapping[str, Any] | None = None, *, output_chars: int = DEFAULT_OUTPUT_CHARS) -> str:
    """The ``python`` tool's description for a state ``payload`` (None: no state given)."""
    info = catalog(payload, reserved_names())
    functions = [n for n in SAFE_BUILTINS if n[:1].islower()]
    exceptions = [
        n for n in SAFE_BUILTINS if n[:1].isupper() and n not in ("True", "False", "None", "NotImplemented", "Ellipsis")
    ]
    parts = [
        "Run Python code in a sandbox over the user's memory. The code runs as a module; assign the answer to "
        "`result` (sent back as JSON) and/or print() it. "
        f"What comes back is cut at {output_chars:,} characters, so return a count, a sum or the first items, "
        "not whole collections.",
        "Variables, functions and imports persist across calls, also after a call that raised an error "
        "(only a call stopped by the time or memory limit restarts the session and loses them).",
    ]
    lines = _state_lines(info)
    if lines:
        parts.append(
            "Defined in the session (read-only: copy with list(...) or dict(...) to change; dates are "
            "datetime.date):\n" + "\n".join(lines)
        )
    elif payload is not None:
        parts.append("The session holds no records.")
    else:
        parts.append(
            "Every collection of the state is a read-only global under its domain (e.g. `travel.trips`) and, "
            "when no other domain has a collection of that name, under its own name (`trips`)."
        )
    parts.append(
        "Builtins: " + ", ".join(functions) + "; exceptions " + ", ".join(exceptions) + ". "
        "Helpers: " + "; ".join(HELPERS.values()) + "."
    )
    parts.append(
        "Imports: "
        + ", ".join(ALLOWED_MODULES)
        + " (none is imported for you: write `import re` before using re; no other module)."
    )
    refused = [f"{name}() (use {ALTERNATIVES[name]})" for name in _DESCRIBED if name in ALTERNATIVES]
    if {"format", "format_map"} & SENSITIVE_ATTRIBUTES:
        refused.append("str.format and format_map (use f-strings)")
    parts.append(
        "Not available: "
        + "; ".join(refused)
        + "; files and network. Names starting with `_` are refused (`__class__`, `_asdict`, `_x = 1`)."
    )
    return "\n".join(parts)


def python_tool(
    payload: Mapping[str, Any] | None = None, *, output_chars: int = DEFAULT_OUTPUT_CHARS
) -> dict[str, Any]:
    """The OpenAI function-calling schema of the ``python`` tool for ``payload``."""
    return {
        "type": "function",
        "function": {
            "name": "python",
            "description": describe_python_tool(payload, output_chars=output_chars),
            "parameters": {
                "type": "object",
                "properties": {
                    "code": {
                        "type": "string",
                        "description": "Python code to run; set `result` to the value to return.",
                    }
                },
                "required": ["code"],
                "additionalProperties": False,
            },
        },
    }


#: the tool with the generic description (no particular state)
PYTHON_TOOL: dict[str, Any] = python_tool()


def cap_output(run: Mapping[str, Any], max_chars: int = DEFAULT_OUTPUT_CHARS) -> str:
    """The JSON text of a run's ``{"ok", "result", "stdout", "error"}``, at most ``max_chars``
    characters (never less than about 600, the room the ``cut`` note needs).

    When the whole text is longer, ``stdout`` keeps its beginning, a ``result``
    too long becomes the beginning of its JSON text (a string), and a ``cut``
    field says how much of each was left out.
    """
    text = json.dumps(dict(run), ensure_ascii=False)
    if len(text) <= max_chars:
        return text
    result_text = json.dumps(run.get("result"), ensure_ascii=False)
    stdout = str(run.get("stdout") or "")
    error = run.get("error")
    if isinstance(error, Mapping) and len(str(error.get("message", ""))) > 2_000:
        error = {**error, "message": str(error["message"])[:2_000] + " ..."}
    budget = max(200, max_chars - 400)
    share = budget // 2
    if len(result_text) <= share:
        keep_result, keep_stdout = len(result_text), budget - len(result_text)
    elif len(stdout) <= share:
        keep_result, keep_stdout = budget - len(stdout), len(stdout)
    else:
        keep_result = keep_stdout = share
    while True:
        text = _capped_text(run, error, result_text, stdout, keep_result, keep_stdout, max_chars)
        over = len(text) - max_chars
        if over <= 0 or keep_result + keep_stdout == 0:
            return text
        # escaping (quotes, newlines) made the text longer than counted: cut more, in proportion
        total = keep_result + keep_stdout
        keep_result = max(0, keep_result - (over * keep_result + total - 1) // total - 1)
        keep_stdout = max(0, keep_stdout - (over * keep_stdout + total - 1) // total - 1)


def _capped_text(
    run: Mapping[str, Any],
    error: Any,
    result_text: str,
    stdout: str,
    keep_result: int,
    keep_stdout: int,
    max_chars: int,
) -> str:
    notes = []
    result: Any = run.get("result")
    if keep_result < len(result_text):
        result = result_text[:keep_result]
        notes.append(f"result: the first {keep_result:,} of {len(result_text):,} characters of its JSON")
    if keep_stdout < len(stdout):
        notes.append(f"stdout: the first {keep_stdout:,} of {len(stdout):,} characters")
        stdout = stdout[:keep_stdout]
    capped = {
        "ok": run.get("ok"),
        "result": result,
        "stdout": stdout,
        "error": error,
        "cut": (
            f"output cut at {max_chars:,} characters ({'; '.join(notes)}); "
            "return a smaller value: a count, a sum, or the first items"
        ),
    }
    return json.dumps(capped, ensure_ascii=False)


def execute_tool_call(session: Any, arguments: str | dict, *, max_chars: int = DEFAULT_OUTPUT_CHARS) -> str:
    """Run a ``python`` tool call on ``session``; returns the (capped) JSON text of the RunResult.

    ``arguments`` is the call's arguments (JSON text or an already parsed
    dict).  Bad arguments give an error result, never an exception.
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError as exc:
            return RunResult.failure("InvalidArguments", f"arguments are not valid JSON: {exc}").to_json_text()
    if not isinstance(arguments, dict) or not isinstance(arguments.get("code"), str):
        return RunResult.failure(
            "InvalidArguments", 'arguments must be a JSON object {"code": "<python code>"}'
        ).to_json_text()
    return cap_output(session.run(arguments["code"]).to_json(), max_chars)
