"""The benchmark's prompts: jinja2 templates in ``analytical_bench/prompts``,
rendered here (the harness does not use uac's prompt folder)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

PROMPT_DIR = Path(__file__).parent / "prompts"


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@lru_cache(maxsize=1)
def _environment():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(PROMPT_DIR)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["tojson_compact"] = _compact
    return env


def render(name: str, **context: Any) -> str:
    """Render ``prompts/<name>.j2`` (whitespace at the ends stripped)."""
    return _environment().get_template(f"{name}.j2").render(**context).strip()
