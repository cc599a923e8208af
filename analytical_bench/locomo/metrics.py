"""Per-question retrieval measures and the aggregate tables of a run.

Evidence recall@k (turn level): the share of a question's evidence turn ids
covered by the top-k retrieved items, where a fact covers its evidence turns,
an archive chunk the turns it holds and a raw turn itself.  Session
recall@10: the share of the sessions holding evidence that the top 10 items
come from.  Questions without usable evidence ids are left out of the means
(and counted).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

from uac import LOCOMO_ANSWERABLE, LOCOMO_CATEGORIES, turn_session_number

RECALL_KS = (5, 10, 20)
SESSION_K = 10


def evidence_recall(evidence: Sequence[str], ranked_turns: Sequence[Sequence[str]], k: int) -> float | None:
    gold = set(evidence)
    if not gold:
        return None
    covered = {turn for item in ranked_turns[:k] for turn in item}
    return len(gold & covered) / len(gold)


def item_sessions(turns: Sequence[str], session: int | None) -> set[int]:
    found = {n for n in map(turn_session_number, turns) if n is not None}
    if session is not None:
        found.add(session)
    return found


def session_recall(
    evidence: Sequence[str],
    ranked_turns: Sequence[Sequence[str]],
    ranked_sessions: Sequence[int | None],
    k: int = SESSION_K,
) -> float | None:
    gold = {n for n in map(turn_session_number, evidence) if n is not None}
    if not gold:
        return None
    covered: set[int] = set()
    for turns, session in list(zip(ranked_turns, ranked_sessions))[:k]:
        covered |= item_sessions(turns, session)
    return len(gold & covered) / len(gold)


def mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def percentile(values: Sequence[float], p: float) -> float | None:
    """Linear-interpolated percentile (``p`` in 0..100)."""
    data = sorted(values)
    if not data:
        return None
    if len(data) == 1:
        return data[0]
    position = (len(data) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (position - low)


def _judged(record: dict[str, Any]) -> bool | None:
    verdict = record.get("judge")
    return None if not verdict else verdict.get("label") == "CORRECT"


def summarize_answers(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Tables of one system's answer records: per category and micro over 1-4."""
    categories: dict[str, Any] = {}
    for category in sorted({r["category"] for r in records}):
        rows = [r for r in records if r["category"] == category]
        judged = [j for j in map(_judged, rows) if j is not None]
        categories[str(category)] = {
            "name": LOCOMO_CATEGORIES.get(category, str(category)),
            "n": len(rows),
            "f1": mean(r["f1"] for r in rows) if category in LOCOMO_ANSWERABLE else None,
            "judge_accuracy": (sum(judged) / len(judged)) if judged and category in LOCOMO_ANSWERABLE else None,
            "judged": len(judged),
            "refusal_accuracy": mean(r["refusal"] for r in rows) if category == 5 else None,
        }
    answerable = [r for r in records if r["category"] in LOCOMO_ANSWERABLE]
    judged = [j for j in map(_judged, answerable) if j is not None]
    refusals = [r for r in records if r["category"] == 5]
    latencies = [float(r.get("latency_seconds") or 0.0) for r in records]
    tokens = [int(r.get("prompt_tokens") or 0) + int(r.get("completion_tokens") or 0) for r in records]
    judge_tokens = [
        int(r["judge"].get("prompt_tokens", 0)) + int(r["judge"].get("completion_tokens", 0))
        for r in records
        if r.get("judge")
    ]
    recalls = [r.get("evidence_recall") for r in answerable]
    return {
        "n": len(records),
        "n_answerable": len(answerable),
        "f1": mean(r["f1"] for r in answerable),
        "judge_accuracy": (sum(judged) / len(judged)) if judged else None,
        "judged": len(judged),
        "unreadable_verdicts": sum(1 for r in answerable if r.get("judge") and not r["judge"].get("readable", True)),
        "refusal_accuracy": mean(r["refusal"] for r in refusals),
        "n_adversarial": len(refusals),
        "tokens_per_question": mean(tokens),
        "prompt_tokens_per_question": mean(int(r.get("prompt_tokens") or 0) for r in records),
        "judge_tokens_per_question": mean(judge_tokens),
        "latency_p50": percentile(latencies, 50),
        "latency_p95": percentile(latencies, 95),
        "evidence_recall": mean(recalls),
        "categories": categories,
    }


def summarize_retrieval(records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Mean recall@k and session recall@10 of one retrieval channel, per category and overall."""

    def block(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        measured = [r for r in rows if r.get("evidence")]
        out: dict[str, Any] = {"n": len(rows), "n_with_evidence": len(measured)}
        for k in RECALL_KS:
            out[f"recall@{k}"] = mean(r["recall"].get(str(k)) for r in measured)
        out[f"session_recall@{SESSION_K}"] = mean(r.get("session_recall") for r in measured)
        for k in RECALL_KS:
            out[f"turns@{k}"] = mean((r.get("turns_covered") or {}).get(str(k)) for r in rows)
        out["latency_p50"] = percentile([float(r.get("latency_seconds") or 0.0) for r in rows], 50)
        return out

    summary = block(records)
    summary["categories"] = {
        str(c): {"name": LOCOMO_CATEGORIES.get(c, str(c)), **block([r for r in records if r["category"] == c])}
        for c in sorted({r["category"] for r in records})
    }
    return summary
