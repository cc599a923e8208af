"""The conversational benchmark's report: data, phrasing diversity, the offline view's
record precision/recall per kind, accuracy per system by size and by question kind
(95% bootstrap intervals), tokens and model calls.

Everything is a deterministic function of the rows (the bootstrap has its own
seed), so a re-run from a warm response cache writes the same report.
"""

from __future__ import annotations

import random
from typing import Any, Iterable

from .questions import QUESTION_KINDS

BOOTSTRAP_SAMPLES = 1000
#: the offline view "scores far higher" on generated chats by this many points of accuracy or more
FAR_HIGHER_POINTS = 15.0
SYSTEM_LABELS = {
    "offline_view": "offline view (reference programs)",
    "uac": "uac (STATE + sandbox)",
    "retrieval": "retrieval (FACTS + ARCHIVE)",
    "full_context": "full context",
}
PLOT_FILE = "accuracy_vs_size.png"


def bootstrap(values: list[float], samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> tuple[float, float]:
    """The 95% percentile interval of the mean of ``values`` (0..1)."""
    if not values:
        return (0.0, 0.0)
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(samples))
    return means[int(0.025 * samples)], means[min(samples - 1, int(0.975 * samples))]


def accuracy_cell(rows: list[dict[str, Any]]) -> str:
    scored = [1.0 if r["correct"] else 0.0 for r in rows if r["status"] == "run"]
    if not scored:
        return "not run" if rows else "-"
    lo, hi = bootstrap(scored)
    mean = sum(scored) / len(scored)
    return f"{100 * mean:.1f} [{100 * lo:.0f}-{100 * hi:.0f}] (n={len(scored)})"


def accuracy(rows: Iterable[dict[str, Any]]) -> float | None:
    scored = [1.0 if r["correct"] else 0.0 for r in rows if r["status"] == "run"]
    return 100 * sum(scored) / len(scored) if scored else None


def _table(header: list[str], body: Iterable[list[str]]) -> list[str]:
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    return lines + ["| " + " | ".join(row) + " |" for row in body]


def _columns(rows: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """(label, row filter) per history column: generated sizes in order, then the hand-written sets."""
    sizes = sorted({r["size"] for r in rows if r["source"] == "generated"})
    cols = [(f"{s} sessions", lambda r, s=s: r["source"] == "generated" and r["size"] == s) for s in sizes]
    for group in sorted({_group(r["history"]) for r in rows if r["source"] != "generated"}):
        cols.append(
            (f"{group} (hand-written)", lambda r, g=group: r["source"] != "generated" and _group(r["history"]) == g)
        )
    return cols


def _group(history: str) -> str:
    return history.split("/", 1)[0]


def _systems(rows: list[dict[str, Any]]) -> list[str]:
    present = {r["system"] for r in rows}
    return [s for s in SYSTEM_LABELS if s in present] + sorted(present - set(SYSTEM_LABELS))


def series(rows: list[dict[str, Any]]) -> dict[str, dict[int, float]]:
    """Per system, accuracy (%) against the generated history's size (for the plot)."""
    out: dict[str, dict[int, float]] = {}
    for system in _systems(rows):
        points = {}
        for size in sorted({r["size"] for r in rows if r["source"] == "generated"}):
            value = accuracy(
                r for r in rows if r["system"] == system and r["source"] == "generated" and r["size"] == size
            )
            if value is not None:
                points[size] = value
        if points:
            out[SYSTEM_LABELS.get(system, system)] = points
    return out


def _view_table(scores: list[dict[str, Any]]) -> list[str]:
    groups = ["generated"] + sorted({_group(s["history"]) for s in scores if s["source"] != "generated"})

    def pooled(kind: str, group: str) -> str:
        mine = [
            s
            for s in scores
            if s["kind"] == kind
            and (
                s["source"] == "generated"
                if group == "generated"
                else s["source"] != "generated" and _group(s["history"]) == group
            )
        ]
        events, records, matched = (sum(s[k] for s in mine) for k in ("events", "records", "matched"))
        p = f"{100 * matched / records:.0f}%" if records else "-"
        r = f"{100 * matched / events:.0f}%" if events else "-"
        return f"{p} / {r} ({matched}/{records}/{events})"

    kinds = list(dict.fromkeys(s["kind"] for s in scores))
    header = ["Kind"] + [f"{g} P / R (matched/records/events)" for g in groups]
    return _table(header, [[k] + [pooled(k, g) for g in groups] for k in kinds])


def conv_report(
    rows: list[dict[str, Any]],
    scores: list[dict[str, Any]],
    histories: list[dict[str, Any]],
    builds: list[dict[str, Any]],
    *,
    model: str | None,
    settings: dict[str, Any],
    plot: str | None,
) -> str:
    lines = ["# Conversational analytical benchmark report", ""]
    if model is None:
        lines += [
            "> **No model answered these questions.** Offline rows only: the chats ingested with the rules "
            "extractor and compiled offline; the typed view scored against the ledger (record precision and "
            "recall per kind) and by each question's reference program over the view (this scores the view, "
            "not a reader). Configure a model for the `uac`, `retrieval` and `full_context` rows.",
            "",
        ]
    else:
        lines += [f"Answers by **{model}**, scored deterministically by answer kind (no LLM judge).", ""]
    lines += [f"- Settings: `{settings}`", "", "## Data", ""]
    lines += _table(
        ["History", "Source", "Sessions", "Events", "Distractors", "Questions", "sha256"],
        [
            [
                h["name"],
                h["source"],
                str(h["sessions"]),
                str(h["events"]),
                str(h["distractors"]),
                str(h["questions"]),
                f"`{h['sha256']}`",
            ]
            for h in histories
        ],
    ) + [""]
    generated = [h for h in histories if h["source"] == "generated" and h.get("diversity")]
    if generated:
        largest = max(generated, key=lambda h: h["sessions"])
        lines += [
            f"## Phrasing diversity ({largest['name']})",
            "",
            "Distinct sentence shapes per kind (template and the styles of its dates, amounts, numbers and "
            "company), and the share of the most common shape.",
            "",
        ]
        lines += _table(
            ["Kind", "Sentences", "Distinct shapes", "Top shape share"],
            [
                [k, str(v["sentences"]), str(v["shapes"]), f"{100 * v['top_share']:.1f}%"]
                for k, v in largest["diversity"].items()
            ],
        ) + [""]
    lines += [
        "## Offline view: record precision / recall per kind",
        "",
        "Rules ingest + offline compile, each record matched with at most one ledger event "
        "(`analytical_bench.conv.view_score`); pooled over the histories of each source.",
        "",
    ]
    lines += _view_table(scores) + [""]
    cols = _columns(rows)
    systems = _systems(rows)
    lines += ["## Accuracy (%) by history, 95% bootstrap interval", ""]
    lines += _table(
        ["System"] + [label for label, _ in cols],
        [
            [SYSTEM_LABELS.get(s, s)]
            + [accuracy_cell([r for r in rows if r["system"] == s and keep(r)]) for _, keep in cols]
            for s in systems
        ],
    ) + [""]
    lines += ["## Accuracy (%) by question kind (generated histories, all sizes)", ""]
    gen = [r for r in rows if r["source"] == "generated"]
    lines += _table(
        ["Question kind"] + [SYSTEM_LABELS.get(s, s) for s in systems],
        [
            [k] + [accuracy_cell([r for r in gen if r["system"] == s and r["kind"] == k]) for s in systems]
            for k in QUESTION_KINDS
            if any(r["kind"] == k for r in gen)
        ],
    ) + [""]
    hand = [r for r in rows if r["source"] != "generated" and r["system"] == "offline_view"]
    gen_offline = accuracy(r for r in gen if r["system"] == "offline_view")
    hand_offline = accuracy(hand)
    if gen_offline is not None and hand_offline is not None:
        gap = gen_offline - hand_offline
        verdict = (
            "**The offline view scores far higher on the generated chats than on the hand-written ones**: "
            "read the generated figures as an upper bound of the rules."
            if gap >= FAR_HIGHER_POINTS
            else "The offline view does not score far higher on the generated chats than on the hand-written ones."
        )
        lines += [
            f"Offline view: {gen_offline:.1f}% on generated chats, {hand_offline:.1f}% on hand-written ones "
            f"({gap:+.1f} points). {verdict}",
            "",
        ]
    lines += [
        "## Tokens and model calls",
        "",
        "Build: ingest and compile of each history (shared by `uac` and `retrieval`); answer: the questions.",
        "",
    ]
    body = []
    for s in systems:
        mine = [r for r in rows if r["system"] == s]
        built = [b for b in builds if b.get("system") == s]
        body.append(
            [
                SYSTEM_LABELS.get(s, s),
                f"{sum(b.get('prompt_tokens', 0) for b in built):,}",
                f"{sum(b.get('completion_tokens', 0) for b in built):,}",
                str(sum(b.get("model_calls", 0) for b in built)),
                f"{sum(r['prompt_tokens'] for r in mine):,}",
                f"{sum(r['completion_tokens'] for r in mine):,}",
                str(sum(r["model_calls"] for r in mine)),
                str(sum(1 for r in mine if r.get("error") and r["status"] == "run")),
                str(sum(1 for r in mine if r["status"] == "not_run")),
            ]
        )
    lines += _table(
        [
            "System",
            "Build prompt",
            "Build completion",
            "Build calls",
            "Answer prompt",
            "Answer completion",
            "Answer calls",
            "Errors",
            "Not run",
        ],
        body,
    ) + [""]
    if plot:
        lines += [f"![accuracy against history size]({plot})", ""]
    return "\n".join(lines)
