"""``uac repl``: run Python over the typed state in the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..errors import InputError, UserError
from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def _print_result(data: dict) -> None:
    if data.get("stdout"):
        echo(data["stdout"].removesuffix("\n"))
    if data.get("ok"):
        if data.get("result") is not None:
            echo(json.dumps(data["result"], ensure_ascii=False, indent=2))
    else:
        error = data.get("error") or {}
        echo(f"{error.get('type', 'Error')}: {error.get('message', '')}", err=True)


def _interactive(session, banner: str) -> None:
    echo(banner)
    buffer: list[str] = []
    while True:
        try:
            line = input("... " if buffer else ">>> ")
        except EOFError:
            echo("")
            return
        if buffer:
            if line.strip():
                buffer.append(line)
                continue
            code, buffer = "\n".join(buffer), []
        elif line.rstrip().endswith(":"):
            buffer = [line]
            continue
        else:
            code = line
        if not code.strip():
            continue
        if code.strip() in ("exit", "quit", "exit()", "quit()"):
            return
        _print_result(session.run(code).to_json())


def register(app: typer.Typer) -> None:
    @app.command("repl")
    def repl(
        project: ProjectArgument,
        file: Path = typer.Argument(None, help="A Python file to run (instead of -c or the interactive prompt)."),
        code: str = typer.Option(None, "-c", "--code", help="Code to run; set `result` to return a value."),
        as_of: str = typer.Option(None, "--as-of", help="Only records dated on or before this day (YYYY-MM-DD)."),
        facts: bool = typer.Option(False, "--facts", help="Also expose the fact list as the global `facts`."),
        as_json: JsonOption = False,
    ) -> None:
        """Run Python over the typed state in the sandbox (no code: interactive)."""
        if code is not None and file is not None:
            raise UserError("give either -c CODE or FILE, not both.")
        if file is not None:
            try:
                code = file.read_text("utf-8")
            except FileNotFoundError:
                raise InputError(f"{file} does not exist.") from None
            except UnicodeDecodeError as exc:
                raise InputError(f"{file} is not UTF-8 (byte {exc.start}).") from None
        memory = open_memory(project)
        if code is None:
            if as_json:
                raise UserError("--json needs code: pass -c CODE or a FILE.")
            from ..answer.state_view import iter_record_counts

            counts = ", ".join(f"{n} ({d}.{n}, {c})" for d, n, c in iter_record_counts(memory.sandbox_state()))
            banner = f"uac sandbox over {memory.root}\ncollections: {counts or 'none'}\nset `result` to see a value; Ctrl-D leaves."
            lag = memory.view_lag().line()
            if lag:
                banner += f"\n{lag}"
            with memory.sandbox_session(as_of=as_of, include_facts=facts) as session:
                _interactive(session, banner)
            return
        data = memory.run(code, as_of=as_of, include_facts=facts).to_json()
        # the sandbox reads the view: say when it lags the log
        lag = memory.view_lag()
        if as_json:
            print_json({**data, "view": lag.to_json()})
        else:
            _print_result(data)
            if lag.line():
                echo(f"[view] {lag.line()}", err=True)
        if not data.get("ok"):
            raise typer.Exit(1)
