"""The harness's prompts: jinja2 templates in ``analytical_bench/locomo/prompts``."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

PROMPT_DIR = Path(__file__).parent / "prompts"


@lru_cache(maxsize=1)
def _environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPT_DIR)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(name: str, **context: Any) -> str:
    """Render ``prompts/<name>.j2`` (whitespace at the ends stripped)."""
    return _environment().get_template(f"{name}.j2").render(**context).strip()
