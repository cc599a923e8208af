"""The README's quick start works as written: its command-line walkthrough, then its
Python blocks, in a fresh directory holding the repository's examples/."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.embeddings]


def readme_blocks(language: str, *, after: str) -> list[str]:
    """The fenced ``language`` blocks of the README that come after the heading ``after``."""
    text = (REPO / "README.md").read_text("utf-8")
    section = text[text.index(after) :]
    section = section[: section.index("\n## ", len(after))]  # up to the next top-level section
    return re.findall(rf"^```{language}\n(.*?)^```", section, flags=re.S | re.M)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_")}
    env.update({"UAC_BLOCK_NETWORK": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)})
    return env


@pytest.fixture
def cwd(tmp_path) -> Path:
    (tmp_path / "examples").symlink_to(REPO / "examples")
    return tmp_path


def test_the_quick_start_runs_as_written(cwd):
    walkthrough, *others = readme_blocks("bash", after="## Quick start")
    # the other shell blocks start servers (they run until stopped): tests/server covers them
    assert all("uac serve" in block for block in others)
    commands = [shlex.split(line, comments=True) for line in walkthrough.splitlines()]
    commands = [argv for argv in commands if argv]
    assert [argv[0] for argv in commands] == ["uac"] * len(commands) and len(commands) >= 8
    outputs = {}
    for argv in commands:
        done = subprocess.run(
            [sys.executable, "-m", *argv], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{shlex.join(argv)} failed:\n{done.stderr}"
        outputs[" ".join(argv[:2])] = done.stdout
    assert "Kyoto" in outputs["uac search"]
    assert (cwd / "user_projects" / "maya" / "domains" / "travel" / "state.py").is_file()

    python_blocks = readme_blocks("python", after="## Quick start")
    assert len(python_blocks) >= 2
    for number, block in enumerate(python_blocks):
        code = block
        if "async def remember" in block:  # the block defines a coroutine: call it as a user would
            code += "\nimport asyncio\nasyncio.run(remember('I finally bought a kayak.'))\n"
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"README python block {number} failed:\n{block}\n{done.stderr}"
    from uac import UserMemory

    with UserMemory.open(cwd / "user_projects" / "maya") as memory:
        assert any("kayak" in fact.text for fact in memory.facts())
