"""Run systems over cases with a model, score them, and write the results.

Output directory::

    results.jsonl   one line per (case, system): prediction, gold, correct,
                    tool calls, prompt/completion tokens, latency
    run.json        model, provider, settings, dataset checksum, uac version,
                    totals (tokens, cost) and timing
    report.md       tables (reproducible from a warm cache: no timings)
    timings.md      latency per system (varies run to run)
    accuracy_vs_n.png
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from uac import LLMClient, LLMSettings, UacError, __version__

from .cases import Case, Dataset
from .files import atomic_write_text
from .scoring import score
from .systems import System


@dataclass(frozen=True)
class Prices:
    """USD per 1,000 tokens (default 0: no cost estimate)."""

    prompt_per_1k: float = 0.0
    completion_per_1k: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return prompt_tokens / 1000 * self.prompt_per_1k + completion_tokens / 1000 * self.completion_per_1k


def run_case(case: Case, system: System, llm: LLMClient) -> dict[str, Any]:
    """Answer one case with one system and score it (a failing call is recorded, not raised)."""
    import sandbox

    row: dict[str, Any] = {
        "case_id": case.id,
        "suite": case.suite,
        "system": system.name,
        "record_type": case.record_type,
        "pattern": case.pattern,
        "n": case.n,
        "answer_kind": case.answer_kind,
        "question": case.question,
        "gold": case.gold,
        "reasoning": system.reasoning,
    }
    started = time.perf_counter()
    try:
        prediction = system.answer(case, llm)
    except (UacError, sandbox.SandboxError) as exc:
        row.update(
            prediction="",
            correct=False,
            error=f"{type(exc).__name__}: {exc}",
            tool_calls=[],
            prompt_tokens=0,
            completion_tokens=0,
            latency=round(time.perf_counter() - started, 3),
        )
        return row
    row.update(
        prediction=prediction.text,
        correct=score(case.answer_kind, case.gold, prediction.text),
        error=None,
        tool_calls=prediction.tool_calls,
        # what the answer takes, whether it came from the model or from the response cache
        prompt_tokens=prediction.usage.footprint[0],
        completion_tokens=prediction.usage.footprint[1],
        cached_calls=prediction.usage.cached_calls,
        latency=round(prediction.latency, 3),
    )
    if prediction.reasoning_text is not None:
        row["response"] = prediction.reasoning_text
    if prediction.retrieved:
        row["retrieved_records"] = len(prediction.retrieved)
        row["support_retrieved"] = sum(1 for rid in case.support if rid in set(prediction.retrieved))
    return row


def run_model(
    dataset: Dataset,
    systems: list[System],
    llm: LLMClient,
    *,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Every (case, system) pair, concurrently on ``workers`` threads; rows in dataset order."""
    jobs = [(case, system) for case in dataset.cases for system in systems]

    def one(job: tuple[Case, System]) -> dict[str, Any]:
        row = run_case(job[0], job[1], llm)
        if progress is not None:
            progress(1)
        return row

    if workers <= 1:
        return [one(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, jobs))


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    text = "".join(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n" for row in rows)
    atomic_write_text(path, text)


def settings_record(settings: LLMSettings | None, llm: LLMClient | None = None) -> dict[str, Any]:
    """The model settings worth recording (never the API key)."""
    if settings is None or not settings.configured:
        if llm is not None:  # a client built by the caller (e.g. a scripted model in tests)
            return {"provider": llm.provider.name, "model": llm.model, "describe": llm.describe()}
        return {"provider": "none", "model": None}
    return {
        "provider": settings.provider,
        "model": settings.model or None,
        "base_url": settings.base_url or None,
        "temperature": settings.temperature,
        "json_mode": settings.json_mode,
        "max_retries": settings.max_retries,
        "timeout_seconds": settings.timeout_seconds,
        "cache": str(settings.cache_path) if settings.cache_path else None,
        "describe": settings.describe(),
    }


def run_record(
    dataset: Dataset,
    *,
    mode: str,
    systems: list[str],
    settings: LLMSettings | None,
    llm: LLMClient | None = None,
    options: dict[str, Any],
    totals: dict[str, Any],
    seconds: float,
) -> dict[str, Any]:
    return {
        "mode": mode,
        "uac_version": __version__,
        "dataset": {
            "name": dataset.name,
            "version": dataset.version,
            "seed": dataset.seed,
            "checksum": dataset.checksum,
            "cases": len(dataset.cases),
        },
        "systems": systems,
        "llm": settings_record(settings, llm),
        "options": options,
        "totals": totals,
        "wall_seconds": round(seconds, 2),
    }


def write_run_json(path: Path, record: dict[str, Any]) -> None:
    atomic_write_text(path, json.dumps(record, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
