"""``python -m analytical_bench``: generate the dataset, run the benchmark."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from uac.errors import UacError, UserError

from .cases import Dataset
from .generator import DEFAULT_SEED, generate


def _int_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers (e.g. 20,50)") from None


def _name_list(text: str) -> list[str]:
    return [part for part in text.replace(",", " ").split() if part]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m analytical_bench",
        description="The analytical benchmark of User as Code: aggregate questions over a user's records.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    gen = commands.add_parser("generate", help="Write the seeded, checksummed dataset to a JSON file.")
    gen.add_argument("--out", required=True, type=Path, help="dataset file to write")
    gen.add_argument("--extended", action="store_true", help="add the extended tiers (N = 1000 ... 10000)")
    gen.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"generator seed (default {DEFAULT_SEED})")
    gen.add_argument("--no-cross", action="store_true", help="leave out the cross-domain cases")

    run = commands.add_parser(
        "run",
        help="Run the systems with the configured model (or the offline measurements when none is configured).",
    )
    run.add_argument("--systems", type=_name_list, default=None,
                     help="comma-separated: fc_repl,uac_repl,full_context,topk,facts (default: all)")
    run.add_argument("--tiers", type=_int_list, default=None, help="record counts to run, e.g. 20,50 (default: all)")
    run.add_argument("--suites", type=_name_list, default=None, help="paper,cross,extended (default: all in the dataset)")
    run.add_argument("--limit", type=int, default=None, help="run only the first N selected cases")
    run.add_argument("--out", type=Path, default=Path("analytical-results"), help="output directory")
    run.add_argument("--workers", type=int, default=4, help="concurrent answers when a model is configured")
    run.add_argument("--dataset", type=Path, default=None, help="dataset file (default: generate in memory)")
    run.add_argument("--extended", action="store_true", help="with no --dataset: include the extended tiers")
    run.add_argument("--seed", type=int, default=DEFAULT_SEED, help="with no --dataset: generator seed")
    run.add_argument("--offline", action="store_true", help="offline measurements even if a model is configured")
    run.add_argument("--max-steps", type=int, default=None, help="tool-call turns for the REPL systems (default 8)")
    run.add_argument("--price-prompt", type=float, default=0.0, help="USD per 1k prompt tokens (cost estimate)")
    run.add_argument("--price-completion", type=float, default=0.0, help="USD per 1k completion tokens")
    run.add_argument("--no-plot", action="store_true", help="skip the PNG plot (no matplotlib needed)")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _generate(args: argparse.Namespace) -> int:
    dataset = generate(args.seed, extended=args.extended, cross=not args.no_cross)
    path = dataset.save(args.out)
    print(f"wrote {len(dataset.cases)} cases to {path} (sha256 {dataset.checksum})")
    return 0


def _run(args: argparse.Namespace) -> int:
    from uac.llm import build_client, resolve_settings

    from .harness import run_benchmark
    from .runner import Prices
    from .systems import make_systems

    if args.limit is not None and args.limit < 1:
        raise UserError(f"--limit {args.limit} must be at least 1.")
    if args.workers < 1:
        raise UserError(f"--workers {args.workers} must be at least 1.")
    source = Dataset.load(args.dataset) if args.dataset else generate(args.seed, extended=args.extended)
    dataset = source.select(tiers=args.tiers, suites=args.suites, limit=args.limit)
    if not dataset.cases:
        raise UserError("no case matches the chosen --tiers/--suites.", hint="Check the values against the dataset.")
    systems = make_systems(args.systems, max_steps=args.max_steps)
    env = dict(os.environ)
    env.setdefault("UAC_LLM_CACHE", str(Path(args.out) / "llm-cache.sqlite"))
    settings = resolve_settings(env=env)
    llm = None if args.offline else build_client(settings)
    options = {
        "tiers": args.tiers, "suites": args.suites, "limit": args.limit,
        "dataset_file": str(args.dataset) if args.dataset else None, "max_steps": args.max_steps,
    }
    outcome = run_benchmark(
        dataset, args.out, source=source, systems=systems, llm=llm, settings=None if llm is None else settings,
        workers=args.workers, prices=Prices(args.price_prompt, args.price_completion), plot=not args.no_plot,
        show_progress=not args.quiet, options=options,
    )
    what = "offline measurements (no model configured)" if outcome.mode == "offline" else f"{len(outcome.rows)} answers"
    print(f"{what}: report at {outcome.report}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _generate(args) if args.command == "generate" else _run(args)
    except UacError as exc:
        if os.environ.get("UAC_DEBUG"):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
