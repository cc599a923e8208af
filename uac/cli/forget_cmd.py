"""``uac forget``: remove a fact or a whole session from a user project."""

from __future__ import annotations

import typer

from .common import JSON_OPTION, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("forget")
    def forget(
        project: str = typer.Argument(..., help="Project path or name."),
        fact: str = typer.Option(None, "--fact", help="Id of the fact to remove."),
        session: str = typer.Option(None, "--session", help="Id of the session to remove (facts, archive, index)."),
        as_json: bool = JSON_OPTION,
    ) -> None:
        """Delete a fact or a session for real (log rewritten, archive file deleted, indexes updated)."""
        report = open_memory(project).forget(fact=fact, session=session)
        if as_json:
            print_json(report.to_json())
            return
        if session:
            echo(f"Forgot session {session}: {len(report.facts_removed)} fact(s) removed"
                 + (", archive file deleted." if report.archive_deleted else "."))
        else:
            echo(f"Forgot fact {fact}.")
