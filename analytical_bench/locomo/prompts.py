"""The harness's prompts: jinja2 templates in ``analytical_bench/locomo/prompts``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..prompts import render_from

PROMPT_DIR = Path(__file__).parent / "prompts"


def render(name: str, **context: Any) -> str:
    """Render ``prompts/<name>.j2`` (whitespace at the ends stripped)."""
    return render_from(PROMPT_DIR, name, **context)
