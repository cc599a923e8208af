"""``uac doctor``: project health, configured model (probed with ``--model``) and sandbox level."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from .common import CommandRun, echo, project_command

if TYPE_CHECKING:
    from ..doctor import DoctorReport

_MARK = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


def register(app: typer.Typer) -> None:
    @project_command(app, "doctor", text=_print_report, ok=lambda report: report.ok)
    def doctor(
        run: CommandRun,
        repair: bool = typer.Option(False, "--repair", help="Rebuild derived data (indexes, layout) from the log."),
        model: bool = typer.Option(
            False, "--model", help="Also probe the model endpoint with a few tiny real calls: what it supports."
        ),
        deep: bool = typer.Option(
            False,
            "--deep",
            help="Compare every log line and index entry (slow on a large memory; implied by --repair).",
        ),
    ) -> DoctorReport:
        """Check a project's health; --deep checks exhaustively; --repair rebuilds what can be derived; --model probes the endpoint."""
        with run.progress("repair", shown=repair):
            return run.memory.doctor(repair=repair, model=model, deep=deep)


def _print_report(report: DoctorReport) -> None:
    echo(f"uac {report.uac_version} -- project {report.project} (format v{report.format_version})")
    for check in report.checks:
        echo(f"  [{_MARK.get(check.status, check.status)}] {check.name}: {check.detail}")
        if check.repaired:
            echo(f"         repaired: {check.repaired}")
    echo("healthy" if report.ok else "problems found")
