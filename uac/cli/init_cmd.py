"""``uac init``: create a user project."""

from __future__ import annotations

import typer

from ..memory import UserMemory
from .common import JsonOption, echo, print_json


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(
        project: str = typer.Argument(
            ..., help="Project path, or a bare name under $UAC_HOME (default ./user_projects)."
        ),
        user_name: str = typer.Option(None, "--user-name", help="The user's display name (default: the project name)."),
        timezone: str = typer.Option("UTC", "--timezone", help="IANA time zone of the user, e.g. Europe/Berlin."),
        as_json: JsonOption = False,
    ) -> None:
        """Create a new, empty user project."""
        memory = UserMemory.create(project, user_name=user_name, timezone=timezone)
        config = memory.project.config
        if as_json:
            print_json(
                {
                    "project": str(memory.root),
                    "user_name": config.user.name,
                    "timezone": config.user.timezone,
                    "format_version": config.format_version,
                }
            )
        else:
            echo(f"Created user project {memory.root} for {config.user.name} (format v{config.format_version}).")
