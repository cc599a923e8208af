"""``uac ask``: answer a question from the STATE, FACTS and ARCHIVE channels.

The answering flags are generated from :class:`uac.answer.options.AskOptions`
(one declaration for the Python API, the CLI, HTTP and MCP).
"""

from __future__ import annotations

import datetime as _dt
import inspect
import json
from typing import Any, Optional

import typer

from ..answer.model import Answer
from ..answer.options import OptionSpec, ask_option_specs
from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def _help(spec: OptionSpec) -> str:
    text = spec.help
    if spec.choices:
        text += f" One of: {' | '.join(spec.choices)}."
    if spec.from_config:
        text += " Default from uac.toml [answer]."
    return text


def option_parameters() -> list[inspect.Parameter]:
    """One typer option per :class:`AskOptions` field (dates are given as text)."""
    params = []
    for spec in ask_option_specs():
        kind: Any = str if spec.kind is _dt.date else spec.kind
        default = spec.default if spec.kind is bool else None
        option = typer.Option(
            default,
            *spec.flag.split(" "),
            help=_help(spec),
            min=spec.minimum,
            max=spec.maximum,
            show_default=spec.kind is bool and "/" in spec.flag,
        )
        annotation = kind if spec.kind is bool else Optional[kind]
        params.append(
            inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)
        )
    return params


def show_answer(answer: Answer) -> None:
    if answer.mode == "evidence":
        echo(answer.message or "")
    else:
        echo(answer.answer or "")
        if answer.message:
            echo(f"({answer.message})")
    for run in answer.tool_runs:
        echo("\n[python]")
        echo("  " + run.code.strip().replace("\n", "\n  "))
        echo("  => " + json.dumps(run.result.get("result") if run.result.get("ok") else run.result.get("error")))
    if answer.state is not None:
        domains = ", ".join(answer.state.domains) or "none"
        echo(f"\n[STATE] {answer.state.loading}: domains {domains}, {answer.state.chars} chars")
    for title, items in (("FACTS", answer.facts), ("ARCHIVE", answer.archive)):
        if items:
            echo(f"[{title}]")
            for item in items[: 10 if answer.mode == "evidence" else 5]:
                echo("  " + item.line())
    lag = answer.view_lag.line() if answer.view_lag is not None else None
    if lag:
        echo(f"\n[VIEW] {lag}")
    if answer.include_context and answer.context:
        echo("\n--- context ---\n" + answer.context)
    if answer.mode == "llm":
        cached = answer.usage.cached_calls if answer.usage is not None else 0
        echo(
            f"\n(tokens: {answer.prompt_tokens} prompt, {answer.completion_tokens} completion"
            + (f"; {cached} cached call(s)" if cached else "")
            + f"; {answer.latency_seconds:.2f}s; {answer.steps} step(s))"
        )


def register(app: typer.Typer) -> None:
    def ask(project: str, question: str, as_json: bool, **options: Any) -> None:
        """Answer a question about the user, with its evidence."""
        answer = open_memory(project).ask(question, **options)
        if as_json:
            print_json(answer.to_json())
        else:
            show_answer(answer)

    fixed = [
        inspect.Parameter("project", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ProjectArgument),
        inspect.Parameter(
            "question",
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=typer.Argument(..., help="The question, e.g. 'How many trips did I take in 2024?'."),
            annotation=str,
        ),
        inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=JsonOption),
    ]
    ask.__signature__ = inspect.Signature(fixed + option_parameters())  # type: ignore[attr-defined]  # inspect (typer) reads it
    app.command("ask")(ask)
