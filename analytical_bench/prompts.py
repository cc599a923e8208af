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


@lru_cache(maxsize=4)
def environment(folder: Path = PROMPT_DIR):
    """A strict jinja2 environment over a folder of ``.j2`` prompts (shared by the harnesses)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(folder)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["tojson_compact"] = _compact
    return env


def render_from(folder: Path, name: str, **context: Any) -> str:
    """Render ``<folder>/<name>.j2`` (whitespace at the ends stripped)."""
    return environment(folder).get_template(f"{name}.j2").render(**context).strip()


def render(name: str, **context: Any) -> str:
    """Render ``prompts/<name>.j2`` (whitespace at the ends stripped)."""
    return render_from(PROMPT_DIR, name, **context)
