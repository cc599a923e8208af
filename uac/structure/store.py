"""Reading and replacing the generated view on disk.

A domain directory is only ever replaced whole: the new files are written to
a temporary sibling, validated and loaded from there (which also fills the
cache), and only then swapped in with two renames.  A failure at any point
leaves the previous directory byte-identical.  The manifest is re-rendered
after every change.
"""

from __future__ import annotations

import json
import keyword
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidName
from ..fsutil import atomic_write_text, fsync_dir
from .loader import LoadedDomain, domain_dirs, load_domain_dir

if TYPE_CHECKING:
    from ..project import Project

DOMAIN_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


def check_domain_name(name: str) -> str:
    if not DOMAIN_RE.match(name or "") or keyword.iskeyword(name) or name.endswith("_") and name.strip("_") == "":
        raise InvalidName(
            f"invalid domain name {name!r}.",
            hint="Use a lowercase slug: a letter, then letters, digits or underscores (at most 40), e.g. 'travel'.",
        )
    return name


def cache_dir(project: "Project") -> Path:
    return project.paths.internal / "structure"


def load_domain(project: "Project", name: str) -> LoadedDomain:
    return load_domain_dir(project.paths.domains / check_domain_name(name), cache_dir=cache_dir(project))


def domain_names(project: "Project") -> list[str]:
    recover(project)
    return [p.name for p in domain_dirs(project.paths.domains)]


def load_view(project: "Project") -> dict[str, LoadedDomain]:
    """Every domain, loaded (cache first)."""
    return {name: load_domain(project, name) for name in domain_names(project)}


def recover(project: "Project") -> None:
    """Finish a swap interrupted between its two renames (restore the old dir)."""
    root = project.paths.domains
    if not root.is_dir():
        return
    for old in root.glob(".old-*"):
        name = old.name[len(".old-") :].rsplit("-", 1)[0]
        target = root / name
        if target.exists():
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(old, target)
    for tmp in root.glob(".new-*"):
        shutil.rmtree(tmp, ignore_errors=True)


def write_domain(project: "Project", name: str, files: dict[str, str]) -> LoadedDomain:
    """Validate ``files`` as domain ``name`` and swap them in (caller holds the lock).

    Raises :class:`~uac.structure.validate.CodeRejected` (or another
    :class:`~uac.errors.UacError`) without touching the current directory.
    """
    check_domain_name(name)
    root = project.paths.domains
    root.mkdir(parents=True, exist_ok=True)
    recover(project)
    tmp = Path(tempfile.mkdtemp(prefix=f".new-{name}-", dir=root))
    try:
        for filename, text in files.items():
            (tmp / filename).write_text(text, "utf-8")
        loaded = load_domain_dir(tmp, cache_dir=None, label=f"domains/{name}")
        # fill the cache for the final location (same content hash)
        from .loader import _cache_path, _write_cache

        loaded.name = name
        _write_cache(_cache_path(cache_dir(project), name), loaded)
        for filename in files:
            with open(tmp / filename, "rb") as handle:
                os.fsync(handle.fileno())
        target = root / name
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".old-{name}-", dir=root))
            old.rmdir()
            os.replace(target, old)
            os.replace(tmp, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, target)
        fsync_dir(root)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return loaded


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


def _summary_line(summary: dict[str, Any]) -> str:
    parts = []
    for item in summary["items"][:6]:
        inner = item["type"]
        if item["count"] is not None:
            parts.append(f"{item['name']} ({item['count']} × {inner.removeprefix('list[').removesuffix(']')})" if inner.startswith("list[") else f"{item['name']} ({item['count']})")
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
        domains.append({"name": name, "summary": _summary_line(summary), "records": summary["records"]})
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


def read_history(project: "Project") -> list[dict[str, Any]]:
    path = project.paths.internal / "compile_history.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out
