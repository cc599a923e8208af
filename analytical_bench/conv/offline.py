"""The offline rows: no model, the deterministic pipeline scored against the ledger.

A history's sessions are ingested with the rules extractor and compiled
offline; the typed view is then scored two ways: record precision and recall
per kind (:func:`~.view_score.score_view`), and each question's reference
program run over the view's records (``offline_view``: this scores the view,
not a reader; a program that finds nothing answers nothing and is wrong).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..scoring import score
from .dataset import History
from .query import view_items
from .view_score import offline_collections, score_view

OFFLINE_SYSTEM = "offline_view"


def answer_text(value: Any) -> str:
    """A reference program's value as a reply is scored (lists comma-joined, numbers plain)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".") if not value.is_integer() else str(int(value))
    return str(value)


def build_offline(history: History, data_dir: Path, project: Path) -> tuple[Any, dict[str, Any]]:
    """A user project of ``history`` built without a model: rules ingest, offline compile."""
    from uac import UserMemory

    sessions = history.save(data_dir)
    started = time.perf_counter()
    memory = UserMemory.create(project, user_name=history.ledger.user)
    ingest = memory.ingest(sessions, format="messages", extractor="rules", compile=False)
    ingest_seconds = time.perf_counter() - started
    memory.compile(mode="offline")
    return memory, {
        "facts": ingest.to_json().get("facts", None),
        "ingest_seconds": round(ingest_seconds, 3),
        "build_seconds": round(time.perf_counter() - started, 3),
    }


def view_rows(history: History, state: Any, system: str = OFFLINE_SYSTEM) -> list[dict[str, Any]]:
    """One result row per question: the reference program's answer over ``state``."""
    where = offline_collections()
    rows = []
    for q in history.questions:
        row = question_row(history, q, system)
        try:
            value = q.query.evaluate(
                view_items(state, q.query.kind, history.ledger.user, where), history.ledger, strict=False
            )
        except Exception as exc:  # a view the program cannot read is a wrong answer, the run goes on
            row.update(prediction="", correct=False, error=f"{type(exc).__name__}: {exc}")
        else:
            text = answer_text(value)
            row.update(prediction=text, correct=score(q.answer_kind, q.gold, text), error=None)
        rows.append(row)
    return rows


def question_row(history: History, q: Any, system: str) -> dict[str, Any]:
    return {
        "history": history.name,
        "source": history.source,
        "size": history.size,
        "system": system,
        "question_id": q.id,
        "kind": q.kind,
        "record_kind": q.query.kind,
        "question": q.text,
        "answer_kind": q.answer_kind,
        "gold": q.gold,
        "status": "run",
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "model_calls": 0,
    }


def kind_scores(history: History, state: Any) -> list[dict[str, Any]]:
    """Per kind, the view's records against the ledger's events."""
    return [
        {"history": history.name, "source": history.source, "size": history.size, **score.to_json()}
        for score in score_view(state, history.ledger).values()
    ]


def run_offline_history(
    history: History, out: Path
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """``(result rows, per-kind view scores, build details)`` of one history."""
    safe = history.name.replace("/", "-")
    memory, details = build_offline(history, out / "data" / safe, out / "projects" / safe / "offline")
    try:
        state = memory.state
        return view_rows(history, state), kind_scores(history, state), details
    finally:
        memory.close()
