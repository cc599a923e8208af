"""``uac correct``: add a fact the user writes themselves, superseding wrong ones."""

from __future__ import annotations

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("correct")
    def correct(
        project: ProjectArgument,
        text: str = typer.Argument(..., help="The corrected statement, as the user would say it."),
        supersedes: list[str] = typer.Option(
            None, "--supersedes", help="Id of a fact this correction replaces (repeat for several)."
        ),
        as_json: JsonOption = False,
    ) -> None:
        """Add a user-authored fact (its evidence says it is a correction and when it was made)
        that supersedes the named facts; the next compile revisits the records citing them."""
        report = open_memory(project).correct(text, supersedes=supersedes or [])
        if as_json:
            print_json(report.to_json())
            return
        replaced = f", superseding {', '.join(report.superseded)}" if report.superseded else ""
        echo(f"Added correction {report.fact.id}{replaced}.")
