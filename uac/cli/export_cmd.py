"""``uac export``: copy a project without its derived data."""

from __future__ import annotations

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        project: ProjectArgument,
        out: str = typer.Argument(..., help="Target: a new directory, or a file ending in .tar.gz / .tgz."),
        as_json: JsonOption = False,
    ) -> None:
        """Export the project (log, archive, view, settings) without .uac/."""
        result = open_memory(project).export(out)
        if as_json:
            print_json(result.to_json())
        else:
            echo(f"Exported {result.files} files of {result.project} to {result.out} ({result.kind}).")
            if result.skipped:
                echo("Left out (links and special files are never followed): " + ", ".join(result.skipped))
