"""uac's memory for LangGraph: LangChain tools and a ``BaseStore`` (``pip install 'user-as-code[langgraph]'``).

>>> tools = memory_tools("maya", root="user_projects")          # doctest: +SKIP
>>> graph = builder.compile(store=UacStore("user_projects"))    # doctest: +SKIP

* :func:`memory_tools` -- the LangChain tools ``search_memory``, ``run_python``,
  ``ask_memory`` and ``remember`` over one user's project, for a ``ToolNode`` or any
  agent that takes LangChain tools.  A failed call is a ``ToolException`` the tool
  turns into an error ``ToolMessage`` (``handle_tool_error``), so the graph carries on;
  nothing is written.
* :class:`UacStore` -- a LangGraph ``BaseStore`` over the projects under one root: the
  first label of a namespace names the project, an item is a session of it (so its text
  is in the fact log and the search indexes), ``search`` with a query is uac's hybrid
  search (see :mod:`uac.integrations._items` for the whole mapping).
* :func:`remember_messages` -- a thread's messages into the memory when it ends; fed
  again later, only what came since is added.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Unpack

from ..extras import require
from ..memory import UserMemory
from ._items import ItemStore, StoredItem
from ._tools import MemoryTools, ToolError, ToolOptions, ToolSpec, tools_of

require("langgraph.store.base", "langgraph", what="the LangGraph store")
require("langchain_core.tools", "langgraph", what="the LangChain tools")

from langchain_core.tools import StructuredTool, ToolException  # noqa: E402
from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

if TYPE_CHECKING:
    from ..llm import LLMClient

__all__ = ["MemoryTools", "UacStore", "memory_tools", "remember_messages"]


def _tool(tools: MemoryTools, spec: ToolSpec) -> StructuredTool:
    def call(**arguments: Any) -> str:
        try:
            return json.dumps(tools.call_sync(spec.name, arguments), ensure_ascii=False)
        except ToolError as exc:
            raise ToolException(exc.text) from None

    async def acall(**arguments: Any) -> str:
        try:
            return json.dumps(await tools.call(spec.name, arguments), ensure_ascii=False)
        except ToolError as exc:
            raise ToolException(exc.text) from None

    return StructuredTool(
        name=spec.name,
        description=spec.description,
        args_schema=spec.json_schema,  # checked by the tools themselves, so the error is theirs
        func=call,
        coroutine=acall,
        handle_tool_error=True,
    )


def memory_tools(
    project: "MemoryTools | UserMemory | str | Path", **options: Unpack[ToolOptions]
) -> list[StructuredTool]:
    """The four memory tools as LangChain tools, for a ``ToolNode`` or any agent that takes
    them; the project and the ``options`` are those of :func:`~uac.integrations._tools.tools_of`."""
    tools = tools_of(project, **options)
    return [_tool(tools, spec) for spec in tools.specs]


def _message_dict(message: Any) -> dict[str, Any]:
    if isinstance(message, dict):
        return message
    role = {"human": "user", "ai": "assistant"}.get(getattr(message, "type", ""), getattr(message, "type", ""))
    content = getattr(message, "content", "")
    if isinstance(content, list):
        content = "\n".join(
            p.get("text", "") if isinstance(p, dict) else str(p)
            for p in content
            if isinstance(p, str) or (isinstance(p, dict) and p.get("type") == "text")
        )
    return {"role": role, "content": content}


async def remember_messages(
    messages: Iterable[Any],
    project: "MemoryTools | UserMemory | str | Path",
    *,
    root: str | Path | None = None,
    thread_id: str | None = None,
    date: str | None = None,
) -> dict[str, Any]:
    """Add a thread's human and AI messages (LangChain messages or ``{role, content}``
    dicts) to the memory; with ``thread_id``, only those not kept from the thread before.
    Returns ``{"stored", "session_ids", "turns_added", "facts_added"}``."""
    tools = tools_of(project, root=root)
    return await tools.remember_conversation([_message_dict(m) for m in messages], conversation_id=thread_id, date=date)


def _item(stored: StoredItem) -> Item:
    """What ``get`` answers: the stored item's fields but its score."""
    fields = asdict(stored)
    del fields["score"]
    return Item(**fields)


def _search_item(stored: StoredItem) -> SearchItem:
    """What ``search`` answers: the stored item's fields with its score."""
    return SearchItem(**asdict(stored))


class UacStore(BaseStore):
    """A LangGraph store over the projects under ``root``: ``("maya", *scope)`` is project
    ``maya``.  ``create`` makes a project on its first put; ``llm`` extracts facts from the
    items (default: each project's configured model, else the rule-based extractor)."""

    def __init__(
        self, root: str | Path, *, create: bool = True, llm: LLMClient | None = None, timezone: str = "UTC"
    ) -> None:
        self.items = ItemStore(root, create=create, llm=llm, timezone=timezone)

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            found = self.items.get(op.namespace, op.key)
            return None if found is None else _item(found)
        if isinstance(op, PutOp):
            self.items.put(op.namespace, op.key, None if op.value is None else dict(op.value))
            return None
        if isinstance(op, SearchOp):
            return [
                _search_item(i)
                for i in self.items.search(
                    op.namespace_prefix, query=op.query, filter=op.filter, limit=op.limit, offset=op.offset
                )
            ]
        if isinstance(op, ListNamespacesOp):
            prefix = suffix = None
            for condition in op.match_conditions or ():
                if condition.match_type == "prefix":
                    prefix = tuple(condition.path)
                elif condition.match_type == "suffix":
                    suffix = tuple(condition.path)
            return self.items.list_namespaces(
                prefix=prefix, suffix=suffix, max_depth=op.max_depth, limit=op.limit, offset=op.offset
            )
        raise TypeError(f"UacStore does not know the operation {type(op).__name__}")

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        return await asyncio.to_thread(self.batch, ops)

    def close(self) -> None:
        """Release the open projects' index files."""
        self.items.close()
