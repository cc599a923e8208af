"""Helpers shared by CLI commands: opening projects and printing results."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator

import typer

from ..memory import UserMemory

JSON_OPTION = typer.Option(False, "--json", help="Print one JSON object on stdout.")


def open_memory(spec: str) -> UserMemory:
    return UserMemory.open(spec)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


def echo(text: str = "") -> None:
    typer.echo(text)


def progress_enabled(as_json: bool, stream: Any = None) -> bool:
    """A progress bar only for people: never with ``--json``, never when stderr is not a terminal."""
    stream = sys.stderr if stream is None else stream
    return not as_json and bool(getattr(stream, "isatty", lambda: False)())


@contextmanager
def progress_bar(label: str, *, as_json: bool) -> Iterator[Any]:
    """Show a bar with counts and the time left on stderr while the block runs (see
    :mod:`uac.progress`).  Yields a callback for the model work's progress
    (:class:`uac.llm.progress.Progress`: calls in flight, tokens), or ``None``."""
    from ..progress import reporting

    if not progress_enabled(as_json):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[unit]}"),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None, unit="")

        def listen(done: int, total: int, unit: str) -> None:
            bar.update(task, completed=done, total=max(total, 1), unit=unit)

        def model_work(progress: Any) -> None:
            unit = f"{progress.unit}, {progress.in_flight} call(s) in flight, {progress.tokens:,} tokens"
            bar.update(task, completed=progress.done, total=max(progress.total, 1), unit=unit)

        with reporting(listen):
            yield model_work
