"""docs/integrations.md shows each framework in under 20 lines, with names that exist."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "integrations.md"


def python_blocks() -> dict[str, str]:
    """The first Python block under each ``## `` heading."""
    text = DOC.read_text("utf-8")
    blocks = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        found = re.search(r"^```python\n(.*?)^```", section, flags=re.S | re.M)
        if found:
            blocks[section.splitlines()[0].strip()] = found.group(1)
    return blocks


def test_each_framework_is_shown_in_under_20_lines():
    blocks = python_blocks()
    assert set(blocks) == {"OpenAI Agents SDK", "pydantic-ai", "LangGraph"}
    for heading, code in blocks.items():
        lines = [line for line in code.splitlines() if line.strip()]
        assert len(lines) < 20, heading
        ast.parse(code)


@pytest.mark.parametrize("module", ["openai_agents", "pydantic_ai", "langgraph"])
def test_the_names_the_docs_import_exist(module):
    pytest.importorskip({"openai_agents": "agents", "pydantic_ai": "pydantic_ai", "langgraph": "langgraph"}[module])
    imported = importlib.import_module(f"uac.integrations.{module}")
    for code in python_blocks().values():
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ImportFrom) and node.module == f"uac.integrations.{module}":
                for alias in node.names:
                    assert hasattr(imported, alias.name), alias.name
