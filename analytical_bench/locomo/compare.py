"""Paired comparison of two result sets on the questions both answered.

A result set is a run directory (with one system, or the system named after
a colon: ``RUN:uac``) or a JSONL file.  Per question the metric gives a value
in 0..1 for each side: the judge verdict, the token F1 (categories 1-4), the
refusal score (category 5), or for offline runs evidence recall@k / session
recall@10.  The report gives both means, the mean paired difference (B - A)
with a percentile bootstrap 95% confidence interval, and -- viewing a value
of at least 0.5 as "correct" -- the questions that flipped, with McNemar's
exact two-sided p-value on those discordant pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac import LOCOMO_ANSWERABLE, InputError

from .records import read_jsonl

ANSWER_METRICS = ("judge", "f1", "refusal")
RETRIEVAL_METRICS = ("recall@5", "recall@10", "recall@20", "session_recall@10")
THRESHOLD = 0.5


@dataclass
class ResultSet:
    label: str
    kind: str  # answers | retrieval
    records: dict[str, dict[str, Any]]


def _files(run_dir: Path) -> dict[str, tuple[str, Path]]:
    found: dict[str, tuple[str, Path]] = {}
    for kind in ("answers", "retrieval"):
        for path in sorted((run_dir / kind).glob("*.jsonl")):
            found.setdefault(path.stem, (kind, path))
    return found


def resolve(spec: str, *, prefer: str | None = None) -> ResultSet:
    """Read ``DIR``, ``DIR:system`` or a JSONL file."""
    path, name = Path(spec), None
    if not path.exists() and ":" in spec:
        head, _, tail = spec.rpartition(":")
        path, name = Path(head), tail
    if path.is_file():
        kind = "retrieval" if path.parent.name == "retrieval" else "answers"
        return ResultSet(str(path), kind, {r["qid"]: r for r in read_jsonl(path)})
    if not path.is_dir():
        raise InputError(
            f"{spec} is neither a run directory nor a JSONL file.", hint="Pass RUN_DIR, RUN_DIR:system or a .jsonl."
        )
    files = _files(path)
    if not files:
        raise InputError(
            f"{path} holds no answers/ or retrieval/ results.",
            hint="Run `python -m analytical_bench.locomo run` first.",
        )
    if name is None:
        if len(files) == 1:
            name = next(iter(files))
        elif prefer in files:
            name = prefer
        else:
            raise InputError(
                f"{path} holds several result sets.", hint=f"Name one: {', '.join(f'{spec}:{n}' for n in files)}."
            )
    if name not in files:
        raise InputError(f"{path} has no result set {name!r}.", hint=f"Available: {', '.join(files)}.")
    kind, file = files[name]
    return ResultSet(f"{path}:{name}", kind, {r["qid"]: r for r in read_jsonl(file)})


def metric_value(record: dict[str, Any], metric: str) -> float | None:
    """The record's value for ``metric`` (``None``: the metric does not apply to this question)."""
    category = int(record.get("category", 0))
    if metric == "judge":
        verdict = record.get("judge")
        if category not in LOCOMO_ANSWERABLE or not verdict:
            return None
        return 1.0 if verdict.get("label") == "CORRECT" else 0.0
    if metric == "f1":
        return None if category not in LOCOMO_ANSWERABLE else float(record.get("f1") or 0.0)
    if metric == "refusal":
        return None if category != 5 else float(record.get("refusal") or 0.0)
    if metric.startswith("recall@"):
        value = (record.get("recall") or {}).get(metric.split("@", 1)[1])
        return None if value is None else float(value)
    if metric == "session_recall@10":
        value = record.get("session_recall")
        return None if value is None else float(value)
    raise InputError(f"unknown metric {metric!r}.", hint=f"Use one of {', '.join(ANSWER_METRICS + RETRIEVAL_METRICS)}.")


def mcnemar_exact(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value: a binomial test of the discordant pairs at 1/2."""
    n = only_a + only_b
    if n == 0:
        return 1.0
    low = min(only_a, only_b)
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2**n
    return min(1.0, 2 * tail)


def bootstrap_ci(
    differences: list[float], *, resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``differences``."""
    import numpy as np

    if not differences:
        return (0.0, 0.0)
    data = np.asarray(differences, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(resamples, len(data)))].mean(axis=1)
    alpha = (1 - level) / 2
    return float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


@dataclass
class Comparison:
    a: str
    b: str
    metric: str
    n: int
    mean_a: float
    mean_b: float
    difference: float
    ci_low: float
    ci_high: float
    only_a: list[dict[str, Any]] = field(default_factory=list)
    only_b: list[dict[str, Any]] = field(default_factory=list)
    p_value: float = 1.0
    resamples: int = 2000
    kind: str = "answers"

    @property
    def gold_label(self) -> str:
        return "gold" if self.kind == "answers" else "evidence"

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "metric": self.metric,
            "n": self.n,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "difference": self.difference,
            "ci95": [self.ci_low, self.ci_high],
            "bootstrap_resamples": self.resamples,
            "flipped_to_wrong": self.only_a,
            "flipped_to_correct": self.only_b,
            "mcnemar_p": self.p_value,
        }

    def to_markdown(self, *, show: int = 20) -> str:
        lines = [
            f"# Paired comparison on {self.metric} (n = {self.n} questions in both)",
            "",
            f"- A = {self.a}: {100 * self.mean_a:.1f}",
            f"- B = {self.b}: {100 * self.mean_b:.1f}",
            f"- B - A = {100 * self.difference:+.1f} pp, 95% bootstrap CI [{100 * self.ci_low:+.1f}, {100 * self.ci_high:+.1f}]"
            f" ({self.resamples} resamples)",
            f"- flipped (value >= {THRESHOLD} counts as correct): {len(self.only_b)} to correct in B, "
            f"{len(self.only_a)} to wrong in B; McNemar exact p = {self.p_value:.4g}",
        ]
        for title, rows in (("Correct in A only", self.only_a), ("Correct in B only", self.only_b)):
            if rows:
                lines += ["", f"## {title} ({len(rows)})", ""]
                for row in rows[:show]:
                    lines.append(
                        f"- {row['qid']} (cat {row['category']}): {row['question']} | {self.gold_label}: "
                        f"{row.get('gold')} | A: {row.get('a_prediction')} | B: {row.get('b_prediction')}"
                    )
                if len(rows) > show:
                    lines.append(f"- ... {len(rows) - show} more (use --json for all)")
        return "\n".join(lines) + "\n"


def compare(spec_a: str, spec_b: str, *, metric: str | None = None, resamples: int = 2000, seed: int = 0) -> Comparison:
    first = resolve(spec_a)
    second = resolve(spec_b, prefer=first.label.rpartition(":")[2])
    if first.kind != second.kind:
        raise InputError(
            f"{first.label} holds {first.kind} but {second.label} holds {second.kind}.",
            hint="Compare answers with answers, retrieval with retrieval.",
        )
    if metric is None:
        if first.kind == "retrieval":
            metric = "recall@10"
        else:
            judged = all(
                r.get("judge")
                for s in (first, second)
                for r in s.records.values()
                if r.get("category") in LOCOMO_ANSWERABLE
            )
            metric = "judge" if judged else "f1"
    allowed = RETRIEVAL_METRICS if first.kind == "retrieval" else ANSWER_METRICS
    if metric not in allowed:
        raise InputError(f"metric {metric!r} does not apply to {first.kind}.", hint=f"Use one of {', '.join(allowed)}.")
    pairs = []
    for qid in sorted(set(first.records) & set(second.records)):
        ra, rb = first.records[qid], second.records[qid]
        va, vb = metric_value(ra, metric), metric_value(rb, metric)
        if va is not None and vb is not None:
            pairs.append((qid, ra, rb, va, vb))
    if not pairs:
        raise InputError(
            f"{first.label} and {second.label} share no questions scored on {metric}.",
            hint="Compare runs over the same conversations (and with a judge for --metric judge).",
        )
    differences = [vb - va for *_, va, vb in pairs]
    low, high = bootstrap_ci(differences, resamples=resamples, seed=seed)
    only_a, only_b = [], []
    for qid, ra, rb, va, vb in pairs:
        row = {
            "qid": qid,
            "category": ra.get("category"),
            "question": ra.get("question"),
            "gold": ra.get("gold") if first.kind == "answers" else ra.get("evidence"),
            "a_prediction": ra.get("prediction", ra.get("retrieved_ids", [])[:5]),
            "b_prediction": rb.get("prediction", rb.get("retrieved_ids", [])[:5]),
            "a": va,
            "b": vb,
        }
        if va >= THRESHOLD > vb:
            only_a.append(row)
        elif vb >= THRESHOLD > va:
            only_b.append(row)
    n = len(pairs)
    return Comparison(
        a=first.label,
        b=second.label,
        metric=metric,
        n=n,
        mean_a=sum(p[3] for p in pairs) / n,
        mean_b=sum(p[4] for p in pairs) / n,
        difference=sum(differences) / n,
        ci_low=low,
        ci_high=high,
        only_a=only_a,
        only_b=only_b,
        p_value=mcnemar_exact(len(only_a), len(only_b)),
        resamples=resamples,
        kind=first.kind,
    )
