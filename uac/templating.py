"""Jinja2 templates shipped in the package: prompts (``uac/prompts``) and files
written into projects (``uac/templates``).  Prompts live in templates, never in
string literals scattered through the code."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=2)
def _environment(folder: str):
    import jinja2

    return configured(jinja2.PackageLoader("uac", folder))


def configured(loader: Any) -> Any:
    """The Jinja environment uac renders with, over ``loader``.

    The ``json`` filter writes a value as one line of JSON (non-ASCII kept), for
    the data blocks of prompts (``<name>`` ... ``</name>``): what uac tells a model
    as data, beside the prose that tells it what to do."""
    import jinja2

    environment = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False)
    return environment


def render_template(name: str, **context: Any) -> str:
    """Render a project-file template from ``uac/templates``."""
    return _environment("templates").get_template(name).render(**context)


def render_prompt(name: str, **context: Any) -> str:
    """Render a prompt template from ``uac/prompts``."""
    return _environment("prompts").get_template(name).render(**context)


def prompt_names() -> list[str]:
    return sorted(_environment("prompts").list_templates())
