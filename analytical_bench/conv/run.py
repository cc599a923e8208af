"""The conversational benchmark end to end: offline rows always, model rows with a model.

Output directory::

    data/<history>/     sessions.jsonl, ledger.json, questions.json of every history
    projects/<history>/ the user projects built (offline: rules + offline compile; model)
    results.jsonl       one line per (history, question, system): prediction, gold,
                        correct, status (run | not_run), error, tokens, model calls
    view_scores.jsonl   the offline view's records against the ledger, per history and kind
    builds.jsonl        what building each history's projects cost
    run.json            data sha256s, model and settings, options, totals
    report.md           the report (:mod:`.report`); accuracy_vs_size.png with --plot
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uac import LLMClient, LLMSettings, SandboxError, UacError, __version__

from ..files import atomic_write_text
from ..runner import settings_record, write_jsonl
from ..scoring import score
from .dataset import History
from .offline import question_row, run_offline_history
from .report import PLOT_FILE, conv_report, series
from .systems import DEFAULT_CONTEXT_TOKENS, ConvSystem, NotRun, close_systems, make_systems


@dataclass
class ConvOutcome:
    mode: str  # "offline" | "model"
    out: Path
    rows: list[dict[str, Any]]
    scores: list[dict[str, Any]]
    report: Path


def _history_record(history: History) -> dict[str, Any]:
    return {
        "name": history.name,
        "source": history.source,
        "seed": history.seed,
        "sessions": history.size,
        "events": len(history.ledger.events),
        "distractors": len(history.ledger.distractors),
        "questions": len(history.questions),
        "sha256": history.sha256,
        "diversity": history.diversity,
    }


def _answer(system: ConvSystem, history: History, question: Any, build_error: str | None) -> dict[str, Any]:
    row = question_row(history, question, system.name)
    if build_error:
        row.update(prediction="", correct=False, error=f"building the history failed: {build_error}", tool_calls=0)
        return row
    started = time.perf_counter()
    try:
        got = system.answer(history, question)
    except NotRun as exc:
        row.update(status="not_run", prediction="", correct=None, error=str(exc), tool_calls=0)
    except Exception as exc:  # any failure of the system scores the question wrong, and the run goes on
        row.update(prediction="", correct=False, error=f"{type(exc).__name__}: {exc}", tool_calls=0)
    else:
        row.update(got, correct=score(question.answer_kind, question.gold, got["prediction"]), error=None)
    row["latency"] = round(time.perf_counter() - started, 3)
    return row


def run_model_rows(
    histories: list[History], systems: list[ConvSystem], out: Path, progress: Any = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows, builds = [], []
    for history in histories:
        for system in systems:
            build_error = None
            try:
                build = system.prepare(history, out)
            except (UacError, SandboxError, OSError, ValueError, RuntimeError) as exc:
                build_error = f"{type(exc).__name__}: {exc}"
                build = {"history": history.name, "error": build_error}
            builds.append({"system": system.name, **build})
            for question in history.questions:
                rows.append(_answer(system, history, question, build_error))
                if progress is not None:
                    progress(1)
    return rows, builds


def run_conv(
    histories: list[History],
    out: Path,
    *,
    llm: LLMClient | None = None,
    settings: LLMSettings | None = None,
    systems: list[str] | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    plot: bool = False,
    options: dict[str, Any] | None = None,
    progress: Any = None,
) -> ConvOutcome:
    """Run ``histories`` and write every output file to ``out`` (see the module doc)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    scores: list[dict[str, Any]] = []
    builds: list[dict[str, Any]] = []
    for history in histories:
        answered, scored, details = run_offline_history(history, out)
        rows += answered
        scores += scored
        builds.append({"system": "offline_view", "history": history.name, **details})
    mode = "offline"
    if llm is not None:
        mode = "model"
        chosen = make_systems(systems, llm, context_tokens=context_tokens)
        try:
            model_rows, model_builds = run_model_rows(histories, chosen, out, progress)
        finally:
            close_systems(chosen)
        rows += model_rows
        builds += model_builds
    write_jsonl(out / "results.jsonl", rows)
    write_jsonl(out / "view_scores.jsonl", scores)
    write_jsonl(out / "builds.jsonl", builds)
    image = None
    if plot and series(rows):
        from ..plot import plot_series

        plot_series(
            series(rows), out / PLOT_FILE, title="Conversational accuracy against history size", ylabel="accuracy (%)"
        )
        image = PLOT_FILE
    recorded = settings_record(settings, llm) if llm is not None else {"provider": "none", "model": None}
    records = [_history_record(h) for h in histories]
    text = conv_report(
        rows,
        scores,
        records,
        builds,
        model=llm.describe() if llm is not None else None,
        settings={
            **{k: v for k, v in recorded.items() if k in ("provider", "model", "temperature")},
            **{k: v for k, v in (options or {}).items() if k in ("seed", "sizes", "context_tokens")},
        },
        plot=image,
    )
    report = out / "report.md"
    atomic_write_text(report, text + "\n")
    run = {
        "mode": mode,
        "uac_version": __version__,
        "llm": recorded,
        "options": dict(options or {}),
        "histories": [{k: v for k, v in r.items() if k != "diversity"} for r in records],
        "totals": {
            "answers": len(rows),
            "correct": sum(1 for r in rows if r["correct"]),
            "errors": sum(1 for r in rows if r.get("error") and r["status"] == "run"),
            "not_run": sum(1 for r in rows if r["status"] == "not_run"),
            "prompt_tokens": sum(r["prompt_tokens"] for r in rows) + sum(b.get("prompt_tokens", 0) for b in builds),
            "completion_tokens": sum(r["completion_tokens"] for r in rows)
            + sum(b.get("completion_tokens", 0) for b in builds),
            "model_calls": sum(r["model_calls"] for r in rows) + sum(b.get("model_calls", 0) for b in builds),
        },
        "wall_seconds": round(time.perf_counter() - started, 2),
    }
    atomic_write_text(out / "run.json", json.dumps(run, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return ConvOutcome(mode, out, rows, scores, report)
