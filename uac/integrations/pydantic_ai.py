"""uac's memory as a pydantic-ai toolset (``pip install 'user-as-code[pydantic-ai]'``).

>>> agent = Agent("openai:gpt-4o-mini", deps_type=MemoryDeps, toolsets=[memory_toolset()])  # doctest: +SKIP
>>> result = await agent.run("How many trips did I book?", deps=MemoryDeps("maya", root="user_projects"))  # doctest: +SKIP

:func:`memory_toolset` is a ``FunctionToolset`` with the tools ``search_memory``,
``run_python``, ``ask_memory`` and ``remember``; the project they work on is the run's
dependencies (:class:`MemoryDeps`), never an argument the model gives, so one agent
serves many users, each run with its own user's project.  Its instructions say what the
memory is for and quote the project's manifest.

Errors follow pydantic-ai's conventions: what the model can fix by calling again (wrong
argument types, a bad date, code that raised or that the sandbox refused) is a
``ModelRetry``, counted against the toolset's ``max_retries``; what it cannot (a project
that does not exist, no model for ``ask_memory``, a broken index) is ``ToolFailed``, which
the model reads without using up retries.  A failed call writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..extras import require
from ..memory import UserMemory
from ._tools import MemoryTools, ToolError, ToolSpec, tool_specs

require("pydantic_ai", "pydantic-ai", what="the pydantic-ai toolset")

from pydantic_ai import FunctionToolset, ModelRetry, RunContext, Tool  # noqa: E402
from pydantic_ai.exceptions import ToolFailed  # noqa: E402

if TYPE_CHECKING:
    from ..llm import LLMClient

__all__ = ["MemoryDeps", "MemoryTools", "memory_toolset"]


@dataclass
class MemoryDeps:
    """The run's dependencies: which user's project the memory tools work on.

    ``project`` is an open :class:`~uac.UserMemory`, a path, or a name (under ``root``,
    else ``$UAC_HOME``); ``create`` makes it on first use (named ``user_name``); ``llm``
    is the model ``ask_memory`` answers with (default: the project's own); ``output_chars``
    caps each result (default: the project's ``[answer] tool_output_chars``).  The project
    is opened on the first tool call and kept open as long as these deps are.
    """

    project: "UserMemory | str | Path"
    root: str | Path | None = None
    create: bool = False
    user_name: str | None = None
    llm: LLMClient | None = None
    output_chars: int | None = None
    _tools: MemoryTools | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def tools(self) -> MemoryTools:
        if self._tools is None:
            self._tools = MemoryTools(
                self.project,
                root=self.root,
                create=self.create,
                user_name=self.user_name,
                llm=self.llm,
                output_chars=self.output_chars,
            )
        return self._tools


def _deps_of(select: Callable[[Any], MemoryDeps] | None, ctx: RunContext[Any]) -> MemoryTools:
    deps = select(ctx.deps) if select is not None else ctx.deps
    if not isinstance(deps, MemoryDeps):
        raise ToolFailed(
            "config_error: this agent's memory tools need MemoryDeps as the run's deps "
            f"(got {type(deps).__name__}); the application that runs this agent passes them."
        )
    return deps.tools


def _tool(spec: ToolSpec, select: Callable[[Any], MemoryDeps] | None) -> Tool[Any]:
    async def call(ctx: RunContext[Any], **arguments: Any) -> Any:
        try:
            return await _deps_of(select, ctx).call(spec.name, arguments)
        except ToolError as exc:
            raise (ModelRetry(exc.text) if exc.retry else ToolFailed(exc.text)) from None

    call.__name__ = spec.name
    return Tool.from_schema(
        call,
        name=spec.name,
        description=spec.description,
        json_schema=spec.json_schema,
        takes_ctx=True,
        sequential=not spec.read_only,
    )


def memory_toolset(
    *,
    deps: Callable[[Any], MemoryDeps] | None = None,
    max_retries: int = 2,
    instructions: bool = True,
    id: str = "uac_memory",
) -> FunctionToolset[Any]:
    """The memory tools as a ``FunctionToolset``.

    The run's deps are a :class:`MemoryDeps`, or ``deps`` picks one out of your own deps
    type (``deps=lambda d: d.memory``).  ``max_retries`` bounds the calls the model may
    correct per tool and run; ``instructions`` adds what the memory is for and its manifest
    to the agent's instructions."""
    tools = [_tool(spec, deps) for spec in tool_specs()]

    async def memory_instructions(ctx: RunContext[Any]) -> str | None:
        try:
            return await _deps_of(deps, ctx).instructions()
        except (ToolError, ToolFailed) as exc:  # the tools will say so too, when called
            return f"The user's memory cannot be read: {exc}"

    return FunctionToolset(
        tools, max_retries=max_retries, id=id, instructions=memory_instructions if instructions else None
    )
