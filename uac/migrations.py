"""Named, append-only migrations of persisted project data.

Every change to what a project stores on disk gets a migration here, appended
at the end of :data:`MIGRATIONS` and never edited or reordered once released.
A project records the names it has applied in ``uac.toml`` (``migrations``);
opening a project applies the pending ones in order, under the project lock.
A project that lists a migration this uac does not know was written by a newer
uac and is refused rather than guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .errors import FormatVersionError, MigrationError


@dataclass(frozen=True)
class Migration:
    name: str
    description: str
    apply: Callable[[Path], None]
    #: format_version the project has after this migration
    format_version: int = 1


def _create_layout(root: Path) -> None:
    for sub in ("memory/sessions", "domains", ".uac"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    facts = root / "memory" / "facts.jsonl"
    if not facts.exists():
        facts.touch()
    gitignore = root / ".uac" / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("# derived data: rebuilt by 'uac doctor --repair'\n*\n", "utf-8")


def _domains_package(root: Path) -> None:
    init = root / "domains" / "__init__.py"
    if not init.exists():
        init.write_text('"""Generated per-domain packages of this user project."""\n', "utf-8")


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_layout", "create memory/, memory/sessions/, domains/ and .uac/", _create_layout),
    Migration("0002_domains_package", "make domains/ a package with __init__.py", _domains_package),
)


def known_names() -> list[str]:
    return [m.name for m in MIGRATIONS]


def pending(applied: tuple[str, ...] | list[str]) -> list[Migration]:
    """The migrations still to apply, given the names a project has applied.

    Raises :class:`FormatVersionError` if the project lists a name this uac does
    not know or lists known ones out of order.
    """
    names = known_names()
    unknown = [name for name in applied if name not in names]
    if unknown:
        raise FormatVersionError(
            f"the project was migrated by a newer uac (unknown migration(s): {', '.join(unknown)}).",
            hint="Upgrade uac to open it.",
        )
    if list(applied) != names[: len(applied)]:
        raise MigrationError(
            f"the project's migration history {list(applied)} does not match this uac's {names}.",
            hint="Restore uac.toml from a copy; {do:doctor} for details.",
        )
    return list(MIGRATIONS[len(applied) :])


def latest_format_version() -> int:
    return max((m.format_version for m in MIGRATIONS), default=1)
