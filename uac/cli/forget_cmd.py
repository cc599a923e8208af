"""``uac forget``: remove a fact, a whole session, or a domain (collection) of the view."""

from __future__ import annotations

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("forget")
    def forget(
        project: ProjectArgument,
        fact: str = typer.Option(None, "--fact", help="Id of the fact to remove."),
        session: str = typer.Option(None, "--session", help="Id of the session to remove (facts, archive, index)."),
        domain: str = typer.Option(
            None, "--domain", help="Domain of the typed view to remove (e.g. imported records)."
        ),
        collection: str = typer.Option(None, "--collection", help="With --domain: remove only this collection."),
        as_json: JsonOption = False,
    ) -> None:
        """Delete a fact, a session, or a domain/collection for real (log rewritten, archive file
        deleted, indexes updated; or domains/<d>/ rewritten without the collection)."""
        report = open_memory(project).forget(fact=fact, session=session, domain=domain, collection=collection)
        if as_json:
            print_json(report.to_json())
            return
        if domain:
            what = f"{domain}.{collection}" if collection else f"domain {domain}"
            echo(
                f"Forgot {what}: {report.records_removed} record(s) removed"
                + (", domain removed." if report.domain_removed else ".")
            )
        elif session:
            echo(
                f"Forgot session {session}: {len(report.facts_removed)} fact(s) removed"
                + (", archive file deleted." if report.archive_deleted else ".")
            )
        else:
            echo(f"Forgot fact {fact}.")
