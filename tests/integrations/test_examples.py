"""The three examples run offline as a user runs them, each in a fresh directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "integrations"

pytestmark = [pytest.mark.slow, pytest.mark.embeddings]


@pytest.mark.parametrize(
    ("example", "framework", "expected"),
    [
        (
            "openai_agents_example.py",
            "agents",
            [
                'run_python -> {"ok": true, "result": 15',
                "You booked 15 trips in 2023.",
                "'session_ids': ['conv-maya-chat']",
            ],
        ),
        ("pydantic_ai_example.py", "pydantic_ai", ["From your memory:", "Her name is Pixel."]),
        (
            "langgraph_example.py",
            "langgraph",
            ['"result": 2754.15', "store: [{'content': 'Maya prefers window seats.'}]"],
        ),
    ],
)
def test_the_example_runs_offline(tmp_path, example, framework, expected):
    pytest.importorskip(framework)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UAC_", "OPENAI_"))}
    env.update({"UAC_BLOCK_NETWORK": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)})
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / example), str(tmp_path / "users")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for text in expected:
        assert text in done.stdout, done.stdout
    assert (tmp_path / "users" / "maya" / "memory" / "facts.jsonl").is_file()
