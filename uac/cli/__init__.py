"""The ``uac`` command line: a thin typer layer over the library.

Every command lives in its own module under ``uac.cli`` and registers itself
on :data:`app`.  :func:`main` is the error boundary: a :class:`~uac.errors.UacError`
becomes one line on stderr and a non-zero exit (``UAC_DEBUG=1`` re-raises).
"""

from __future__ import annotations

import importlib
import os
import sys

import typer

from .._version import __version__
from ..errors import UacError

app = typer.Typer(
    name="uac",
    help="User as Code: compile a user's conversations into typed, queryable memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help and one-line usage errors, no rich panels
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: command modules, each with a ``register(app)`` function
COMMAND_MODULES = [
    "uac.cli.init_cmd",
    "uac.cli.doctor_cmd",
    "uac.cli.serve_cmd",
    "uac.cli.token_cmd",
    "uac.cli.ingest_cmd",
    "uac.cli.search_cmd",
    "uac.cli.forget_cmd",
    "uac.cli.correct_cmd",
    "uac.cli.ask_cmd",
    "uac.cli.repl_cmd",
    "uac.cli.export_cmd",
    "uac.cli.import_records_cmd",
    "uac.cli.compile_cmd",
    "uac.cli.show_cmd",
    "uac.cli.history_cmd",
]


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"uac {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """User as Code: compile a user's conversations into typed, queryable memory."""


for _module in COMMAND_MODULES:
    importlib.import_module(_module).register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (used by the ``uac`` script)."""
    try:
        app(args=argv, prog_name="uac", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except UacError as exc:
        if os.environ.get("UAC_DEBUG"):
            raise
        from .common import visible
        from .vocabulary import describe

        print(f"uac: error: {visible(describe(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("uac: interrupted", file=sys.stderr)
        return 130
    return 0


def run() -> None:  # console-script entry point
    sys.exit(main())
