"""Tool calls written as text, the way many models and servers deliver them.

A model served without a tool parser (vLLM without ``--tool-call-parser``,
llama.cpp without ``--jinja``, many Ollama models) still tries to call tools,
but in its text: Hermes/Qwen ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``
blocks, Llama-style ``<function=name>{...}</function>``, a bare JSON object
``{"name": ..., "arguments": ...}``, or simply a fenced ```python block.
:func:`text_tool_calls` finds them so they run as tool calls instead of being
returned as the answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .structured import strip_reasoning
from .types import ToolCall

_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.S | re.I)
_FUNCTION_TAG = re.compile(r"<function=([A-Za-z_][\w.-]*)>\s*(.*?)\s*</function>", re.S)
_CODE_BLOCK = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\r?\n(.*?)```", re.S | re.I)


def _arguments(value: Any) -> str:
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _from_object(data: Any, number: int) -> ToolCall | None:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    arguments = data.get("arguments", data.get("parameters"))
    return ToolCall(id=f"text_call_{number}", name=data["name"], arguments=_arguments(arguments))


def text_tool_calls(text: str | None, *, code_tool: str = "python", code_argument: str = "code") -> list[ToolCall]:
    """The tool calls written in ``text`` (reasoning ignored), in order; ``[]`` if none.

    A fenced code block becomes a call of ``code_tool`` with ``{code_argument: code}``.
    A ``<tool_call>`` block that is not JSON becomes a call whose arguments are
    the raw text, so the caller can report the problem back to the model.
    """
    body = strip_reasoning(text)
    if not body:
        return []
    calls: list[ToolCall] = []
    for number, match in enumerate(_TOOL_CALL_TAG.finditer(body), 1):
        raw = match.group(1).strip()
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            calls.append(ToolCall(id=f"text_call_{number}", name="", arguments=raw))
            continue
        call = _from_object(data, number)
        calls.append(call or ToolCall(id=f"text_call_{number}", name="", arguments=raw))
    if calls:
        return calls
    for number, match in enumerate(_FUNCTION_TAG.finditer(body), 1):
        calls.append(ToolCall(id=f"text_call_{number}", name=match.group(1), arguments=match.group(2).strip() or "{}"))
    if calls:
        return calls
    if body.startswith("{") and body.endswith("}"):
        try:
            call = _from_object(json.loads(body), 1)
        except json.JSONDecodeError:
            call = None
        if call is not None and (call.arguments.startswith("{") or call.arguments == "{}"):
            return [call]
    for number, match in enumerate(_CODE_BLOCK.finditer(body), 1):
        code = match.group(1)
        if code.strip():
            calls.append(
                ToolCall(id=f"text_call_{number}", name=code_tool, arguments=json.dumps({code_argument: code}))
            )
    return calls[:1]  # one code block per step: the first


__all__ = ["text_tool_calls"]
