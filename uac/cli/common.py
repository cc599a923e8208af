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
