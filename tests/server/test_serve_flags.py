"""Every flag of ``uac serve http`` and ``uac serve mcp`` is documented in docs/serving.md,
and every limit of "Limits an operator can rely on" is a flag or says it has none."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from .conftest import REPO, child_env

DOC = (REPO / "docs" / "serving.md").read_text("utf-8")


@pytest.mark.parametrize("kind", ["http", "mcp"])
def test_every_serve_flag_is_documented(kind):
    done = subprocess.run(
        [sys.executable, "-m", "uac", "serve", kind, "--help"],
        cwd=REPO,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    flags = set(re.findall(r"(--[a-z][a-z-]+)", done.stdout)) - {"--help", "--log-level"}
    assert len(flags) >= 15
    missing = sorted(flag for flag in flags if not re.search(re.escape(flag) + r"(?![a-z-])", DOC))
    assert not missing, f"undocumented in docs/serving.md: {missing}"


def test_the_limits_table_names_flags_the_servers_take():
    section = DOC.split("### Limits an operator can rely on", 1)[1].split("\n### ", 1)[0]
    named = set(re.findall(r"`(--[a-z-]+)", section))
    helps = "".join(
        subprocess.run(
            [sys.executable, "-m", "uac", "serve", kind, "--help"],
            cwd=REPO,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        for kind in ("http", "mcp")
    )
    assert named and not [flag for flag in named if flag not in helps], named


def test_serve_http_and_mcp_take_the_same_server_limits():
    import typer.main

    from uac.cli import app
    from uac.cli.serve_cmd import SERVER_LIMIT_OPTIONS

    serve = typer.main.get_command(app).commands["serve"]
    options = {
        kind: {
            p.name: (tuple(p.opts), p.default) for p in serve.commands[kind].params if p.name in SERVER_LIMIT_OPTIONS
        }
        for kind in ("http", "mcp")
    }
    assert set(options["http"]) == set(SERVER_LIMIT_OPTIONS) and options["http"] == options["mcp"]


def test_server_limit_flags_reach_the_limits():
    import typer
    from typer.testing import CliRunner

    from uac.cli.serve_cmd import _limits, takes_server_limits
    from uac.server.admission import ServerLimits

    seen = {}
    command = typer.Typer()

    @command.command()
    @takes_server_limits
    def run(name: str = typer.Option("x", "--name"), limit_values: dict | None = None) -> None:
        seen["name"], seen["limits"] = name, _limits(limit_values or {})

    done = CliRunner().invoke(
        command, ["--name", "y", "--warm-projects", "7", "--idle-seconds", "0", "--reads-per-project", "3"]
    )
    assert done.exit_code == 0, done.output
    limits, default = seen["limits"], ServerLimits()
    assert seen["name"] == "y" and (limits.warm_projects, limits.idle_seconds, limits.reads_per_project) == (7, 0.0, 3)
    # 0 sandbox workers (the flags' default) leaves the machine-sized defaults
    assert (limits.sandbox_workers, limits.sandbox_workers_per_project) == (
        default.sandbox_workers,
        default.sandbox_workers_per_project,
    )


def test_serve_mcp_takes_its_session_flags_from_the_session_limits():
    import dataclasses

    import typer.main

    from uac.cli import app
    from uac.cli.serve_cmd import _session_limits, options_of
    from uac.server.mcp_sessions import SessionLimits

    flagged = {f.metadata["flag"]: f for f in dataclasses.fields(SessionLimits) if "flag" in f.metadata}
    assert set(flagged) == {"--sessions", "--sessions-per-token", "--sessions-per-project", "--session-idle"}
    params = typer.main.get_command(app).commands["serve"].commands["mcp"].params
    shown = {p.opts[0]: (p.default, p.help) for p in params if p.opts[0] in flagged}
    assert shown == {flag: (f.default, f.metadata["help"]) for flag, f in flagged.items()}
    # the flags' values set the fields; one out of range is a ConfigError naming it
    options = options_of(SessionLimits)
    limits = _session_limits(
        {"sessions": 5, "sessions_per_token": 2, "sessions_per_project": 3, "session_idle": 9.5}, options
    )
    assert (limits.total, limits.per_token, limits.per_project, limits.idle_seconds) == (5, 2, 3, 9.5)
    from uac.errors import ConfigError

    with pytest.raises(ConfigError, match="per_token must be at least 1"):
        _session_limits({"sessions_per_token": 0}, options)
