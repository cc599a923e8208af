"""``MANIFEST.md``: one line per domain, what it holds and how many records.

Agents read the manifest first; it is re-rendered from the loaded view after
every change to ``domains/`` (the caller holds the project lock).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..dialect.loader import LoadedDomain
from ..fsutil import atomic_write_text
from .store import load_view

if TYPE_CHECKING:
    from ..project import Project


def summarize(loaded: LoadedDomain) -> dict[str, Any]:
    """What a domain holds: per top-level name, its type and size."""
    items = []
    for name, value in loaded.values.items():
        spec = loaded.types[name]
        count = len(value) if isinstance(value, (list, tuple, dict, set)) else None
        items.append({"name": name, "type": spec.source(), "count": count})
    return {
        "name": loaded.name,
        "doc": (loaded.schema.doc or "").strip().split("\n")[0][:100],
        "records": loaded.record_count(),
        "items": items,
    }


def summary_line(summary: dict[str, Any]) -> str:
    """The manifest line of a domain (also the domain summary routing shows the model)."""
    parts = []
    for item in summary["items"][:6]:
        inner = item["type"]
        if item["count"] is not None:
            parts.append(
                f"{item['name']} ({item['count']} × {inner.removeprefix('list[').removesuffix(']')})"
                if inner.startswith("list[")
                else f"{item['name']} ({item['count']})"
            )
        else:
            parts.append(f"{item['name']}: {inner}")
    if len(summary["items"]) > 6:
        parts.append(f"+{len(summary['items']) - 6} more")
    doc = summary["doc"].rstrip(".")
    head = f"{doc}. " if doc else ""
    return f"{head}{', '.join(parts) or 'empty'}"


def write_manifest(project: "Project", view: dict[str, LoadedDomain] | None = None) -> str:
    """Re-render ``MANIFEST.md`` from the current view (caller holds the lock)."""
    from ..templating import render_template

    view = load_view(project) if view is None else view
    domains = []
    for name in sorted(view):
        summary = summarize(view[name])
        domains.append({"name": name, "summary": summary_line(summary), "records": summary["records"]})
    facts_count = _count_lines(project.paths.facts)
    text = render_template(
        "manifest.md.j2",
        user_name=project.config.user.name,
        domains=domains,
        facts_count=facts_count,
    )
    atomic_write_text(project.paths.manifest, text)
    return text


def _count_lines(path: Path) -> int | None:
    try:
        with open(path, "rb") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError:
        return None


__all__ = ["summarize", "summary_line", "write_manifest"]
