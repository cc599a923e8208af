"""``uac import-records``: compile structured records into a typed domain package."""

from __future__ import annotations

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json, progress_bar


def register(app: typer.Typer) -> None:
    @app.command("import-records")
    def import_records(
        project: ProjectArgument,
        file: str = typer.Argument(..., help="Records: a JSON list of objects, JSONL or CSV (with a header row)."),
        domain: str = typer.Option(..., "--domain", help="Domain package to write, e.g. travel."),
        collection: str = typer.Option(..., "--collection", help="Collection name in state.py, e.g. trips."),
        record_type: str = typer.Option(
            None, "--record-type", help="Record class name (default: from the collection, trips -> Trip)."
        ),
        replace: bool = typer.Option(False, "--replace", help="Replace the collection's records with the file's."),
        as_json: JsonOption = False,
    ) -> None:
        """Import records deterministically as `<collection>: list[<RecordType>]` in domains/<domain>/.

        Records already imported from a file of the same name are skipped (the same file
        twice changes nothing); undo an import with 'uac forget --domain D --collection C'.
        Appending evolves the collection's type where no value changes meaning (int to
        float, date to Period, new columns as optional fields) and says so; anything
        else is refused.
        """
        with progress_bar("import", as_json=as_json):
            report = open_memory(project).import_records(
                file, domain=domain, collection=collection, record_type=record_type, replace=replace
            )
        if as_json:
            print_json(report.to_json())
            return
        if not report.records_added and not report.replaced:
            echo(
                f"Nothing to add: the {report.records_skipped} record(s) of {file} are already in "
                f"{report.domain}.{report.collection} ({report.records_total} in total)."
            )
            return
        if report.replaced:
            echo(
                f"Replaced {report.domain}.{report.collection}: {report.records_removed} record(s) out, "
                f"{report.records_added} in, in {report.seconds:.2f}s."
            )
        else:
            verb = "Appended" if report.appended else "Imported"
            echo(
                f"{verb} {report.records_added} record(s) into {report.domain}.{report.collection} "
                f"({report.records_total} {report.record_type} records in total) in {report.seconds:.2f}s."
            )
            if report.records_skipped:
                echo(f"Skipped {report.records_skipped} record(s) of {file} that were imported before.")
        echo("Fields: " + ", ".join(f"{f['name']}: {f['type']}" for f in report.fields))
        for change in report.schema_changes:
            before = change["from"] or "(new)"
            echo(
                f"Type changed: {change['field']}: {before} -> {change['to']} ({change['change']}: {change['reason']})"
            )
        if report.renamed:
            echo("Renamed: " + ", ".join(f"{k!r} -> {v}" for k, v in report.renamed.items()))
