"""The user project on disk (format v1): create, open, validate, lock.

::

    <project>/
      uac.toml            settings and format version
      MANIFEST.md         one line per domain; read first
      memory/facts.jsonl  append-only fact log (source of truth)
      memory/sessions/    raw conversation archive (source of truth)
      domains/<d>/        generated typed view: __init__.py, schema.py, state.py
      .uac/               derived and bookkeeping data (rebuildable)
"""

from __future__ import annotations

import datetime as _dt
import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from . import migrations as _migrations
from .config import CONFIG_NAME, FORMAT_VERSION, ProjectConfig, UserSettings, dump_config, load_config
from .errors import ConfigError, FormatVersionError, NotAProject, ProjectExists, ProjectNotFound
from .fsutil import PRIVATE_DIR, atomic_write_text, make_private, make_private_dirs, read_regular, resolve_inside
from .lock import project_lock
from .safejson import check_text
from .workspace import resolve_project

log = logging.getLogger(__name__)


class _Below:
    """A path of the project: ``parts`` below its root (read as ``paths.facts``)."""

    def __init__(self, *parts: str) -> None:
        self.parts = parts

    def __get__(self, paths: "ProjectPaths", owner: type | None = None) -> Path:
        return paths.root.joinpath(*self.parts)


@dataclass(frozen=True)
class ProjectPaths:
    """Where each part of a project lives (the layout of the module docstring)."""

    root: Path

    config = _Below(CONFIG_NAME)
    manifest = _Below("MANIFEST.md")
    memory = _Below("memory")
    facts = _Below("memory", "facts.jsonl")
    sessions = _Below("memory", "sessions")
    domains = _Below("domains")
    internal = _Below(".uac")
    lock = _Below(".uac", "lock")


def _render_empty_manifest(user_name: str) -> str:
    from .templating import render_template

    return render_template("manifest.md.j2", user_name=user_name, domains=[])


class Project:
    """An opened user project.  Cheap to construct; reads only ``uac.toml``."""

    def __init__(self, root: Path, config: ProjectConfig) -> None:
        self.root = root
        self.paths = ProjectPaths(root)
        self.config = config
        #: derived readers kept for the life of this object (e.g. the records index:
        #: see :func:`uac.records.search.record_index`), by name
        self.kept: dict[str, object] = {}

    def __repr__(self) -> str:
        return f"Project({str(self.root)!r})"

    @property
    def name(self) -> str:
        return self.root.name

    # -- creation and opening -------------------------------------------------

    @classmethod
    def create(cls, spec: str | Path, *, user_name: str | None = None, timezone: str = "UTC") -> "Project":
        """Create a new project at ``spec`` (a path or a bare workspace name)."""
        root = resolve_project(spec)
        if (root / CONFIG_NAME).exists():
            raise ProjectExists(f"a uac project already exists at {root}.", hint="Open it instead.")
        if root.exists() and not root.is_dir():
            raise NotAProject(f"{root} exists and is not a directory.")
        if root.exists() and any(root.iterdir()):
            raise ProjectExists(
                f"{root} exists and is not empty.",
                hint="Choose a new directory or an empty one.",
            )
        if user_name is not None:
            check_text(user_name, "the user name")
        user = UserSettings(
            name=user_name or root.name,
            timezone=timezone,
            created=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        )
        config = ProjectConfig(user=user)
        # validate the settings (time zone) before anything touches the disk
        from .config import parse_config

        parse_config(dump_config(config), root / CONFIG_NAME)
        # a user's memory is private to its owner, whatever the umask: the root (also
        # an empty directory given to it) and everything made in it (fsutil.make_private)
        make_private_dirs(root)
        os.chmod(root, PRIVATE_DIR)
        project = cls(root, config)
        with project.lock("init"):
            project._apply_migrations(_migrations.pending(()))
            atomic_write_text(project.paths.manifest, _render_empty_manifest(user.name))
            make_private(root)
        return project

    @classmethod
    def open(cls, spec: str | Path, *, migrate: bool = True) -> "Project":
        """Open an existing project; apply pending migrations unless ``migrate=False``."""
        root = resolve_project(spec)
        if not root.exists():
            raise ProjectNotFound(
                f"no user project at {root}.",
                hint="{do:init}.",
            )
        if not root.is_dir():
            raise NotAProject(f"{root} is not a directory, so it is not a uac project.")
        config_path = root / CONFIG_NAME
        if not config_path.exists():
            raise NotAProject(
                f"{root} is not a uac project (no {CONFIG_NAME}).",
                hint="{do:init}, or name the project's directory.",
            )
        config = load_config(config_path)
        if config.format_version > FORMAT_VERSION:
            raise FormatVersionError(
                f"{root} uses project format {config.format_version}, "
                f"but this uac reads format {FORMAT_VERSION} at most.",
                hint="Upgrade uac to open it.",
            )
        todo = _migrations.pending(config.migrations)
        project = cls(root, config)
        if todo and migrate:
            with project.lock("migrate"):
                # re-read under the lock: another process may have migrated meanwhile
                project.config = load_config(config_path)
                project._apply_migrations(_migrations.pending(project.config.migrations))
        return project

    # -- reading files ----------------------------------------------------------

    def read_text(self, relative: str | Path) -> str | None:
        """A UTF-8 file of the project (e.g. ``MANIFEST.md``), or ``None`` if there is none.

        Only a regular file inside the project is read: a symbolic link that
        leads out of it, a FIFO or a device is an :class:`~uac.errors.UnsafePath`.
        """
        try:
            data = read_regular(self.root, self.root / relative)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return data.decode("utf-8", errors="replace")

    # -- locking and settings -------------------------------------------------

    @contextmanager
    def lock(self, purpose: str = "", timeout: float = 30.0) -> Iterator[None]:
        """Exclusive writer lock (re-entrant in one process)."""
        make_private_dirs(self.paths.internal)
        resolve_inside(self.root, self.paths.internal)
        with project_lock(self.paths.lock, purpose=purpose, timeout=timeout):
            yield

    def save_config(self, config: ProjectConfig) -> None:
        """Write ``uac.toml`` atomically (caller holds the lock)."""
        atomic_write_text(self.paths.config, dump_config(config))
        self.config = config

    def _apply_migrations(self, todo: list[_migrations.Migration]) -> None:
        applied = list(self.config.migrations)
        for migration in todo:
            log.info("applying migration %s: %s", migration.name, migration.description)
            try:
                migration.apply(self.root)
            except OSError as exc:
                raise _migrations.MigrationError(
                    f"migration {migration.name} failed in {self.root}: {exc}.",
                    hint="Fix the file-system problem and open the project again.",
                ) from exc
            applied.append(migration.name)
            version = max(self.config.format_version, migration.format_version)
            self.save_config(self.config.replace(migrations=tuple(applied), format_version=version))

    # -- validation -------------------------------------------------------------

    def _layout_missing(self) -> list[tuple[Path, str]]:
        p = self.paths
        parts = (
            (p.memory, "dir"),
            (p.sessions, "dir"),
            (p.domains, "dir"),
            (p.internal, "dir"),
            (p.facts, "file"),
            (p.manifest, "file"),
        )
        return [(path, kind) for path, kind in parts if not (path.is_dir() if kind == "dir" else path.is_file())]

    def layout_problems(self) -> list[str]:
        """Missing parts of the on-disk layout (empty list if complete)."""
        return [
            f"missing directory {path.relative_to(self.root)}/"
            if kind == "dir"
            else f"missing file {path.relative_to(self.root)}"
            for path, kind in self._layout_missing()
        ]

    def repair_layout(self) -> list[str]:
        """Recreate missing directories and empty files; returns what was done."""
        with self.lock("repair layout"):
            missing = self._layout_missing()
            done = [problem.replace("missing", "created") for problem in self.layout_problems()]
            _migrations._create_layout(self.root)
            _migrations._domains_package(self.root)
            if not self.paths.manifest.exists():
                atomic_write_text(self.paths.manifest, _render_empty_manifest(self.config.user.name))
            for path, _kind in missing:  # made again, private like the rest
                make_private(path)
        return done


def is_project(path: Path) -> bool:
    return (Path(path) / CONFIG_NAME).is_file()


__all__ = ["Project", "ProjectPaths", "is_project", "ConfigError"]
