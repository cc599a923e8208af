"""``python -m analytical_bench``: generate the dataset, run the benchmark."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import typer

from uac import UserError

from .cases import Dataset
from .command import ints_option, model_client, model_settings, names_option, new_app, run_app
from .generator import DEFAULT_SEED, generate

PROG = "python -m analytical_bench"

app = new_app("The analytical benchmark of User as Code: aggregate questions over a user's records.")


@app.command("generate")
def generate_command(
    out: Path = typer.Option(..., "--out", help="dataset file to write"),
    extended: bool = typer.Option(False, "--extended", help="add the extended tiers (N = 1000 ... 10000)"),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="generator seed"),
    no_cross: bool = typer.Option(False, "--no-cross", help="leave out the cross-domain cases"),
) -> None:
    """Write the seeded, checksummed dataset to a JSON file."""
    dataset = generate(seed, extended=extended, cross=not no_cross)
    path = dataset.save(out)
    typer.echo(f"wrote {len(dataset.cases)} cases to {path} (sha256 {dataset.checksum})")


@app.command("run")
def run_command(
    systems: Optional[str] = names_option(
        None, "--systems", help="comma-separated: fc_repl,uac_repl,full_context,topk,facts (default: all)"
    ),
    tiers: Optional[str] = ints_option(None, "--tiers", help="record counts to run, e.g. 20,50 (default: all)"),
    suites: Optional[str] = names_option(None, "--suites", help="paper,cross,extended (default: all in the dataset)"),
    limit: Optional[int] = typer.Option(None, "--limit", help="run only the first N selected cases"),
    out: Path = typer.Option(Path("analytical-results"), "--out", help="output directory"),
    workers: int = typer.Option(4, "--workers", help="concurrent answers when a model is configured"),
    dataset_file: Optional[Path] = typer.Option(None, "--dataset", help="dataset file (default: generate in memory)"),
    extended: bool = typer.Option(False, "--extended", help="with no --dataset: include the extended tiers"),
    seed: int = typer.Option(DEFAULT_SEED, "--seed", help="with no --dataset: generator seed"),
    offline: bool = typer.Option(False, "--offline", help="offline measurements even if a model is configured"),
    max_steps: Optional[int] = typer.Option(
        None, "--max-steps", help="tool-call turns for the REPL systems (default 8)"
    ),
    reasoning: str = typer.Option(
        "direct",
        "--reasoning",
        metavar="[direct|step_by_step]",
        help="how the model answers: direct, or step_by_step (reasoning, then the answer on the last line, which is scored)",
    ),
    price_prompt: float = typer.Option(0.0, "--price-prompt", help="USD per 1k prompt tokens (cost estimate)"),
    price_completion: float = typer.Option(0.0, "--price-completion", help="USD per 1k completion tokens"),
    no_plot: bool = typer.Option(False, "--no-plot", help="skip the PNG plot (no matplotlib needed)"),
    quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
) -> None:
    """Run the systems with the configured model (or the offline measurements when none is configured)."""
    from .harness import run_benchmark
    from .runner import Prices
    from .systems import make_systems

    if limit is not None and limit < 1:
        raise UserError(f"--limit {limit} must be at least 1.")
    if workers < 1:
        raise UserError(f"--workers {workers} must be at least 1.")
    source = Dataset.load(dataset_file) if dataset_file else generate(seed, extended=extended)
    dataset = source.select(tiers=tiers, suites=suites, limit=limit)
    if not dataset.cases:
        raise UserError("no case matches the chosen --tiers/--suites.", hint="Check the values against the dataset.")
    chosen = make_systems(systems, max_steps=max_steps, reasoning=reasoning)
    settings = model_settings(UAC_LLM_CACHE=str(Path(out) / "llm-cache.sqlite"))
    llm = model_client(settings, offline=offline)
    options = {
        "tiers": tiers,
        "suites": suites,
        "limit": limit,
        "dataset_file": str(dataset_file) if dataset_file else None,
        "max_steps": max_steps,
        "reasoning": reasoning,
    }
    outcome = run_benchmark(
        dataset,
        out,
        source=source,
        systems=chosen,
        llm=llm,
        settings=None if llm is None else settings,
        workers=workers,
        prices=Prices(price_prompt, price_completion),
        plot=not no_plot,
        show_progress=not quiet,
        options=options,
    )
    what = "offline measurements (no model configured)" if outcome.mode == "offline" else f"{len(outcome.rows)} answers"
    typer.echo(f"{what}: report at {outcome.report}")


@app.command("conv")
def conv_command(
    sizes: Optional[str] = ints_option(
        None, "--sizes", help="sessions per generated history, 10..500 (default 10,50,200)"
    ),
    seed: int = typer.Option(32, "--seed", help="generator seed"),
    out: Path = typer.Option(Path("conv-results"), "--out", help="output directory"),
    systems: Optional[str] = names_option(
        None, "--systems", help="model systems: uac,retrieval,full_context (default: all; offline rows always run)"
    ),
    hand_written: Optional[Path] = typer.Option(
        None,
        "--hand-written",
        help="folder of hand-written chats (dev/, dev2/, ...; default tests/fixtures/chats when present)",
    ),
    no_hand_written: bool = typer.Option(False, "--no-hand-written", help="generated histories only"),
    offline: bool = typer.Option(False, "--offline", help="offline rows only, even if a model is configured"),
    context_tokens: int = typer.Option(
        120_000, "--context-tokens", help="full_context: the prompt tokens a history must fit in, else not run"
    ),
    plot: bool = typer.Option(False, "--plot", help="write accuracy_vs_size.png (needs matplotlib)"),
    questions: Optional[int] = typer.Option(
        None, "--questions", help="at most N questions per history, every kind in turn (a small model run)"
    ),
    quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
) -> None:
    """The conversational benchmark: chat histories told from a ledger, exact aggregate questions."""
    import dataclasses

    from .conv.dataset import DEFAULT_SIZES, generate, hand_written_sets, spread_questions
    from .conv.run import run_conv
    from .conv.systems import MODEL_SYSTEMS
    from .harness import progress_bar

    if context_tokens < 1:
        raise UserError(f"--context-tokens {context_tokens} must be at least 1.")
    unknown = [name for name in systems or () if name not in MODEL_SYSTEMS]
    if unknown:
        raise UserError(f"unknown system(s) {', '.join(unknown)}.", hint=f"Use {', '.join(MODEL_SYSTEMS)}.")
    chosen = list(sizes or DEFAULT_SIZES)
    histories = [generate(seed, size) for size in chosen]
    folder = hand_written if hand_written is not None else Path("tests/fixtures/chats")
    if hand_written is not None and not folder.is_dir():
        raise UserError(
            f"--hand-written {folder} is not a folder.",
            hint="Point it at a folder with dev/, dev2/ (each a sessions.jsonl with its ledger.json).",
        )
    if not no_hand_written and folder.is_dir():
        histories += hand_written_sets(folder)
    if questions is not None:
        histories = [dataclasses.replace(h, questions=spread_questions(h.questions, questions)) for h in histories]
    settings = model_settings(UAC_LLM_CACHE=str(Path(out) / "llm-cache.sqlite"))
    llm = model_client(settings, offline=offline)
    total = sum(len(h.questions) for h in histories) * (len(systems or ()) or 3)
    options = {
        "seed": seed,
        "sizes": chosen,
        "systems": systems,
        "context_tokens": context_tokens,
        "questions_per_history": questions,
        "hand_written": [h.name for h in histories if h.source != "generated"],
    }
    with progress_bar(total, "conv", enabled=not quiet and llm is not None) as advance:
        outcome = run_conv(
            histories,
            out,
            llm=llm,
            settings=None if llm is None else settings,
            systems=systems,
            context_tokens=context_tokens,
            plot=plot,
            options=options,
            progress=advance,
        )
    what = "offline rows (no model configured)" if outcome.mode == "offline" else f"{len(outcome.rows)} answers"
    typer.echo(f"{what}: report at {outcome.report}")


def main(argv: Sequence[str] | None = None) -> int:
    return run_app(app, argv, PROG)
