"""The model systems of the conversational benchmark, all with the same model.

* ``uac`` -- a user project per history: the sessions ingested with the LLM
  extractor, compiled incrementally, each question answered by
  ``UserMemory.ask`` (STATE, FACTS and ARCHIVE, the sandbox);
* ``retrieval`` -- the same project, answered from FACTS and ARCHIVE only
  (``use_state=False``, ``tool_mode="off"``: no typed view, no sandbox);
* ``full_context`` -- every session in the prompt, where they fit in
  ``context_tokens``; a history that does not fit is *not run* (its rows say
  so and are left out of accuracy).

Every answer is asked as of the history's last day.  ``prepare`` builds what a
system needs for a history and returns its cost; ``answer`` returns one row's
prediction, tokens and model calls.  A failing call raises; the runner scores
it wrong and goes on.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from uac import InputError, LLMClient, Message, Usage

from ..prompts import render_from
from .dataset import History

PROMPT_DIR = Path(__file__).parent / "prompts"
MODEL_SYSTEMS = ("uac", "retrieval", "full_context")
DEFAULT_CONTEXT_TOKENS = 120_000
#: characters per token when sizing a prompt before sending it (English text, a generous estimate)
CHARS_PER_TOKEN = 3.5


def render(name: str, **context: Any) -> str:
    return render_from(PROMPT_DIR, name, **context)


class NotRun(Exception):
    """The system does not run on this history (the reason is the message)."""


def _usage_row(usage: Usage | None) -> dict[str, int]:
    if usage is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "model_calls": 0}
    prompt, completion = usage.footprint
    return {"prompt_tokens": prompt, "completion_tokens": completion, "model_calls": usage.calls}


class ConvSystem:
    name = ""

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    def prepare(self, history: History, out: Path) -> dict[str, Any]:
        return {}

    def answer(self, history: History, question: Any) -> dict[str, Any]:
        raise NotImplementedError


class _Projects:
    """One project per history, built once and shared by ``uac`` and ``retrieval``."""

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm
        self.memories: dict[str, Any] = {}
        self.builds: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()

    def get(self, history: History, out: Path) -> tuple[Any, dict[str, Any] | None]:
        """The history's memory, and its build cost the first time (None after)."""
        from uac import UserMemory

        with self.lock:
            if history.name in self.memories:
                return self.memories[history.name], None
            safe = history.name.replace("/", "-")
            sessions = history.save(out / "data" / safe)
            before = self.llm.usage.copy()
            started = time.perf_counter()
            memory = UserMemory.create(out / "projects" / safe / "model", user_name=history.ledger.user, llm=self.llm)
            self.memories[history.name] = memory
            ingest = memory.ingest(sessions, format="messages", extractor="llm", compile=False)
            compiled = memory.compile("incremental")
            spent = self.llm.usage.minus(before)
            build = {
                "history": history.name,
                "facts": ingest.facts_appended,
                "seconds": round(time.perf_counter() - started, 2),
                "compile": compiled.to_json() if hasattr(compiled, "to_json") else str(compiled),
                **_usage_row(spent),
            }
            self.builds[history.name] = build
            return memory, build

    def close(self) -> None:
        for memory in self.memories.values():
            memory.close()
        self.memories.clear()


class UacSystem(ConvSystem):
    name = "uac"
    options: dict[str, Any] = {}

    def __init__(self, llm: LLMClient, projects: _Projects) -> None:
        super().__init__(llm)
        self.projects = projects
        self.out = Path(".")

    def prepare(self, history: History, out: Path) -> dict[str, Any]:
        self.out = out
        _memory, build = self.projects.get(history, out)
        return build or {"history": history.name, "shared": True, **_usage_row(None)}

    def answer(self, history: History, question: Any) -> dict[str, Any]:
        memory, _ = self.projects.get(history, self.out)
        result = memory.ask(
            question.text,
            as_of=history.today,
            citations=False,
            answer_length="phrase",
            instructions=render("uac_instructions", user=history.ledger.user),
            **self.options,
        )
        return {
            "prediction": (result.answer or "").strip(),
            "tool_calls": len(result.tool_runs),
            **_usage_row(result.usage),
        }


class RetrievalSystem(UacSystem):
    name = "retrieval"
    options = {"use_state": False, "tool_mode": "off"}


class FullContextSystem(ConvSystem):
    name = "full_context"

    def __init__(self, llm: LLMClient, context_tokens: int = DEFAULT_CONTEXT_TOKENS) -> None:
        super().__init__(llm)
        self.context_tokens = context_tokens

    def messages(self, history: History, question: Any) -> list[Message]:
        system = render("reader_system", user=history.ledger.user, today=history.today)
        prompt = render("full_context", sessions=history.sessions, user=history.ledger.user, question=question.text)
        return [Message("system", system), Message("user", prompt)]

    def answer(self, history: History, question: Any) -> dict[str, Any]:
        messages = self.messages(history, question)
        size = int(sum(len(m.content or "") for m in messages) / CHARS_PER_TOKEN)
        if size > self.context_tokens:
            raise NotRun(f"{size:,} prompt tokens do not fit in {self.context_tokens:,} (--context-tokens)")
        response = self.llm.chat(messages, purpose="analytical_bench:conv:full_context")
        usage = Usage()
        usage.add(response.usage)
        return {"prediction": (response.content or "").strip(), "tool_calls": 0, **_usage_row(usage)}


def make_systems(
    names: list[str] | None, llm: LLMClient, *, context_tokens: int = DEFAULT_CONTEXT_TOKENS
) -> list[ConvSystem]:
    chosen = list(names or MODEL_SYSTEMS)
    unknown = [n for n in chosen if n not in MODEL_SYSTEMS]
    if unknown:
        raise InputError(f"unknown system(s) {', '.join(unknown)}.", hint=f"Use {', '.join(MODEL_SYSTEMS)}.")
    projects = _Projects(llm)
    made = {
        "uac": lambda: UacSystem(llm, projects),
        "retrieval": lambda: RetrievalSystem(llm, projects),
        "full_context": lambda: FullContextSystem(llm, context_tokens),
    }
    return [made[n]() for n in chosen]


def close_systems(systems: list[ConvSystem]) -> None:
    for system in systems:
        projects = getattr(system, "projects", None)
        if projects is not None:
            projects.close()
