"""The sandbox as the reader's tool: opened lazily, one warm session per answer."""

from __future__ import annotations

import datetime as _dt
import json
import time
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from ..context import MemoryContext
from ..repl import open_session
from .model import ToolRun
from .state_view import iter_record_counts

if TYPE_CHECKING:
    import sandbox as _sandbox


class SandboxTool:
    def __init__(self, ctx: MemoryContext, as_of: _dt.date | None) -> None:
        self.ctx = ctx
        self.as_of = as_of
        self._session: "_sandbox.Session | None" = None
        self._held = ExitStack()  # the sandbox slot and the session, released by close()
        self.runs: list[ToolRun] = []

    def available(self) -> bool:
        """Is there any typed state to compute over?"""
        return any(True for _ in iter_record_counts(self.ctx.sandbox_state()))

    def schema(self) -> dict[str, Any]:
        from sandbox.tool import PYTHON_TOOL

        return PYTHON_TOOL

    def run(self, code: str) -> ToolRun:
        started = time.perf_counter()
        if self._session is None:
            self._held.enter_context(self.ctx.sandbox_slot())
            self._session = self._held.enter_context(open_session(self.ctx, as_of=self.as_of))
        result = self._session.run(code).to_json()
        run = ToolRun(code=code, result=result, seconds=time.perf_counter() - started)
        self.runs.append(run)
        return run

    def run_call_arguments(self, arguments: str) -> tuple[ToolRun | None, str]:
        """Execute a function-call's JSON arguments; returns (run, tool message text)."""
        try:
            parsed = json.loads(arguments or "{}")
        except json.JSONDecodeError as exc:
            parsed = None
            problem = f"arguments are not JSON: {exc.msg}"
        else:
            problem = None if isinstance(parsed, dict) and isinstance(parsed.get("code"), str) else "expected {\"code\": \"...\"}"
        if problem:
            error = {"ok": False, "result": None, "stdout": "", "error": {"type": "BadArguments", "message": problem}}
            return None, json.dumps(error)
        run = self.run(parsed["code"])
        return run, json.dumps(run.result, ensure_ascii=False)

    def close(self) -> None:
        self._session = None
        self._held.close()
