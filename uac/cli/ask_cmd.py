"""``uac ask``: answer a question from the STATE, FACTS and ARCHIVE channels."""

from __future__ import annotations

import json

import typer

from .common import JSON_OPTION, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("ask")
    def ask(
        project: str = typer.Argument(..., help="Project path or name."),
        question: str = typer.Argument(..., help="The question, e.g. 'How many trips did I take in 2024?'."),
        as_of: str = typer.Option(None, "--as-of", help="Answer as of this date (YYYY-MM-DD)."),
        loading: str = typer.Option(None, "--loading", help="monolithic | modular | manifest (default from uac.toml)."),
        no_state: bool = typer.Option(False, "--no-state", help="Leave the STATE channel out (ablation)."),
        no_facts: bool = typer.Option(False, "--no-facts", help="Leave the FACTS channel out (ablation)."),
        no_archive: bool = typer.Option(False, "--no-archive", help="Leave the ARCHIVE channel out (ablation)."),
        iterative: bool = typer.Option(False, "--iterative", help="Iterative evidence selection with follow-up queries."),
        tool_mode: str = typer.Option(None, "--tool-mode", help="native | codeblock | off: how the reader runs code."),
        show_context: bool = typer.Option(False, "--show-context", help="Include the packed prompt context."),
        instructions: str = typer.Option(None, "--instructions", help="Extra instructions for the reader, e.g. an answer style."),
        as_json: bool = JSON_OPTION,
    ) -> None:
        """Answer a question about the user, with its evidence."""
        memory = open_memory(project)
        answer = memory.ask(
            question,
            as_of=as_of,
            loading=loading,
            use_state=not no_state,
            use_facts=not no_facts,
            use_archive=not no_archive,
            iterative=iterative,
            tool_mode=tool_mode,
            instructions=instructions,
        )
        if as_json:
            print_json(answer.to_json(include_context=show_context))
            return
        if answer.mode == "evidence":
            echo(answer.message or "")
        else:
            echo(answer.answer or "")
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
        if show_context and answer.context:
            echo("\n--- context ---\n" + answer.context)
        if answer.mode == "llm":
            echo(
                f"\n(tokens: {answer.prompt_tokens} prompt, {answer.completion_tokens} completion; "
                f"{answer.latency_seconds:.2f}s; {answer.steps} step(s))"
            )
