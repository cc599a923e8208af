"""The benchmark end to end: choose the mode, run, and write every output file."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from uac import LLMClient, LLMSettings

from . import report as _report
from .cases import Dataset
from .offline import OFFLINE_SYSTEMS, run_offline
from .runner import Prices, run_model, run_record, write_jsonl, write_run_json
from .systems import System


@dataclass
class Outcome:
    mode: str  # "model" | "offline"
    out: Path
    rows: list[dict[str, Any]]
    report: Path


@contextlib.contextmanager
def progress_bar(total: int, description: str, enabled: bool = True) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr; yields the ``advance(n)`` callback."""
    if not enabled:
        yield lambda _n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


def _plot(out: Path, series: dict[str, dict[int, float]], *, title: str, ylabel: str, enabled: bool) -> str | None:
    if not enabled or not series:
        return None
    from .plot import plot_series

    plot_series(series, out / _report.PLOT_FILE, title=title, ylabel=ylabel)
    return _report.PLOT_FILE


def run_benchmark(
    dataset: Dataset,
    out: Path,
    *,
    source: Dataset | None = None,
    systems: list[System],
    llm: LLMClient | None,
    settings: LLMSettings | None = None,
    workers: int = 1,
    prices: Prices = Prices(),
    plot: bool = True,
    show_progress: bool = False,
    options: dict[str, Any] | None = None,
) -> Outcome:
    """Run ``dataset`` (a selection of ``source``) and write results, run.json and the report to ``out``.

    With ``llm=None`` this is the offline mode (no model answers anything).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    source = source or dataset
    started = time.perf_counter()
    options = dict(options or {})
    if llm is None:
        with progress_bar(len(dataset.cases), "offline", show_progress) as advance:
            rows = run_offline(dataset, progress=advance)
        write_jsonl(out / "results.jsonl", rows)
        image = _plot(
            out,
            _report.offline_series(rows),
            title="Answerability ceiling against N",
            ylabel="support records available (%)",
            enabled=plot,
        )
        text = _report.offline_report(rows, source, selected=len(dataset.cases), plot=image)
        totals = {
            "cases": len(rows),
            "fidelity_cases_passing": sum(1 for r in rows if r["fidelity"]["ok"]),
            "mean_ceiling": {
                key: round(sum(r["ceiling"][key] for r in rows) / max(1, len(rows)), 6) for key in OFFLINE_SYSTEMS
            },
        }
        mode, names = "offline", list(OFFLINE_SYSTEMS)
    else:
        with progress_bar(len(dataset.cases) * len(systems), llm.describe(), show_progress) as advance:
            rows = run_model(dataset, systems, llm, workers=workers, progress=advance)
        write_jsonl(out / "results.jsonl", rows)
        image = _plot(
            out, _report.model_series(rows), title="Analytical accuracy against N", ylabel="accuracy (%)", enabled=plot
        )
        text = _report.model_report(
            rows, source, selected=len(dataset.cases), model=llm.describe(), prices=prices, plot=image
        )
        (out / "timings.md").write_text(_report.timings_report(rows), "utf-8")
        prompt = sum(r["prompt_tokens"] for r in rows)
        completion = sum(r["completion_tokens"] for r in rows)
        totals = {
            "answers": len(rows),
            "correct": sum(1 for r in rows if r["correct"]),
            "errors": sum(1 for r in rows if r["error"]),
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost_usd": round(prices.cost(prompt, completion), 6),
            "prices_per_1k": {"prompt": prices.prompt_per_1k, "completion": prices.completion_per_1k},
        }
        mode, names = "model", [s.name for s in systems]
        options["workers"] = workers
    report_path = _report.write_report(out, text)
    options["selected_case_ids"] = (
        [case.id for case in dataset.cases] if len(dataset.cases) < len(source.cases) else "all"
    )
    record = run_record(
        source,
        mode=mode,
        systems=names,
        settings=settings,
        llm=llm,
        options=options,
        totals=totals,
        seconds=time.perf_counter() - started,
    )
    write_run_json(out / "run.json", record)
    return Outcome(mode, out, rows, report_path)
