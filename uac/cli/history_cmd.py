"""``uac history`` and ``uac diff``: what changed in the typed view, and the facts behind it."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json

#: the longest value shown in a line (the JSON output has all of it)
VALUE_CHARS = 120


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"


def change_line(change: dict[str, Any], *, where: bool = True) -> str:
    """One change in a line: compile, time, record, kind and what it changed."""
    head = f"{change['compile']} {change['at']}"
    if where:
        head += f" {change['domain']}/{change['record']}"
    kind = change["kind"]
    if kind == "added":
        return f"{head} added {_value(change['new'])}"
    if kind == "retired":
        return f"{head} retired (was {_value(change['old'])})"
    return f"{head} {kind} {change['field']}: {_value(change['old'])} -> {_value(change['new'])}"


def because_lines(change: dict[str, Any], indent: str) -> list[str]:
    lines = [f'{indent}because: "{s["text"]}" [{s["fact"]}]' for s in change["sentences"]]
    known = {s["fact"] for s in change["sentences"]}
    missing = [f for f in change["facts"] if f not in known]
    if missing:
        lines.append(f"{indent}from: {', '.join(missing)}")
    return lines


#: the changes ``uac history`` lists as text unless ``--limit`` says otherwise (the newest)
TEXT_LIMIT = 100

SINCE_HELP = "A compile id (c3: the changes after it) or a date (2026-05-01: from that day, UTC)."


def _print_history(report: Any) -> None:
    if report.truncated:
        more = report.total - len(report.changes)
        echo(
            f"({more:,} older changes in this range not shown; use --limit {report.total} to list them, or --json for all)"
        )
    for entry in report.changes:
        change = entry.to_json()
        echo(change_line(change))
        for line in because_lines(change, "    "):
            echo(line)
    if not report.changes:
        echo("No changes in that range.")
    _warn_damaged(report.damaged_lines)


def _warn_damaged(damaged_lines: int) -> None:
    if damaged_lines:
        echo(
            f"warning: {damaged_lines} damaged lines of the change log were skipped (run uac doctor --repair).",
            err=True,
        )


def register(app: typer.Typer) -> None:
    @app.command("history")
    def history(
        project: ProjectArgument,
        domain: str = typer.Option(None, "--domain", help="Only this domain's changes."),
        record: str = typer.Option(
            None,
            "--record",
            help="Only this record's changes: DOMAIN/ID as `uac history` prints it, or its id with --domain.",
        ),
        since: str = typer.Option(None, "--since", help=SINCE_HELP),
        until: str = typer.Option(None, "--until", help="A compile id or a date (inclusive)."),
        limit: int = typer.Option(
            None,
            "--limit",
            min=1,
            help=f"At most this many changes, the newest (default: {TEXT_LIMIT} as text, all with --json).",
        ),
        as_json: JsonOption = False,
    ) -> None:
        """The changes of the typed view, oldest first: added, updated, corrected and retired
        records, with the compile, the time and the sentences of the facts that caused them."""
        memory = open_memory(project)
        if as_json and limit is None:
            from ..changelog import stream_history

            out = sys.stdout
            stream_history(memory.context, out.write, domain=domain, record=record, since=since, until=until)
            out.flush()
            return
        report = memory.history(
            domain=domain, record=record, since=since, until=until, limit=limit or (None if as_json else TEXT_LIMIT)
        )
        if as_json:
            print_json(report.to_json())
            return
        _print_history(report)

    @app.command("diff")
    def diff(
        project: ProjectArgument,
        since: str = typer.Option(..., "--since", help=SINCE_HELP),
        until: str = typer.Option(None, "--until", help="A compile id or a date (inclusive); default: now."),
        domain: str = typer.Option(None, "--domain", help="Only this domain."),
        as_json: JsonOption = False,
    ) -> None:
        """What changed in a range, grouped by domain and record, each change with the
        sentence of the fact that caused it."""
        report = open_memory(project).diff(since, until, domain=domain)
        if as_json:
            print_json(report.to_json())
            return
        if not report.domains:
            echo("No changes in that range.")
        for name, records in report.domains.items():
            echo(name)
            for record in records:
                echo(f"  {record.record} ({record.collection})")
                for entry in record.changes:
                    change = entry.to_json()
                    echo("    " + change_line(change, where=False))
                    for line in because_lines(change, "      "):
                        echo(line)
        _warn_damaged(report.damaged_lines)
