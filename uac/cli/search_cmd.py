"""``uac search``: hybrid search over facts and the archive."""

from __future__ import annotations

import typer

from .common import JSON_OPTION, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("search")
    def search(
        project: str = typer.Argument(..., help="Project path or name."),
        query: str = typer.Argument(..., help="What to look for."),
        k: int = typer.Option(20, "--k", help="Number of results."),
        channel: str = typer.Option("all", "--channel", help="facts | archive | all."),
        as_of: str = typer.Option(None, "--as-of", help="Only facts valid on this date (YYYY-MM-DD)."),
        as_json: bool = JSON_OPTION,
    ) -> None:
        """Search facts and archive excerpts (dense + BM25, reciprocal rank fusion)."""
        hits = open_memory(project).search(query, k=k, channel=channel, as_of=as_of)
        if as_json:
            print_json({"results": [h.to_json() for h in hits]})
            return
        if not hits:
            echo("No results.")
        for rank, hit in enumerate(hits, 1):
            evidence = ", ".join(hit.evidence)
            text = hit.text.replace("\n", " | ")
            echo(f"{rank:>3}. [{hit.channel} {hit.id}] {hit.session_date or '?'} ({evidence}) {hit.score:.4f}")
            echo(f"     {text}")
