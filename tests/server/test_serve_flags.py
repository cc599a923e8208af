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
    done = subprocess.run([sys.executable, "-m", "uac", "serve", kind, "--help"], cwd=REPO, env=child_env(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    flags = set(re.findall(r"(--[a-z][a-z-]+)", done.stdout)) - {"--help", "--log-level"}
    assert len(flags) >= 15
    missing = sorted(flag for flag in flags if not re.search(re.escape(flag) + r"(?![a-z-])", DOC))
    assert not missing, f"undocumented in docs/serving.md: {missing}"


def test_the_limits_table_names_flags_the_servers_take():
    section = DOC.split("### Limits an operator can rely on", 1)[1].split("\n### ", 1)[0]
    named = set(re.findall(r"`(--[a-z-]+)", section))
    helps = "".join(
        subprocess.run([sys.executable, "-m", "uac", "serve", kind, "--help"], cwd=REPO, env=child_env(),
                       capture_output=True, text=True, timeout=60).stdout for kind in ("http", "mcp"))
    assert named and not [flag for flag in named if flag not in helps], named
