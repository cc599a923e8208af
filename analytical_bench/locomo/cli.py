"""``python -m analytical_bench.locomo``: run, compare, report.

The model comes from the environment (``UAC_LLM_PROVIDER``, ``UAC_LLM_MODEL``,
``UAC_LLM_BASE_URL``, ``OPENAI_API_KEY`` ...).  With none configured, ``run``
is offline: rule-based ingest and retrieval metrics only.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Annotated, Callable, Optional, Sequence

import typer

from uac import REASONING_MODES, LLMClient, LLMSettings

from ..command import model_client, model_settings, names_option, new_app, run_app
from .systems import SYSTEMS

PROG = "python -m analytical_bench.locomo"
COMPILE_MODES = ("incremental", "bounded", "offline")

app = new_app("LoCoMo evaluation of uac against full-context and plain-RAG baselines.")


def model_factories(
    env: dict[str, str] | None = None, *, judge_model: str | None = None
) -> tuple[Callable[[], LLMClient | None], Callable[[], LLMClient | None], LLMSettings]:
    """Factories of LLM clients over one shared provider (each client keeps its own usage)."""
    settings = model_settings(env)
    base = model_client(settings)

    def fork(client: LLMClient | None) -> Callable[[], LLMClient | None]:
        def make() -> LLMClient | None:
            if client is None:
                return None
            return LLMClient(
                client.provider, cache=client.cache, max_retries=settings.max_retries, temperature=settings.temperature
            )

        return make

    judge = base
    if judge_model and base is not None:
        judge = model_client(dataclasses.replace(settings, model=judge_model))
    return fork(base), fork(judge), settings


def _reasoning(value: str) -> str:
    if value not in REASONING_MODES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(REASONING_MODES)}.")
    return value


def _compile_mode(value: Optional[str]) -> Optional[str]:
    if value is not None and value not in COMPILE_MODES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(COMPILE_MODES)}.")
    return value


@app.command("run")
def run_command(
    data: Path = typer.Option(..., "--data", help="the LoCoMo JSON file (e.g. locomo10.json)"),
    conversations: Optional[str] = names_option(
        None, "--conversations", help="sample ids, e.g. conv-26,conv-30 (default: all)"
    ),
    systems: Optional[str] = names_option(
        list(SYSTEMS), "--systems", help=f"comma-separated: {','.join(SYSTEMS)} (default: all)"
    ),
    out: Path = typer.Option(Path("locomo-results"), "--out", help="run directory (default: ./locomo-results)"),
    resume: bool = typer.Option(
        False, "--resume", help="continue a run: skip questions already written, reuse projects"
    ),
    workers: int = typer.Option(
        4, "--workers", help="threads over conversations and questions when a model is configured"
    ),
    limit_questions: Optional[int] = typer.Option(
        None, "--limit-questions", help="only the first N questions of each conversation"
    ),
    offline: bool = typer.Option(False, "--offline", help="retrieval metrics only, even if a model is configured"),
    no_judge: bool = typer.Option(False, "--no-judge", help="skip the LLM judge (token F1 and refusal only)"),
    judge_model: Optional[str] = typer.Option(
        None, "--judge-model", help="judge with this model (same endpoint) instead of the reader's"
    ),
    rag_k: int = typer.Option(20, "--rag-k", help="turns the rag baseline gives the reader (default 20)"),
    no_compile: bool = typer.Option(False, "--no-compile", help="skip Phase 2 compile for the uac system"),
    compile_mode: Optional[str] = typer.Option(
        None,
        "--compile-mode",
        callback=_compile_mode,
        metavar="[incremental|bounded|offline]",
        help="Phase 2 mode with a model (default: the project's [compile] mode; offline runs use offline)",
    ),
    reasoning: str = typer.Option(
        "direct",
        "--reasoning",
        callback=_reasoning,
        metavar="[direct|step_by_step]",
        help="how every reader answers: direct, or step_by_step (reasoning, then the answer on the last line, which is scored)",
    ),
    no_plot: bool = typer.Option(False, "--no-plot", help="skip report.png (no matplotlib needed)"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as one JSON object"),
) -> None:
    """Ingest, answer and score (offline: retrieval metrics only)."""
    from .report import render_markdown
    from .runner import RunConfig, Runner

    reader, judge, _ = model_factories(judge_model=judge_model)
    config = RunConfig(
        data=data,
        out=out,
        systems=systems,
        conversations=conversations,
        resume=resume,
        workers=workers,
        limit_questions=limit_questions,
        offline=offline,
        judge=not no_judge,
        rag_k=rag_k,
        compile=not no_compile,
        compile_mode=compile_mode,
        plot=not no_plot,
        reasoning=reasoning,
    )
    summary = Runner(config, llm_factory=reader, judge_factory=judge).run()
    if as_json:
        typer.echo(json.dumps(summary, ensure_ascii=False, default=str))
    else:
        typer.echo(render_markdown(summary))
        print(f"written: {out / 'report.md'}", file=sys.stderr)


#: one side of a comparison
RunArgument = Annotated[str, typer.Argument(help="RUN_DIR, RUN_DIR:system or a results .jsonl")]


@app.command("compare")
def compare_command(
    run_a: RunArgument,
    run_b: RunArgument,
    metric: Optional[str] = typer.Option(
        None, "--metric", help="judge, f1, refusal; offline: recall@5, recall@10, recall@20, session_recall@10"
    ),
    resamples: int = typer.Option(2000, "--resamples", help="bootstrap resamples (default 2000)"),
    seed: int = typer.Option(0, "--seed", help="bootstrap seed"),
    show: int = typer.Option(20, "--show", help="flipped questions to list per side"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Paired comparison of two runs (or two systems of one run)."""
    from .compare import compare

    result = compare(run_a, run_b, metric=metric, resamples=resamples, seed=seed)
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        typer.echo(result.to_markdown(show=show), nl=False)


@app.command("report")
def report_command(
    run_dir: Path = typer.Argument(..., help="the run directory"),
    no_plot: bool = typer.Option(False, "--no-plot", help="skip report.png"),
) -> None:
    """Rebuild report.md, summary.json and report.png of a run directory."""
    from .report import write_report

    write_report(run_dir, plot=not no_plot)
    typer.echo(f"written: {run_dir / 'report.md'}")


def main(argv: Sequence[str] | None = None) -> int:
    return run_app(app, argv, PROG)
