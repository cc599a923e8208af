"""The two REPL systems: the model answers by running Python in the sandbox.

* :class:`FullContextRepl` -- the raw records (dicts, ISO date strings) as
  sandbox globals, one per collection;
* :class:`UacRepl` -- the records imported into a temporary user project with
  ``UserMemory.import_records`` and exposed as typed state.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from uac import LLMClient, Message, SandboxError

from ..cases import Case
from ..prompts import render
from .base import Prediction, System
from .tool_loop import DEFAULT_MAX_STEPS, run_tool_loop

RAW_DOMAIN = "raw"


def _open_session(payload: dict[str, Any]) -> Any:
    import sandbox

    try:
        return sandbox.Session(payload)
    except sandbox.SandboxError as exc:
        raise SandboxError(
            f"the sandbox cannot start: {exc}.", hint="Run 'uac doctor' to see the sandbox level."
        ) from exc


class _ReplSystem(System):
    uses_tools = True

    def __init__(self, *, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        self.max_steps = max_steps

    def _converse(self, case: Case, llm: LLMClient, prompt: str, payload: dict[str, Any]) -> Prediction:
        from sandbox.tool import python_tool

        messages = [self.system_message(case), Message("user", prompt)]
        session = _open_session(payload)
        try:
            text, calls, usage = run_tool_loop(
                llm,
                messages,
                session,
                max_steps=self.max_steps,
                purpose=f"analytical_bench:{self.name}",
                tool=python_tool(payload),
            )
        finally:
            session.close()
        return Prediction(text=text, tool_calls=calls, usage=usage)


class FullContextRepl(_ReplSystem):
    name = "fc_repl"
    label = "FC + Python REPL"

    def prompt(self, case: Case) -> str:
        keys = {name: list(records[0]) if records else [] for name, records in case.collections.items()}
        return render("fc_repl", collections=case.collections, keys=keys, question=case.question)

    def payload(self, case: Case) -> dict[str, Any]:
        from sandbox.codec import encode_state

        return encode_state({RAW_DOMAIN: dict(case.collections)})

    def messages(self, case: Case) -> list[Message]:
        return [self.system_message(case), Message("user", self.prompt(case))]

    def respond(self, case: Case, llm: LLMClient) -> Prediction:
        return self._converse(case, llm, self.prompt(case), self.payload(case))


class UacRepl(_ReplSystem):
    name = "uac_repl"
    label = "UaC + Python REPL"

    def prompt(self, case: Case, typed: Any) -> str:
        from ..typed_state import schema_summary

        return render("uac_repl", schema=schema_summary(typed), question=case.question)

    def respond(self, case: Case, llm: LLMClient) -> Prediction:
        from sandbox.codec import encode_state

        from ..typed_state import build_typed_state

        with tempfile.TemporaryDirectory(prefix="uac-bench-") as tmp:
            typed = build_typed_state(case, Path(tmp))
            prompt = self.prompt(case, typed)
            payload = encode_state(typed.state)
        return self._converse(case, llm, prompt, payload)
