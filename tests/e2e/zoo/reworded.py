"""uac's prompt templates with every line of prose reworded: what a change of wording must not break.

:func:`reworded_source` rewrites a template's source: each line outside a data
block (``<name>`` ... ``</name>``) has its literal text replaced by other
words (ROT13, so nothing of the old wording is left, a Markdown heading gets
another level), the Jinja expressions and statements stay as they are, and
each run of adjacent paragraphs that are plain prose is put in reverse order.
The data blocks -- the lines uac writes there for a model to read as data --
are kept byte for byte.  :func:`reworded_prompts` installs it as the loader of
``uac/prompts`` for the duration of a ``with``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from contextlib import contextmanager

import jinja2
import pytest

from uac import templating

_JINJA = re.compile(r"(\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\})")
_OPEN = re.compile(r"^<(?P<name>[a-z_]+)>$")


def _reword_line(line: str) -> str:
    parts = _JINJA.split(line)
    out = [part if index % 2 else codecs.encode(part, "rot13") for index, part in enumerate(parts)]
    text = "".join(out)
    return "#" + text if text.startswith("#") else text


def _is_prose(paragraph: list[str]) -> bool:
    return bool(paragraph) and not any(_JINJA.search(line) or _OPEN.match(line.strip()) for line in paragraph)


def _reorder(lines: list[str]) -> list[str]:
    """Adjacent paragraphs of plain prose (no Jinja, no data) in reverse order."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line)
        elif paragraphs[-1]:
            paragraphs.append([])
    if not paragraphs[-1]:
        paragraphs.pop()
    if sum(1 for p in paragraphs if not _is_prose(p)) == len(paragraphs):
        return lines
    out: list[list[str]] = []
    run: list[list[str]] = []
    for paragraph in [*paragraphs, []]:
        if _is_prose(paragraph):
            run.append(paragraph)
            continue
        out.extend(reversed(run))
        run = []
        if paragraph:
            out.append(paragraph)
    joined: list[str] = []
    for paragraph in out:
        joined += [*paragraph, ""]
    return joined[:-1] + ([""] if lines and lines[-1] == "" else [])


def reworded_source(source: str) -> str:
    """``source`` with its prose reworded and reordered, its data blocks and Jinja kept."""
    lines = source.split("\n")
    out: list[str] = []
    close: str | None = None
    for line in lines:
        stripped = line.strip()
        if close is not None:
            out.append(line)
            if stripped == close:
                close = None
            continue
        opened = _OPEN.match(stripped)
        if opened:
            close = f"</{opened['name']}>"
            out.append(line)
        elif stripped.startswith("{%") and stripped.endswith("%}") and _JINJA.fullmatch(stripped):
            out.append(line)
        else:
            out.append(_reword_line(line))
    return "\n".join(_reorder(out))


class RewordingLoader(jinja2.BaseLoader):
    """The templates of ``uac/prompts`` as :func:`reworded_source` rewrites them."""

    def __init__(self) -> None:
        self.inner = jinja2.PackageLoader("uac", "prompts")

    def get_source(self, environment: jinja2.Environment, template: str):  # type: ignore[no-untyped-def]
        source, filename, _uptodate = self.inner.get_source(environment, template)
        return reworded_source(source), filename, lambda: False

    def list_templates(self) -> list[str]:
        return self.inner.list_templates()


@contextmanager
def reworded_prompts() -> Iterator[None]:
    """Render every uac prompt from its reworded template while the ``with`` lasts."""
    environment = templating.configured(RewordingLoader())
    real = templating._environment
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(templating, "_environment", lambda folder: environment if folder == "prompts" else real(folder))
        yield
