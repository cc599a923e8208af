"""``python -m analytical_bench.locomo``: run, compare, report.

The model comes from the environment (``UAC_LLM_PROVIDER``, ``UAC_LLM_MODEL``,
``UAC_LLM_BASE_URL``, ``OPENAI_API_KEY`` ...).  With none configured, ``run``
is offline: rule-based ingest and retrieval metrics only.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Callable, Sequence

from uac.errors import UacError, UserError
from uac.llm import LLMClient, LLMSettings, build_client, resolve_settings

from .systems import SYSTEMS


def _names(text: str) -> list[str]:
    return [part for part in text.replace(",", " ").split() if part]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m analytical_bench.locomo",
        description="LoCoMo evaluation of uac against full-context and plain-RAG baselines.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="Ingest, answer and score (offline: retrieval metrics only).")
    run.add_argument("--data", required=True, type=Path, help="the LoCoMo JSON file (e.g. locomo10.json)")
    run.add_argument("--conversations", type=_names, default=None, help="sample ids, e.g. conv-26,conv-30 (default: all)")
    run.add_argument("--systems", type=_names, default=list(SYSTEMS), help=f"comma-separated: {','.join(SYSTEMS)} (default: all)")
    run.add_argument("--out", type=Path, default=Path("locomo-results"), help="run directory (default: ./locomo-results)")
    run.add_argument("--resume", action="store_true", help="continue a run: skip questions already written, reuse projects")
    run.add_argument("--workers", type=int, default=4, help="threads over conversations and questions when a model is configured")
    run.add_argument("--limit-questions", type=int, default=None, help="only the first N questions of each conversation")
    run.add_argument("--offline", action="store_true", help="retrieval metrics only, even if a model is configured")
    run.add_argument("--no-judge", action="store_true", help="skip the LLM judge (token F1 and refusal only)")
    run.add_argument("--judge-model", default=None, help="judge with this model (same endpoint) instead of the reader's")
    run.add_argument("--rag-k", type=int, default=20, help="turns the rag baseline gives the reader (default 20)")
    run.add_argument("--no-compile", action="store_true", help="skip Phase 2 compile for the uac system")
    run.add_argument("--compile-mode", choices=["incremental", "bounded", "offline"], default=None,
                     help="Phase 2 mode with a model (default: the project's [compile] mode; offline runs use offline)")
    run.add_argument("--no-plot", action="store_true", help="skip report.png (no matplotlib needed)")
    run.add_argument("--json", action="store_true", help="print the summary as one JSON object")

    cmp_ = commands.add_parser("compare", help="Paired comparison of two runs (or two systems of one run).")
    cmp_.add_argument("run_a", help="RUN_DIR, RUN_DIR:system or a results .jsonl")
    cmp_.add_argument("run_b", help="RUN_DIR, RUN_DIR:system or a results .jsonl")
    cmp_.add_argument("--metric", default=None,
                      help="judge, f1, refusal; offline: recall@5, recall@10, recall@20, session_recall@10")
    cmp_.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples (default 2000)")
    cmp_.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    cmp_.add_argument("--show", type=int, default=20, help="flipped questions to list per side")
    cmp_.add_argument("--json", action="store_true", help="print one JSON object")

    rep = commands.add_parser("report", help="Rebuild report.md, summary.json and report.png of a run directory.")
    rep.add_argument("run_dir", type=Path)
    rep.add_argument("--no-plot", action="store_true", help="skip report.png")
    return parser


def model_factories(
    env: dict[str, str] | None = None, *, judge_model: str | None = None
) -> tuple[Callable[[], LLMClient | None], Callable[[], LLMClient | None], LLMSettings]:
    """Factories of LLM clients over one shared provider (each client keeps its own usage)."""
    settings = resolve_settings(None, env=dict(os.environ if env is None else env))
    base = build_client(settings)

    def fork(client: LLMClient | None) -> Callable[[], LLMClient | None]:
        def make() -> LLMClient | None:
            if client is None:
                return None
            return LLMClient(client.provider, cache=client.cache, max_retries=settings.max_retries, temperature=settings.temperature)

        return make

    judge = base
    if judge_model and base is not None:
        judge = build_client(dataclasses.replace(settings, model=judge_model))
    return fork(base), fork(judge), settings


def _run(args: argparse.Namespace) -> int:
    from .report import render_markdown
    from .runner import RunConfig, Runner

    reader, judge, _ = model_factories(judge_model=args.judge_model)
    config = RunConfig(
        data=args.data,
        out=args.out,
        systems=args.systems,
        conversations=args.conversations,
        resume=args.resume,
        workers=args.workers,
        limit_questions=args.limit_questions,
        offline=args.offline,
        judge=not args.no_judge,
        rag_k=args.rag_k,
        compile=not args.no_compile,
        compile_mode=args.compile_mode,
        plot=not args.no_plot,
    )
    summary = Runner(config, llm_factory=reader, judge_factory=judge).run()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, default=str))
    else:
        print(render_markdown(summary))
        print(f"written: {args.out / 'report.md'}", file=sys.stderr)
    return 0


def _compare(args: argparse.Namespace) -> int:
    from .compare import compare

    result = compare(args.run_a, args.run_b, metric=args.metric, resamples=args.resamples, seed=args.seed)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print(result.to_markdown(show=args.show), end="")
    return 0


def _report(args: argparse.Namespace) -> int:
    from .report import write_report

    write_report(args.run_dir, plot=not args.no_plot)
    print(f"written: {args.run_dir / 'report.md'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"run": _run, "compare": _compare, "report": _report}
    try:
        return handlers[args.command](args)
    except UacError as exc:
        if os.environ.get("UAC_DEBUG"):
            raise
        print(f"error: {exc.message}" + (f" {exc.hint}" if exc.hint else ""), file=sys.stderr)
        return exc.exit_code if isinstance(exc, UserError) else 1
