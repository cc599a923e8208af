"""The sandbox as an OpenAI function-calling tool."""

from __future__ import annotations

import json
from typing import Any

from .result import RunResult

PYTHON_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "python",
        "description": (
            "Run Python analysis code over the user's typed records in a sandbox. "
            "Every collection is a read-only global under its own name (e.g. `trips`) and under its "
            "domain (`travel.trips`); records have typed fields (dates are datetime.date). "
            "Assign the answer to a variable named `result` (returned as JSON); print() output is "
            "returned too. Variables persist between calls. Allowed imports: collections, datetime, "
            "decimal, fractions, functools, itertools, json, math, operator, re, statistics. "
            "No files, network, getattr/eval/exec, or names starting with '_'."
        ),
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


def execute_tool_call(session: Any, arguments: str | dict) -> str:
    """Run a ``python`` tool call on ``session``; returns the JSON text of the RunResult.

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
    return session.run(arguments["code"]).to_json_text()
