"""``uac compile``: compile the facts into typed domain packages."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .common import CommandRun, echo, project_command

if TYPE_CHECKING:
    from ..compile.report import CompileReport


def represented_line(domain: dict) -> str:
    """What the view says of a domain's facts: in records, only on the timeline, left out and why."""
    facts = domain["view"]
    line = (
        f"{facts['represented']} fact(s) in records ({domain['represented_share']:.0%}), "
        f"{facts['timeline']} only on the timeline, {facts['left_out']} left out"
    )
    why = "; ".join(f"{n} {reason}" for reason, n in sorted(facts["left_out_why"].items(), key=lambda t: (-t[1], t[0])))
    line += f" ({why})" if why else ""
    if facts.get("elsewhere"):
        line += f"; {facts['elsewhere']} held by another domain's record"
    return line


def register(app: typer.Typer) -> None:
    @project_command(app, "compile", text=_print_report, ok=lambda report: report.ok)
    def compile_(
        run: CommandRun,
        mode: str = typer.Option(
            None,
            "--mode",
            help="incremental (default with a model) | bounded (the paper's 30,000-character prefix) | offline (no model).",
        ),
    ) -> CompileReport:
        """Compile facts into domains/<d>/schema.py and state.py (validated; a failed domain keeps its view)."""
        with run.progress("compile") as on_progress:
            return run.memory.compile(mode=mode, progress=on_progress)


def _print_report(report: CompileReport) -> None:
    data = report.to_json()
    totals = data["totals"]
    echo(
        f"compile ({report.mode}): {totals['domains_compiled']} domain(s) compiled, "
        f"{totals['domains_failed']} failed; {totals['records']} records; "
        f"coverage {totals['facts_covered']}/{totals['facts']} facts ({totals['coverage']:.0%})"
    )
    echo(
        f"  in records: {totals['facts_represented']} fact(s) ({totals['represented_share']:.0%}); "
        f"only on the timeline: {totals['facts_timeline']}; left out: {totals['facts_left_out']}"
    )
    usage = data.get("usage")
    if usage and (usage["calls"] or usage["cached"]["calls"]):
        echo(
            f"  model: {usage['calls']} call(s), {usage['prompt_tokens']}+{usage['completion_tokens']} tokens"
            + (f", {usage['cached']['calls']} from the cache" if usage["cached"]["calls"] else "")
            + (f", {usage['retries']} retried" if usage["retries"] else "")
        )
    if report.facts_in_prompt is not None:
        echo(f"  bounded prompt held {report.facts_in_prompt} of {report.facts_total} facts")
    for d in data["domains"]:
        line = f"  {d['domain']}: {d['status']}, {d['records']} records, {d['facts_covered']}/{d['facts_routed']} routed facts cited"
        if d["calls"]:
            tokens = d["tokens"]
            line += f", {d['calls']} call(s), {tokens['prompt_tokens']}+{tokens['completion_tokens']} tokens, {d['repair_rounds']} repair round(s)"
        echo(line)
        echo("    " + represented_line(d))
        if d["rejection"]:
            echo(f"    rejected: {d['rejection']}")
    for dup in data.get("duplicates", [])[:10]:
        echo(f"  warning: {dup['fix']}")
