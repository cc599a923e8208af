"""uac's memory for the OpenAI Agents SDK (``pip install 'user-as-code[openai-agents]'``).

>>> agent = with_memory(Agent(name="assistant", instructions="Help Maya."), "maya", root="user_projects")  # doctest: +SKIP
>>> result = await Runner.run(agent, "How many trips did I book in 2023?", session=session)  # doctest: +SKIP
>>> await remember_session(session, "maya", root="user_projects")  # doctest: +SKIP

* :func:`memory_tools` -- the function tools ``search_memory``, ``run_python``,
  ``ask_memory`` and ``remember`` over one user's project;
* :func:`with_memory` -- a copy of an agent with those tools, and instructions that say
  what the memory holds (the project's manifest, read at each run);
* :func:`remember_session` -- an Agents SDK session's conversation (or a run's
  ``result.to_input_list()``) into the memory when it ends; fed again later, only what
  came since is added.

A failed call (wrong argument types, a bad date, a project that does not exist, code
the sandbox refused) returns its error text to the model as the tool's output -- the
SDK's error-string convention -- and the run carries on; nothing is written.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Unpack

from ..extras import require
from ..memory import UserMemory
from ._tools import MemoryTools, ToolError, ToolOptions, ToolSpec, tools_of

require("agents", "openai-agents", what="the OpenAI Agents SDK tools")

from agents import Agent, FunctionTool, RunContextWrapper  # noqa: E402

if TYPE_CHECKING:
    pass

__all__ = ["MemoryTools", "memory_tools", "remember_session", "session_messages", "with_memory"]


def _function_tool(tools: MemoryTools, spec: ToolSpec) -> FunctionTool:
    async def invoke(_context: Any, arguments: str) -> str:
        try:
            return json.dumps(await tools.call(spec.name, arguments), ensure_ascii=False)
        except ToolError as exc:
            return exc.text  # what the model reads; the run goes on

    return FunctionTool(
        name=spec.name,
        description=spec.description,
        params_json_schema=spec.json_schema,
        on_invoke_tool=invoke,
        strict_json_schema=True,
    )


def memory_tools(
    project: "MemoryTools | UserMemory | str | Path", **options: Unpack[ToolOptions]
) -> list[FunctionTool]:
    """The four memory tools as Agents SDK function tools (a failed call's error text is the
    tool's output); the project and the ``options`` are those of :func:`~uac.integrations._tools.tools_of`."""
    tools = tools_of(project, **options)
    return [_function_tool(tools, spec) for spec in tools.specs]


def with_memory(
    agent: Agent[Any], project: "MemoryTools | UserMemory | str | Path", **options: Unpack[ToolOptions]
) -> Agent[Any]:
    """A copy of ``agent`` with the memory tools added and, after its own instructions, what
    the memory is for and holds (the manifest, read at each run).  ``options`` are
    :func:`memory_tools`'."""
    tools = tools_of(project, **options)
    own = agent.instructions

    async def instructions(context: RunContextWrapper[Any], current: Agent[Any]) -> str:
        base = own(context, current) if callable(own) else own
        if inspect.isawaitable(base):
            base = await base
        try:
            memory = await tools.instructions()
        except ToolError as exc:  # the project cannot be opened: say so, the tools will too
            memory = f"The user's memory cannot be read: {exc.text}"
        return "\n\n".join(part for part in (base, memory) if part)

    return agent.clone(
        tools=[*agent.tools, *(_function_tool(tools, spec) for spec in tools.specs)], instructions=instructions
    )


def _item_dict(item: Any) -> Any:
    if hasattr(item, "model_dump"):
        return item.model_dump(exclude_unset=True)
    if hasattr(item, "to_input_item"):  # a RunItem of result.new_items
        return item.to_input_item()
    return item


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in map(_item_dict, content)
            if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text")
        )
    return ""


def session_messages(items: Iterable[Any]) -> list[dict[str, str]]:
    """The user and assistant messages of Agents SDK input items, as ``[{role, content}]``
    (tool calls, their outputs, reasoning and system messages are left out)."""
    messages = []
    for raw in items:
        item = _item_dict(raw)
        if not isinstance(item, dict) or item.get("role") not in ("user", "assistant"):
            continue
        if item.get("type", "message") != "message":
            continue
        text = _text(item.get("content")).strip()
        if text:
            messages.append({"role": item["role"], "content": text})
    return messages


async def remember_session(
    session: Any,
    project: "MemoryTools | UserMemory | str | Path",
    *,
    root: str | Path | None = None,
    date: str | None = None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """Add a conversation to the memory: an Agents SDK ``Session`` (its items, its
    ``session_id`` naming the conversation) or a list of input items (e.g.
    ``result.to_input_list()``, with ``conversation_id`` to name it).  Only the messages
    not kept from the same conversation before are added; returns ``{"stored",
    "session_ids", "turns_added", "facts_added"}``.  Raises :class:`~uac.UacError`."""
    if hasattr(session, "get_items"):
        items = await session.get_items()
        conversation_id = conversation_id or getattr(session, "session_id", None)
    else:
        items = list(session)
    tools = tools_of(project, root=root)
    return await tools.remember_conversation(session_messages(items), conversation_id=conversation_id, date=date)
