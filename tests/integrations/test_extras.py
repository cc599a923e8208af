"""Each adapter without its framework: one error naming the extra that installs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("uac.integrations.openai_agents", "agents", "openai-agents"),
        ("uac.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("uac.integrations.langgraph", "langgraph", "langgraph"),
    ],
)
def test_a_missing_framework_names_its_extra(tmp_path, module, blocked, extra):
    shadow = tmp_path / "shadow" / blocked
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text(f"raise ImportError({'No module named ' + blocked!r})\n")
    code = (
        "import uac, sys\n"
        "from uac.errors import ConfigError\n"
        "assert 'uac.integrations' not in sys.modules\n"
        f"try:\n    import {module}\nexcept ConfigError as exc:\n    print(exc)\nelse:\n    print('imported')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "shadow"), str(REPO)]))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"pip install 'user-as-code[{extra}]'" in done.stdout, done.stdout


def test_the_integrations_package_loads_no_framework():
    code = "import sys, uac.integrations\nprint(sorted(m for m in ('agents', 'pydantic_ai', 'langgraph', 'langchain_core') if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "[]", done.stderr
