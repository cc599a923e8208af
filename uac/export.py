"""``uac export``: a portable copy of a project's source of truth and view.

The export holds ``uac.toml``, ``MANIFEST.md``, ``memory/`` and ``domains/``
(and any other top-level files the user keeps there) but not ``.uac/``:
derived data is rebuilt on the other side by ``uac doctor --repair``.  The
copy is taken under the project lock so it never sees a half-written session.

Only regular files and real directories are exported.  A symbolic link (to a
file or a directory, inside the project or out of it), a FIFO or a device is
never followed or copied: it is left out and named in the report's
``skipped`` list.

An export is a user's memory like the project itself, private to its owner: its
directories are 0700 and its files 0600, in an archive as on disk.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .errors import UserError
from .fsutil import PRIVATE_DIR, PRIVATE_FILE, make_private_dirs, open_private
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
    #: project-relative paths left out: links, FIFOs, devices
    skipped: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "out": self.out,
            "kind": self.kind,
            "files": self.files,
            "skipped": list(self.skipped),
        }


def export_members(project: "Project", skipped: list[str] | None = None) -> Iterator[Path]:
    """Regular files included in an export, relative to the project root.

    Links and special files are not yielded; their relative paths are added
    to ``skipped`` when a list is given.  ``os.walk`` does not descend into
    linked directories, and they are reported too.
    """
    root = project.root
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if rel_dir == Path("."):
            dirnames[:] = [d for d in dirnames if d not in EXCLUDED_TOP]
        real_dirs = []
        for name in sorted(d for d in dirnames if d != "__pycache__"):
            if os.path.islink(os.path.join(dirpath, name)):
                if skipped is not None:
                    skipped.append(str(rel_dir / name))
            else:
                real_dirs.append(name)
        dirnames[:] = real_dirs
        for name in sorted(filenames):
            mode = os.lstat(os.path.join(dirpath, name)).st_mode
            if stat.S_ISREG(mode):
                yield rel_dir / name
            elif skipped is not None:
                skipped.append(str(rel_dir / name))


def _copy_regular(source: Path, target: Path) -> None:
    """Copy one regular file without following a link that replaced it meanwhile."""
    fd = os.open(source, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as src:
        if not stat.S_ISREG(os.fstat(src.fileno()).st_mode):
            return
        with os.fdopen(open_private(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL), "wb") as dst:
            shutil.copyfileobj(src, dst)
    shutil.copystat(source, target, follow_symlinks=False)
    os.chmod(target, PRIVATE_FILE)  # copystat gave it the source's mode


def _private_member(member: tarfile.TarInfo) -> tarfile.TarInfo:
    member.mode = PRIVATE_DIR if member.isdir() else PRIVATE_FILE
    return member


def _write_tar(project: "Project", handle: io.BufferedIOBase, skipped: list[str]) -> int:
    count = 0
    with tarfile.open(fileobj=handle, mode="w:gz") as tar:
        for rel in export_members(project, skipped):
            tar.add(project.root / rel, arcname=str(Path(project.name) / rel), recursive=False, filter=_private_member)
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
    skipped: list[str] = []
    with project.lock("export"):
        if is_archive:
            make_private_dirs(out.parent)
            with os.fdopen(open_private(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as handle:
                count = _write_tar(project, handle, skipped)
            kind = "archive"
        else:
            count = 0
            make_private_dirs(out)
            os.chmod(out, PRIVATE_DIR)
            for rel in export_members(project, skipped):
                target = out / rel
                make_private_dirs(target.parent)
                _copy_regular(project.root / rel, target)
                count += 1
            kind = "directory"
    return ExportReport(project=str(project.root), out=str(out), kind=kind, files=count, skipped=skipped)


def export_bytes(project: "Project") -> bytes:
    """The ``.tar.gz`` export in memory (for servers)."""
    buffer = io.BytesIO()
    with project.lock("export"):
        _write_tar(project, buffer, [])
    return buffer.getvalue()
