"""Helpers shared by CLI commands: opening projects and printing results.

Text printed for people goes through :func:`echo`, which shows control
characters as visible escapes (:func:`visible`): conversation text, facts and
records reach a terminal as text, never as commands to it (an escape sequence
that clears the screen, moves the cursor or sets the window title, a carriage
return that overwrites a line, a bidirectional override that reorders it).
``--json`` output is printed exactly (:func:`print_json`).
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import typing
from contextlib import contextmanager
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Annotated, Any, Callable, ContextManager, Iterator, TypeVar

import typer

from ..memory import UserMemory

#: the project a command works on (``project: ProjectArgument``)
ProjectArgument = Annotated[str, typer.Argument(help="Project path or name.")]
#: ``--json`` on every command that can print its result as data (``as_json: JsonOption = False``)
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object on stdout.")]


def open_memory(spec: str) -> UserMemory:
    return UserMemory.open(spec)


R = TypeVar("R")


@dataclass(frozen=True)
class CommandRun:
    """What a project command's body works with: the project it opened, and whether the
    result is printed as JSON (then no progress bar is shown)."""

    memory: UserMemory
    as_json: bool

    def progress(self, label: str, *, shown: bool = True) -> ContextManager[Any]:
        """:func:`progress_bar` for this run (never with ``--json``, nor unless ``shown``)."""
        return progress_bar(label, as_json=self.as_json or not shown)


def _to_json(result: Any) -> Any:
    return result.to_json()


def project_command(
    app: typer.Typer,
    name: str,
    *,
    text: Callable[[R], None],
    to_json: Callable[[R], Any] = _to_json,
    ok: Callable[[R], bool] = lambda result: True,
) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Register ``body(run, **options)`` as the command ``name`` over one project.

    The command takes the project (:data:`ProjectArgument`) first, then the body's own
    options as it declares them, then ``--json`` (:data:`JsonOption`); its help is the
    body's docstring.  It opens the project, runs the body with a :class:`CommandRun`,
    prints the result (``to_json(result)`` with ``--json``, else ``text(result)``) and
    exits with 1 when ``ok(result)`` is false.
    """

    def register(body: Callable[..., R]) -> Callable[..., R]:
        def command(project: str, as_json: bool, **options: Any) -> None:
            result = body(CommandRun(open_memory(project), as_json), **options)
            if as_json:
                print_json(to_json(result))
            else:
                text(result)
            if not ok(result):
                raise typer.Exit(1)

        parameter = inspect.Parameter
        command.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # inspect (typer) reads it
            [
                parameter("project", parameter.POSITIONAL_OR_KEYWORD, annotation=ProjectArgument),
                *_own_parameters(body),
                parameter("as_json", parameter.KEYWORD_ONLY, default=False, annotation=JsonOption),
            ]
        )
        command.__doc__ = body.__doc__
        app.command(name)(command)
        return body

    return register


def _own_parameters(body: Callable[..., Any]) -> list[inspect.Parameter]:
    """The parameters of ``body`` after its :class:`CommandRun`, their annotations
    resolved (the body's module may name its result's type only for type checkers)."""
    own = list(inspect.signature(body).parameters.values())[1:]
    annotations = SimpleNamespace(__annotations__={p.name: p.annotation for p in own})
    hints = typing.get_type_hints(annotations, body.__globals__, include_extras=True)
    return [p.replace(annotation=hints[p.name]) for p in own]


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")


#: what a terminal would obey rather than show: the C0 controls but newline and tab,
#: DEL, the C1 controls, the bidirectional formatting controls (marks, embeddings,
#: overrides, isolates) and the line and paragraph separators
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\r": "\\r"}


def _escape(match: "re.Match[str]") -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def visible(text: str) -> str:
    """``text`` with every character a terminal would act on shown as an escape
    (``\\x1b`` for ESC, ``\\r``, ``\\x9b``, ``\\u202e``); newlines and tabs stay."""
    return _CONTROLS.sub(_escape, text)


def echo(text: str = "", *, err: bool = False) -> None:
    """Print a line for people (stdout, or stderr with ``err``), controls made visible."""
    typer.echo(visible(text), err=err)


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
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None, unit="")

        def listen(done: int, total: int, unit: str) -> None:
            bar.update(task, completed=done, total=max(total, 1), unit=unit)

        def model_work(progress: Any) -> None:
            unit = f"{progress.unit}, {progress.in_flight} call(s) in flight, {progress.tokens:,} tokens"
            bar.update(task, completed=progress.done, total=max(progress.total, 1), unit=unit)

        with reporting(listen):
            yield model_work
