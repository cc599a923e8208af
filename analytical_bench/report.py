"""The markdown report (and its plot) for a model run or an offline run.

Everything in ``report.md`` is a deterministic function of the results (no
timings, no cache statistics), so re-running with a warm response cache
reproduces it byte for byte; latencies go to ``timings.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .cases import Dataset
from .files import atomic_write_text
from .offline import OFFLINE_SYSTEMS
from .patterns import PATTERNS
from .runner import Prices
from .systems import SYSTEM_CLASSES

SUITE_TITLES = {
    "paper": "paper layout (10 record types x 10 patterns, 20 cases per N)",
    "cross": "cross-domain joins",
    "extended": "extended tiers",
}
PLOT_FILE = "accuracy_vs_n.png"


def _pct(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{100 * sum(values) / len(values):.1f}"


def _table(header: list[str], rows: Iterable[list[str]]) -> list[str]:
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _suites(rows: list[dict[str, Any]]) -> list[str]:
    order = list(SUITE_TITLES)
    return sorted({row["suite"] for row in rows}, key=lambda s: order.index(s) if s in order else len(order))


def _patterns(rows: list[dict[str, Any]]) -> list[str]:
    present = {row["pattern"] for row in rows}
    return [p for p in PATTERNS if p in present] + sorted(present - set(PATTERNS))


def _by_n_table(rows: list[dict[str, Any]], labels: dict[str, str], value) -> list[str]:
    tiers = sorted({row["n"] for row in rows})
    counts = {n: len({row["case_id"] for row in rows if row["n"] == n}) for n in tiers}
    header = ["System", f"All ({len({r['case_id'] for r in rows})})"] + [f"N={n} ({counts[n]})" for n in tiers]
    body = []
    for key, label in labels.items():
        mine = [row for row in rows if row["system"] == key]
        if not mine:
            continue
        body.append(
            [label, _pct([value(r) for r in mine])] + [_pct([value(r) for r in mine if r["n"] == n]) for n in tiers]
        )
    return _table(header, body)


def _by_pattern_table(rows: list[dict[str, Any]], labels: dict[str, str], value) -> list[str]:
    patterns = _patterns(rows)
    header = ["System"] + patterns
    body = []
    for key, label in labels.items():
        mine = [row for row in rows if row["system"] == key]
        if not mine:
            continue
        body.append([label] + [_pct([value(r) for r in mine if r["pattern"] == p]) for p in patterns])
    return _table(header, body)


def _tables_by_suite_and_pattern(
    rows: list[dict[str, Any]], labels: dict[str, str], value, by_n_title: str, by_pattern_title: str
) -> list[str]:
    """One table by record count per suite, then one by pattern over all the rows."""
    lines: list[str] = []
    for suite in _suites(rows):
        mine = [row for row in rows if row["suite"] == suite]
        lines += [f"## {by_n_title}: {SUITE_TITLES.get(suite, suite)}", ""]
        lines += _by_n_table(mine, labels, value) + [""]
    lines += [f"## {by_pattern_title} by pattern (all cases in the run)", ""]
    lines += _by_pattern_table(rows, labels, value) + [""]
    return lines


def _series(rows: list[dict[str, Any]], labels: dict[str, str], value) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for key, label in labels.items():
        grouped: dict[int, list[float]] = defaultdict(list)
        for row in rows:
            if row["system"] == key:
                grouped[row["n"]].append(value(row))
        if grouped:
            out[label] = {n: 100 * sum(v) / len(v) for n, v in grouped.items()}
    return out


def _dataset_lines(dataset: Dataset, selected: int) -> list[str]:
    return [
        f"- Dataset: `{dataset.name}` version {dataset.version}, seed {dataset.seed}, sha256 `{dataset.checksum}`",
        f"- Cases in this run: {selected}",
    ]


def model_report(
    rows: list[dict[str, Any]],
    dataset: Dataset,
    *,
    selected: int,
    model: str,
    prices: Prices,
    plot: str | None,
) -> str:
    labels = {name: cls.label for name, cls in SYSTEM_CLASSES.items()}
    correct = lambda row: 1.0 if row["correct"] else 0.0  # noqa: E731
    lines = [
        "# Analytical benchmark report",
        "",
        f"Answers by **{model}**, scored deterministically by answer kind (no LLM judge).",
        "",
        *_dataset_lines(dataset, selected),
        "",
    ]
    lines += _tables_by_suite_and_pattern(rows, labels, correct, "Accuracy (%) by record count N", "Accuracy (%)")
    if plot:
        lines += [f"![accuracy against N]({plot})", ""]
    lines += ["## Tokens and cost", ""]
    body = []
    total_prompt = total_completion = 0
    for key, label in labels.items():
        mine = [row for row in rows if row["system"] == key]
        if not mine:
            continue
        prompt = sum(row["prompt_tokens"] for row in mine)
        completion = sum(row["completion_tokens"] for row in mine)
        total_prompt += prompt
        total_completion += completion
        body.append(
            [
                label,
                f"{prompt:,}",
                f"{completion:,}",
                str(sum(len(row["tool_calls"]) for row in mine)),
                str(sum(1 for row in mine if row["error"])),
                f"{prices.cost(prompt, completion):.4f}",
            ]
        )
    body.append(
        [
            "**Total**",
            f"{total_prompt:,}",
            f"{total_completion:,}",
            "",
            "",
            f"{prices.cost(total_prompt, total_completion):.4f}",
        ]
    )
    lines += _table(["System", "Prompt tokens", "Completion tokens", "Tool calls", "Errors", "Est. cost (USD)"], body)
    lines += [
        "",
        f"Cost at ${prices.prompt_per_1k:g} per 1k prompt tokens and ${prices.completion_per_1k:g} per 1k "
        "completion tokens (set with --price-prompt / --price-completion).",
        "",
    ]
    return "\n".join(lines)


def offline_report(rows: list[dict[str, Any]], dataset: Dataset, *, selected: int, plot: str | None) -> str:
    """The report of an offline run; ``rows`` are :func:`~analytical_bench.offline.run_offline` rows."""
    flat = []
    for row in rows:
        for key, value in row["ceiling"].items():
            flat.append({**row, "system": key, "value": value})
    value = lambda row: row["value"]  # noqa: E731
    lines = [
        "# Analytical benchmark report (offline)",
        "",
        "> **No model answered these questions.** No language model was configured, so no system was scored "
        "on answers. Measured instead: (a) **import fidelity** -- every case's records imported with "
        "`UserMemory.import_records` must appear in the typed state with every field and the right Python "
        "type; (b) the **answerability ceiling** -- the share of the records each case's gold is computed from "
        "that a system can put in front of a model: all of them for the enumerable typed state, only the "
        "retrieved ones for top-k retrieval (top 20 plus neighbours) and flat fact memory (top 20 facts). "
        "Configure a model (`UAC_LLM_PROVIDER=openai UAC_LLM_MODEL=...`) to measure accuracy.",
        "",
        *_dataset_lines(dataset, selected),
        "",
        "## Import fidelity",
        "",
    ]
    tiers = sorted({row["n"] for row in rows})
    body = []
    for n in tiers + [None]:
        mine = [row for row in rows if n is None or row["n"] == n]
        fid = [row["fidelity"] for row in mine]
        body.append(
            [
                "**All**" if n is None else f"N={n}",
                str(len(mine)),
                f"{sum(f['records_exact'] for f in fid):,} / {sum(f['records'] for f in fid):,}",
                f"{sum(f['fields_exact'] for f in fid):,} / {sum(f['fields'] for f in fid):,}",
                f"{sum(1 for f in fid if f['ok'])} / {len(fid)}",
            ]
        )
    lines += _table(["Record count", "Cases", "Records exact", "Fields exact", "Cases passing"], body) + [""]
    problems = [(row["case_id"], p) for row in rows for p in row["fidelity"]["problems"]]
    if problems:
        lines += ["First fidelity problems:", ""] + [f"- `{cid}`: {p}" for cid, p in problems[:10]] + [""]
    lines += _tables_by_suite_and_pattern(
        flat,
        OFFLINE_SYSTEMS,
        value,
        "Answerability ceiling (% of support records available) by N",
        "Answerability ceiling (%)",
    )
    full = {key: sum(1 for row in flat if row["system"] == key and row["value"] >= 1.0) for key in OFFLINE_SYSTEMS}
    lines += ["## Cases with every support record available", ""]
    lines += _table(["Source", "Cases"], [[OFFLINE_SYSTEMS[k], f"{v} / {len(rows)}"] for k, v in full.items()]) + [""]
    if plot:
        lines += [f"![answerability ceiling against N]({plot})", ""]
    return "\n".join(lines)


def model_series(rows: list[dict[str, Any]]) -> dict[str, dict[int, float]]:
    labels = {name: cls.label for name, cls in SYSTEM_CLASSES.items()}
    return _series(rows, labels, lambda row: 1.0 if row["correct"] else 0.0)


def offline_series(rows: list[dict[str, Any]]) -> dict[str, dict[int, float]]:
    flat = [{**row, "system": key, "value": value} for row in rows for key, value in row["ceiling"].items()]
    return _series(flat, OFFLINE_SYSTEMS, lambda row: row["value"])


def timings_report(rows: list[dict[str, Any]]) -> str:
    labels = {name: cls.label for name, cls in SYSTEM_CLASSES.items()}
    body = []
    for key, label in labels.items():
        mine = sorted(row["latency"] for row in rows if row["system"] == key)
        if mine:
            body.append([label, f"{sum(mine) / len(mine):.2f}", f"{mine[len(mine) // 2]:.2f}", f"{mine[-1]:.2f}"])
    lines = ["# Latency per answer (seconds; varies between runs and with the cache)", ""]
    lines += _table(["System", "Mean", "Median", "Max"], body)
    return "\n".join(lines) + "\n"


def write_report(out: Path, text: str) -> Path:
    path = Path(out) / "report.md"
    atomic_write_text(path, text if text.endswith("\n") else text + "\n")
    return path
