"""Run ingest, compile and ask against one zoo profile: what the tests and the benchmark share."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac.errors import UacError
from uac.llm import Limits, LLMClient, LLMSettings, Usage, build_client
from uac.llm.capabilities import CapabilityStore
from uac.memory import UserMemory

from .conversation import QUESTION
from .profiles import OLLAMA_FIXED, Profile
from .server import ZooServer


@dataclass
class ZooRun:
    profile: str
    completed: bool = False
    #: the error that stopped the first attempt (the cut-context profile) or the run
    error: str | None = None
    sessions: int = 0
    facts: int = 0
    compile_ok: bool = False
    answer: str | None = None
    answer_value: Any = None
    tool_mode: str | None = None
    usage: Usage = field(default_factory=Usage)
    #: HTTP requests the server received (failed ones included)
    requests: int = 0
    refused: int = 0
    extraction: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    sessions_after_error: int | None = None

    def row(self, strict_facts: int | None = None) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "completed": self.completed,
            "facts": self.facts,
            "facts_vs_strict": round(self.facts / strict_facts, 3) if strict_facts else None,
            "answer": self.answer_value,
            "calls": self.usage.calls,
            "requests": self.requests,
            "retries": self.usage.retries,
            "fallbacks": self.usage.fallbacks + self.extraction.get("windows_fallback", 0),
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "seconds": round(self.seconds, 2),
            "error": self.error,
        }


def zoo_client(server: ZooServer, root: Path) -> LLMClient:
    settings = LLMSettings(
        provider="openai",
        model=server.model,
        base_url=server.base_url,
        timeout_seconds=server.profile.timeout,
        max_retries=4,
        capabilities_path=root / "llm-endpoints.json",
        limits=Limits(default_timeout=server.profile.timeout),
    )
    client = build_client(settings)
    assert client is not None
    client.backoff_seconds = 0.01
    return client


def _run(memory: UserMemory, conversation: Path, outcome: ZooRun) -> None:
    report = memory.ingest(conversation)
    for key, value in (report.extraction or {}).items():
        if isinstance(value, int):
            outcome.extraction[key] = outcome.extraction.get(key, 0) + value
    compiled = memory.compile()
    outcome.compile_ok = compiled.ok
    answer = memory.ask(QUESTION, iterative=True)
    outcome.answer = answer.answer
    outcome.tool_mode = answer.tool_mode
    runs = [r.result for r in answer.tool_runs if r.result.get("ok")]
    outcome.answer_value = runs[-1]["result"] if runs else None


def run_profile(profile: Profile, conversation: Path, workdir: Path) -> ZooRun:
    """Ingest, compile and ask through a server of ``profile``.

    For a profile whose server cuts prompts, a stop with the error that names
    the fix is expected; the run then restarts the server as the fix says
    (``OLLAMA_CONTEXT_LENGTH=16384``) and goes on from where it stopped.
    """
    CapabilityStore.forget_all()
    outcome = ZooRun(profile.name)
    started = time.perf_counter()
    root = workdir / profile.name
    with ZooServer(profile) as server:
        client = zoo_client(server, root)
        memory = UserMemory.create(root / "project", user_name="Alice", llm=client)
        try:
            _run(memory, conversation, outcome)
        except UacError as exc:
            outcome.error = str(exc)
        finally:
            outcome.usage.add(client.usage)  # every call, the ones of a command that failed included
            outcome.requests += len(server.served)
            outcome.refused += server.count(status=400)
            memory.close()
    if outcome.error is not None and profile.context_tokens:
        outcome.sessions_after_error = len(memory.sessions())
        with ZooServer(OLLAMA_FIXED) as server:
            client = zoo_client(server, root)
            fixed = UserMemory.open(root / "project", llm=client)
            try:
                _run(fixed, conversation, outcome)
            finally:
                outcome.usage.add(client.usage)
                outcome.requests += len(server.served)
                fixed.close()
    final = UserMemory.open(root / "project")
    outcome.sessions = len(final.sessions())
    outcome.facts = len(final.facts(include_superseded=True))
    outcome.completed = outcome.compile_ok and outcome.answer_value is not None
    outcome.seconds = time.perf_counter() - started
    return outcome
