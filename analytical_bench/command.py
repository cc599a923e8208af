"""What the benchmark command lines share: the typer app, list-valued options,
the model from the environment, and the error boundary.

``python -m analytical_bench`` and ``python -m analytical_bench.locomo`` are
typer apps like ``uac`` itself.  :func:`run_app` is their ``main``: a
:class:`~uac.UacError` becomes ``error: <message> <hint>`` on stderr and its
exit code (2 for the caller's mistakes, 1 for failures; ``UAC_DEBUG=1``
re-raises it); a usage error exits 2 with the usage line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import typer

from uac import LLMClient, LLMSettings, UacError, build_client, resolve_settings


def new_app(help: str) -> typer.Typer:
    """A typer app with the settings of the ``uac`` command line."""
    return typer.Typer(
        help=help,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain help and one-line usage errors, as ``uac`` prints them
        context_settings={"help_option_names": ["-h", "--help"]},
    )


def split_names(text: str) -> list[str]:
    """``"a,b c"`` -> ``["a", "b", "c"]``."""
    return [part for part in text.replace(",", " ").split() if part]


def parse_names(text: str | list[str]) -> list[str]:
    """A comma- (or space-) separated list of names, e.g. ``fc_repl,uac_repl``."""
    return list(text) if isinstance(text, list) else split_names(text)


def parse_ints(text: str | list[int]) -> list[int]:
    """A comma- (or space-) separated list of whole numbers, e.g. ``20,50``."""
    if isinstance(text, list):
        return list(text)
    try:
        return [int(part) for part in split_names(text)]
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a list of whole numbers (e.g. 20,50)") from None


def names_option(default: list[str] | None, *flags: str, help: str) -> Any:
    """An option holding a list of names (``--systems a,b``)."""
    return typer.Option(default, *flags, parser=parse_names, metavar="A,B,...", show_default=False, help=help)


def ints_option(default: list[int] | None, *flags: str, help: str) -> Any:
    """An option holding a list of whole numbers (``--tiers 20,50``)."""
    return typer.Option(default, *flags, parser=parse_ints, metavar="N,N,...", show_default=False, help=help)


def model_settings(env: Mapping[str, str] | None = None, **defaults: str) -> LLMSettings:
    """The model settings of the environment (``UAC_LLM_PROVIDER``, ``UAC_LLM_MODEL``,
    ``UAC_LLM_BASE_URL``, ``OPENAI_API_KEY`` ...); ``defaults`` fill variables left unset."""
    environment = dict(os.environ if env is None else env)
    for key, value in defaults.items():
        environment.setdefault(key, value)
    return resolve_settings(None, env=environment)


def model_client(settings: LLMSettings, *, offline: bool = False) -> LLMClient | None:
    """The client for ``settings``; ``None`` with ``offline`` or when no model is configured."""
    return None if offline else build_client(settings)


def run_app(app: typer.Typer, argv: Sequence[str] | None, prog_name: str) -> int:
    """Run ``app`` on ``argv`` and return the exit code; usage errors raise ``SystemExit(2)``."""
    try:
        app(args=None if argv is None else list(argv), prog_name=prog_name, standalone_mode=True)
    except SystemExit as exc:
        if exc.code in (0, None):
            return 0
        raise
    except UacError as exc:
        if os.environ.get("UAC_DEBUG"):
            raise
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0
