"""One helper runs every project command: the project first, the command's own options,
``--json`` last; the result printed as JSON or as text; exit 1 when the result is not ok."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
import typer
from typer.testing import CliRunner

from uac.cli.common import CommandRun, project_command
from uac.memory import UserMemory


@dataclass
class Counted:
    facts: int
    ok: bool

    def to_json(self) -> dict:
        return {"facts": self.facts, "ok": self.ok}


def _app(seen: list[CommandRun]) -> typer.Typer:
    app = typer.Typer(add_completion=False, rich_markup_mode=None)

    @project_command(app, "count", text=lambda c: typer.echo(f"{c.facts} fact(s)"), ok=lambda c: c.ok)
    def count(
        run: CommandRun,
        fail: bool = typer.Option(False, "--fail", help="Report a failure."),
        at_least: int = typer.Option(0, "--at-least", help="The smallest count."),
    ) -> Counted:
        """Count the facts of a project."""
        seen.append(run)
        return Counted(max(len(run.memory.facts()), at_least), not fail)

    @app.command("other")
    def other() -> None:  # a second command, so that typer keeps command names
        pass

    return app


@pytest.fixture
def project(tmp_path):
    UserMemory.create(tmp_path / "p", user_name="Maya").close()
    return str(tmp_path / "p")


def test_the_command_opens_the_project_and_prints_text_or_json(project):
    seen: list[CommandRun] = []
    runner = CliRunner()
    text = runner.invoke(_app(seen), ["count", project, "--at-least", "2"])
    assert (text.exit_code, text.stdout) == (0, "2 fact(s)\n")
    data = runner.invoke(_app(seen), ["count", project, "--json"])
    assert (data.exit_code, json.loads(data.stdout)) == (0, {"facts": 0, "ok": True})
    assert [run.as_json for run in seen] == [False, True] and str(seen[0].memory.root) == project


def test_a_result_that_is_not_ok_exits_1_after_printing(project):
    result = CliRunner().invoke(_app([]), ["count", project, "--fail", "--json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["ok"] is False


def test_the_help_lists_the_project_the_own_options_and_json_last():
    result = CliRunner().invoke(_app([]), ["count", "--help"])
    assert result.exit_code == 0 and "Count the facts of a project." in result.stdout
    usage = result.stdout
    assert usage.index("{project}") < usage.index("--fail") < usage.index("--at-least") < usage.index("--json")
    assert "Project path or name." in usage and "Print one JSON object on stdout." in usage
