"""``uac import-records``: compile structured records into a typed domain package."""

from __future__ import annotations

import typer

from .common import JSON_OPTION, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("import-records")
    def import_records(
        project: str = typer.Argument(..., help="Project path or name."),
        file: str = typer.Argument(..., help="Records: a JSON list of objects, JSONL or CSV (with a header row)."),
        domain: str = typer.Option(..., "--domain", help="Domain package to write, e.g. travel."),
        collection: str = typer.Option(..., "--collection", help="Collection name in state.py, e.g. trips."),
        record_type: str = typer.Option(None, "--record-type", help="Record class name (default: from the collection, trips -> Trip)."),
        as_json: bool = JSON_OPTION,
    ) -> None:
        """Import records deterministically as `<collection>: list[<RecordType>]` in domains/<domain>/."""
        report = open_memory(project).import_records(file, domain=domain, collection=collection, record_type=record_type)
        if as_json:
            print_json(report.to_json())
            return
        verb = "Appended" if report.appended else "Imported"
        echo(
            f"{verb} {report.records_added} record(s) into {report.domain}.{report.collection} "
            f"({report.records_total} {report.record_type} records in total) in {report.seconds:.2f}s."
        )
        echo("Fields: " + ", ".join(f"{f['name']}: {f['type']}" for f in report.fields))
        if report.renamed:
            echo("Renamed: " + ", ".join(f"{k!r} -> {v}" for k, v in report.renamed.items()))
