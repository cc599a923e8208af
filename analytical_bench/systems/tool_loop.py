"""The function-calling loop of the REPL systems: the model calls the
sandbox's ``python`` tool, each result goes back as a tool message, for at
most ``max_steps`` model turns; then one last call without tools asks for
the answer."""

from __future__ import annotations

import json
from typing import Any

from uac import LLMClient, Message, Usage

from ..prompts import render

DEFAULT_MAX_STEPS = 8


def run_tool_loop(
    llm: LLMClient,
    messages: list[Message],
    session: Any,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    purpose: str,
    tool: dict[str, Any] | None = None,
) -> tuple[str, list[dict[str, Any]], Usage]:
    """Drive the conversation; returns ``(final text, tool calls, usage)``.

    ``tool`` is the function schema offered (default: the python tool with
    its generic description); each result goes back capped as the sandbox
    caps it (:func:`sandbox.tool.cap_output`).
    """
    from sandbox.tool import PYTHON_TOOL, execute_tool_call

    usage = Usage()
    calls: list[dict[str, Any]] = []
    messages = list(messages)
    for _step in range(max_steps):
        response = llm.chat(messages, tools=[tool or PYTHON_TOOL], purpose=purpose)
        usage.add(response.usage)
        if not response.tool_calls:
            return (response.content or "").strip(), calls, usage
        messages.append(response.message())
        for call in response.tool_calls:
            if call.name == "python":
                output = execute_tool_call(session, call.arguments)
            else:
                output = json.dumps(
                    {
                        "ok": False,
                        "result": None,
                        "stdout": "",
                        "error": {
                            "type": "UnknownTool",
                            "message": f"there is no tool named {call.name!r}; use python",
                        },
                    }
                )
            calls.append({"name": call.name, "arguments": call.arguments, "output": output})
            messages.append(Message("tool", output, tool_call_id=call.id, name=call.name))
    messages.append(Message("user", render("final_answer")))
    response = llm.chat(messages, purpose=purpose)
    usage.add(response.usage)
    return (response.content or "").strip(), calls, usage
