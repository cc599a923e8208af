"""``uac export``: a portable copy of a project's source of truth and view.

The export holds ``uac.toml``, ``MANIFEST.md``, ``memory/`` and ``domains/``
(and any other top-level files the user keeps there) but not ``.uac/``:
derived data is rebuilt on the other side by ``uac doctor --repair``.  The
copy is taken under the project lock so it never sees a half-written session.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .errors import UserError
from .project import Project

EXCLUDED_TOP = {".uac"}
ARCHIVE_SUFFIXES = (".tar.gz", ".tgz")


@dataclass(frozen=True)
class ExportReport:
    """What ``uac export`` wrote."""

    project: str
    out: str
    kind: str  # "archive" | "directory"
    files: int

    def to_json(self) -> dict[str, Any]:
        return {"project": self.project, "out": self.out, "kind": self.kind, "files": self.files}


def export_members(project: "Project") -> Iterator[Path]:
    """Files and directories included in an export, relative to the project root."""
    root = project.root
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if rel_dir == Path("."):
            dirnames[:] = [d for d in dirnames if d not in EXCLUDED_TOP]
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            yield rel_dir / name


def _write_tar(project: "Project", handle: io.BufferedIOBase) -> int:
    count = 0
    with tarfile.open(fileobj=handle, mode="w:gz") as tar:
        for rel in export_members(project):
            tar.add(project.root / rel, arcname=str(Path(project.name) / rel), recursive=False)
            count += 1
    return count


def export_project(project: "Project", out: str | Path) -> ExportReport:
    """Write the export to ``out``: a ``.tar.gz``/``.tgz`` archive, or a new directory."""
    out = Path(out)
    is_archive = str(out).endswith(ARCHIVE_SUFFIXES)
    if out.exists() and (is_archive or not out.is_dir() or any(out.iterdir())):
        raise UserError(f"{out} already exists.", hint="Export into a new directory or a new .tar.gz file.")
    try:
        out.resolve().relative_to(project.root.resolve())
    except ValueError:
        pass
    else:
        raise UserError(f"{out} is inside the project.", hint="Export to a path outside the project directory.")
    with project.lock("export"):
        if is_archive:
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "wb") as handle:
                count = _write_tar(project, handle)
            kind = "archive"
        else:
            count = 0
            for rel in export_members(project):
                target = out / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(project.root / rel, target)
                count += 1
            kind = "directory"
    return ExportReport(project=str(project.root), out=str(out), kind=kind, files=count)


def export_bytes(project: "Project") -> bytes:
    """The ``.tar.gz`` export in memory (for servers)."""
    buffer = io.BytesIO()
    with project.lock("export"):
        _write_tar(project, buffer)
    return buffer.getvalue()
