"""Jinja2 templates shipped in the package: prompts (``uac/prompts``) and files
written into projects (``uac/templates``).  Prompts live in templates, never in
string literals scattered through the code."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

#: a tag of a data block as it may stand in a value -- ``<turns>``, ``</turns>`` -- with the
#: backslashes :func:`escape_tags` put after its ``<`` (any number, so that escaping is undone exactly)
_TAG = re.compile(r"<(\\*)(/?[A-Za-z_][\w.-]*\s*)>")
_ESCAPED_TAG = re.compile(r"<\\(\\*)(/?[A-Za-z_][\w.-]*\s*)>")


def escape_tags(text: str) -> str:
    """``text`` with every tag-like ``<name>`` / ``</name>`` written ``<\\name>`` / ``<\\/name>``
    (one backslash more after the ``<``), so that a value rendered into a prompt can neither
    close the data block it stands in nor open one: a chat turn reading ``</turns>`` stays
    data.  :func:`unescape_tags` undoes it exactly."""
    return _TAG.sub(r"<\\\1\2>", text)


def unescape_tags(text: str) -> str:
    """The text :func:`escape_tags` was given (one backslash less after each tag's ``<``)."""
    return _ESCAPED_TAG.sub(r"<\1\2>", text)


class _Prose(str):
    """Text uac wrote itself for a prompt (the ``prose`` filter): written as it is."""


def _data(value: Any) -> Any:
    """What a prompt's ``{{ ... }}`` writes: the value as text, its tags escaped (text marked
    ``prose`` as it is)."""
    if isinstance(value, _Prose):
        return str(value)
    return escape_tags(value if isinstance(value, str) else str(value))


@lru_cache(maxsize=2)
def _environment(folder: str):
    import jinja2

    return configured(jinja2.PackageLoader("uac", folder), prompts=folder == "prompts")


def configured(loader: Any, *, prompts: bool = True) -> Any:
    """The Jinja environment uac renders with, over ``loader``.

    The ``json`` filter writes a value as one line of JSON (:func:`json_line`), for
    the data blocks of prompts (``<name>`` ... ``</name>``): what uac tells a model
    as data, beside the prose that tells it what to do.  In the prompts' environment
    (``prompts``) every value a template writes goes through :func:`escape_tags`: no
    value -- a chat turn, a fact, a record, a description a model wrote -- can close
    or open a data block; the one reader of blocks (``uac.llm.rule_model.request``)
    undoes it; text uac wrote itself, such as the sandbox's description, is marked
    ``| prose`` and written as it is.  Project files (``uac/templates``) are written as
    they are."""
    import jinja2

    environment = jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_data if prompts else None,
    )
    environment.filters["json"] = json_line
    environment.filters["prose"] = _Prose
    return environment


def json_line(value: Any) -> str:
    """``value`` as one line of JSON, non-ASCII kept and every ``<`` written ``\\u003c``: the
    same value to a JSON reader, and nothing a data block's tag could be made of."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c")


def render_template(name: str, **context: Any) -> str:
    """Render a project-file template from ``uac/templates``."""
    return _environment("templates").get_template(name).render(**context)


def render_prompt(name: str, **context: Any) -> str:
    """Render a prompt template from ``uac/prompts``."""
    return _environment("prompts").get_template(name).render(**context)


def prompt_names() -> list[str]:
    return sorted(_environment("prompts").list_templates())
