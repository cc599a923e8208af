"""Helpers shared by CLI commands: opening projects and printing results."""

from __future__ import annotations

import json
import sys
from typing import Any

import typer

from ..memory import UserMemory

JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object on stdout.")


def open_memory(spec: str) -> UserMemory:
    return UserMemory.open(spec)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def echo(text: str = "") -> None:
    typer.echo(text)


def progress_printer() -> Any:
    """A progress callback that keeps one line on stderr up to date (``None`` when stderr
    is not a terminal: logs and pipes get the final report only)."""
    if not sys.stderr.isatty():
        return None

    def show(progress: Any) -> None:
        sys.stderr.write("\r\033[K" + progress.line())
        if progress.done == progress.total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
