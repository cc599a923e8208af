"""``uac doctor``: project health, configured model (probed with ``--model``) and sandbox level."""

from __future__ import annotations

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json, progress_bar

_MARK = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor(
        project: ProjectArgument,
        repair: bool = typer.Option(False, "--repair", help="Rebuild derived data (indexes, layout) from the log."),
        model: bool = typer.Option(
            False, "--model", help="Also probe the model endpoint with a few tiny real calls: what it supports."
        ),
        deep: bool = typer.Option(
            False,
            "--deep",
            help="Compare every log line and index entry (slow on a large memory; implied by --repair).",
        ),
        as_json: JsonOption = False,
    ) -> None:
        """Check a project's health; --deep checks exhaustively; --repair rebuilds what can be derived; --model probes the endpoint."""
        with progress_bar("repair", as_json=as_json or not repair):
            report = open_memory(project).doctor(repair=repair, model=model, deep=deep)
        if as_json:
            print_json(report.to_json())
        else:
            echo(f"uac {report.uac_version} -- project {report.project} (format v{report.format_version})")
            for check in report.checks:
                echo(f"  [{_MARK.get(check.status, check.status)}] {check.name}: {check.detail}")
                if check.repaired:
                    echo(f"         repaired: {check.repaired}")
            echo("healthy" if report.ok else "problems found")
        if not report.ok:
            raise typer.Exit(1)
