"""``report.md``, ``summary.json`` and ``report.png`` of a run directory.

The tables are computed from the JSONL files alone, so a report can be
rebuilt at any time (``python -m analytical_bench.locomo report DIR``).
matplotlib is imported only to draw the PNG; without it the error names the
extra to install.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from uac import LOCOMO_CATEGORIES, InputError, UserError

from ..files import atomic_write_text
from .metrics import RECALL_KS, SESSION_K, mean, summarize_answers, summarize_retrieval
from .records import read_jsonl
from .references import CAVEAT, REFERENCES


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def _num(value: float | None, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def load_run(run_dir: Path) -> dict[str, Any]:
    run_dir = Path(run_dir)
    marker = run_dir / "run.json"
    if not marker.exists():
        raise InputError(f"{run_dir} is not a LoCoMo run directory (no run.json).", hint="Pass the --out DIR of a run.")
    return json.loads(marker.read_text("utf-8"))


def summarize_run(run_dir: Path) -> dict[str, Any]:
    run_dir = Path(run_dir)
    run = load_run(run_dir)
    answers = {p.stem: summarize_answers(read_jsonl(p)) for p in sorted((run_dir / "answers").glob("*.jsonl"))}
    retrieval = {p.stem: summarize_retrieval(read_jsonl(p)) for p in sorted((run_dir / "retrieval").glob("*.jsonl"))}
    prepared = read_jsonl(run_dir / "prepare.jsonl")
    return {"run": run, "answers": answers, "retrieval": retrieval, "prepare": prepared}


def _prepare_rows(prepared: list[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for row in sorted(prepared, key=lambda r: (r["sample_id"], r["system"])):
        sizes = row.get("index_bytes") or {}
        details = row.get("details") or {}
        ingest = details.get("ingest") or {}
        rows.append(
            [
                row["sample_id"],
                row["system"],
                _num(row.get("seconds"), 1),
                _num(details.get("ingest_seconds"), 1) if "ingest_seconds" in details else "",
                _num(details.get("compile_seconds"), 1) if "compile_seconds" in details else "",
                str(ingest.get("facts_appended", "")),
                _num(row.get("prompt_tokens", 0) + row.get("completion_tokens", 0)),
                ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sizes.items()) or "-",
            ]
        )
    return rows


def render_markdown(summary: dict[str, Any]) -> str:
    run = summary["run"]
    config = run.get("config", {})
    lines = ["# LoCoMo results", ""]
    lines.append(
        f"- mode: **{run.get('mode')}**"
        + (" (no model configured: retrieval metrics only)" if run.get("mode") == "offline" else "")
    )
    lines.append(
        f"- reader model: {run.get('model') or 'none'}; judge: {run.get('judge_model') or 'none'}"
        + ("" if run.get("mode") == "offline" else f"; reasoning: {config.get('reasoning', 'direct')}")
    )
    lines.append(f"- data: `{config.get('data')}` (sha256 {run.get('data_sha256', '?')})")
    lines.append(
        f"- conversations: {', '.join(run.get('conversations') or []) or 'all'}; "
        f"systems: {', '.join(config.get('systems') or [])}; "
        f"questions per conversation: {config.get('limit_questions') or 'all'}"
    )
    if run.get("seconds") is not None:
        cpu = f", process CPU {run['cpu_seconds']:.0f} s" if run.get("cpu_seconds") is not None else ""
        lines.append(f"- wall time: {run['seconds']:.0f} s{cpu} (started {run.get('started')})")
    lines.append("")

    if summary["answers"]:
        lines += ["## Answers (categories 1-4: token F1 and judge accuracy; category 5: refusal accuracy)", ""]
        rows = []
        for name, s in summary["answers"].items():
            rows.append(
                [
                    name,
                    str(s["n_answerable"]),
                    _pct(s["f1"]),
                    _pct(s["judge_accuracy"]),
                    f"{_pct(s['refusal_accuracy'])} (n={s['n_adversarial']})",
                    _num(s["tokens_per_question"]),
                    _num(s["latency_p50"], 2),
                    _num(s["latency_p95"], 2),
                    _pct(s["evidence_recall"]),
                ]
            )
        lines += _table(
            [
                "system",
                "n (1-4)",
                "F1",
                "judge acc.",
                "refusal acc. (cat 5)",
                "tokens / question",
                "latency p50 s",
                "latency p95 s",
                "evidence recall",
            ],
            rows,
        )
        lines += ["", "### Per category", ""]
        header = ["system"] + [f"{c} {LOCOMO_CATEGORIES[c]} F1 / judge" for c in (1, 2, 3, 4)]
        rows = []
        for name, s in summary["answers"].items():
            cells = [name]
            for c in (1, 2, 3, 4):
                cat = s["categories"].get(str(c))
                cells.append(
                    "n/a" if cat is None else f"{_pct(cat['f1'])} / {_pct(cat['judge_accuracy'])} (n={cat['n']})"
                )
            rows.append(cells)
        lines += _table(header, rows)
        unreadable = sum(s["unreadable_verdicts"] for s in summary["answers"].values())
        lines += ["", f"Unreadable judge verdicts (counted WRONG): {unreadable}.", ""]

    if summary["retrieval"]:
        lines += [f"## Retrieval (categories 1-4; evidence recall at turn level, session recall@{SESSION_K})", ""]
        rows = []
        for name, s in summary["retrieval"].items():
            rows.append(
                [name, str(s["n_with_evidence"])]
                + [_pct(s[f"recall@{k}"]) for k in RECALL_KS]
                + [
                    _pct(s[f"session_recall@{SESSION_K}"]),
                    _num(s.get("turns@10"), 1),
                    _num(1000 * (s["latency_p50"] or 0), 1),
                ]
            )
        lines += _table(
            ["system / channel", "n"]
            + [f"recall@{k}" for k in RECALL_KS]
            + [f"session recall@{SESSION_K}", "turns in top 10", "ms / query (p50)"],
            rows,
        )
        lines += [
            "",
            "Items differ in size (a fact, an archive chunk of several turns, one raw turn): "
            "'turns in top 10' is the mean number of distinct turns the top 10 items cover.",
        ]
        lines += ["", "### Evidence recall@10 per category", ""]
        rows = []
        for name, s in summary["retrieval"].items():
            rows.append(
                [name]
                + [
                    "n/a" if str(c) not in s["categories"] else _pct(s["categories"][str(c)]["recall@10"])
                    for c in (1, 2, 3, 4)
                ]
            )
        lines += _table(["system / channel"] + [f"{c} {LOCOMO_CATEGORIES[c]}" for c in (1, 2, 3, 4)], rows)
        lines.append("")

    if summary["prepare"]:
        lines += ["## Building the memory, per conversation", ""]
        lines += _table(
            ["conversation", "system", "total s", "ingest s", "compile s", "facts", "ingest tokens", "index size"],
            _prepare_rows(summary["prepare"]),
        )
        totals: dict[str, list[float]] = {}
        for row in summary["prepare"]:
            totals.setdefault(row["system"], []).append(float(row.get("seconds") or 0))
        lines += [
            "",
            "Totals: " + "; ".join(f"{k} {sum(v):.0f} s over {len(v)} conversations" for k, v in totals.items()),
            "",
        ]

    lines += ["## Published reference figures", "", CAVEAT, ""]
    rows = [
        [
            r.system,
            r.reader,
            r.judge,
            "" if r.f1 is None else f"{r.f1:.1f}",
            "" if r.judge_accuracy is None else f"{r.judge_accuracy:.2f}".rstrip("0").rstrip("."),
            "" if r.refusal_accuracy is None else f"{r.refusal_accuracy:.1f}",
            r.note,
            r.source,
        ]
        for r in REFERENCES
    ]
    lines += _table(["system", "reader", "judge", "F1", "judge acc.", "refusal", "note", "source"], rows)
    lines.append("")
    return "\n".join(lines)


def plot_run(summary: dict[str, Any], path: Path) -> Path:
    """Draw the run's main figure to ``path`` (PNG)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError(
            "drawing report.png needs matplotlib, which is not installed.",
            hint="pip install 'user-as-code[plots]' (or run with --no-plot).",
        ) from None
    if summary["answers"]:
        systems = list(summary["answers"])
        groups = [("F1", "f1"), ("judge", "judge_accuracy")]
        labels = [f"{LOCOMO_CATEGORIES[c]}" for c in (1, 2, 3, 4)] + ["refusal (5)"]
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), sharey=True)
        for ax, (title, key) in zip(axes, groups):
            width = 0.8 / max(1, len(systems))
            for n, name in enumerate(systems):
                s = summary["answers"][name]
                values = [s["categories"].get(str(c), {}).get(key) or 0.0 for c in (1, 2, 3, 4)]
                values.append(s["refusal_accuracy"] or 0.0)
                ax.bar([i + n * width for i in range(len(labels))], [100 * v for v in values], width, label=name)
            ax.set_xticks([i + 0.4 - width / 2 for i in range(len(labels))], labels, rotation=20)
            ax.set_title(f"{title} by category (%)")
            ax.set_ylim(0, 100)
        axes[0].legend()
    else:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for name, s in summary["retrieval"].items():
            ax.plot(list(RECALL_KS), [100 * (s[f"recall@{k}"] or 0.0) for k in RECALL_KS], marker="o", label=name)
        ax.set_xlabel("k (retrieved items)")
        ax.set_ylabel("evidence recall (%)")
        ax.set_xticks(list(RECALL_KS))
        ax.set_ylim(0, 100)
        ax.set_title("LoCoMo evidence recall@k, categories 1-4")
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def write_report(run_dir: Path, *, plot: bool = True) -> dict[str, Any]:
    """Write report.md, summary.json and (with ``plot``) report.png; return the summary."""
    run_dir = Path(run_dir)
    summary = summarize_run(run_dir)
    atomic_write_text(run_dir / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False, default=str) + "\n")
    atomic_write_text(run_dir / "report.md", render_markdown(summary))
    if plot and (summary["answers"] or summary["retrieval"]):
        plot_run(summary, run_dir / "report.png")
    return summary


__all__ = ["load_run", "mean", "plot_run", "render_markdown", "summarize_run", "write_report"]
