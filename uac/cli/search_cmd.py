"""``uac search``: hybrid search over facts and the archive."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .common import CommandRun, echo, project_command

if TYPE_CHECKING:
    from ..index.search import SearchHit


def register(app: typer.Typer) -> None:
    @project_command(app, "search", text=_print_hits, to_json=_results)
    def search(
        run: CommandRun,
        query: str = typer.Argument(..., help="What to look for."),
        k: int = typer.Option(20, "--k", help="Number of results."),
        channel: str = typer.Option("all", "--channel", help="facts | archive | records (imported records) | all."),
        as_of: str = typer.Option(
            None,
            "--as-of",
            help="What was known on this day (YYYY-MM-DD): facts said by then and not yet superseded, "
            "archive excerpts of sessions by then. Without it superseded facts are found too.",
        ),
        happened: str = typer.Option(
            None,
            "--happened",
            help="Only facts whose event date overlaps this period (2023-05-07, 2023-05, 2022, 2023-summer, START/END).",
        ),
    ) -> list[SearchHit]:
        """Search facts, archive excerpts and imported records (dense + BM25, reciprocal rank fusion)."""
        return run.memory.search(query, k=k, channel=channel, as_of=as_of, happened=happened)


def _results(hits: list[SearchHit]) -> dict:
    return {"results": [h.to_json() for h in hits]}


def _print_hits(hits: list[SearchHit]) -> None:
    if not hits:
        echo("No results.")
    for rank, hit in enumerate(hits, 1):
        if hit.record is not None:
            where = f"{hit.record['domain']}.{hit.record['collection']}[{hit.record['position']}]"
            echo(f"{rank:>3}. [{hit.channel} {hit.id}] {where} ({hit.record['source']}) {hit.score:.4f}")
            echo(f"     {hit.text}")
            continue
        evidence = ", ".join(hit.evidence)
        text = hit.text.replace("\n", " | ")
        echo(f"{rank:>3}. [{hit.channel} {hit.id}] {hit.session_date or '?'} ({evidence}) {hit.score:.4f}")
        dates = "; ".join(
            x for x in (f"happened {_label(hit.event_date)}" if hit.event_date else "", hit.validity()) if x
        )
        echo(f"     {text}" + (f" ({dates})" if dates else ""))


def _label(code: str) -> str:
    from ..dates import parse_period

    period = parse_period(code)
    return period.label() if period is not None else code
