"""Reading and replacing the generated view on disk (``domains/<d>/``).

A domain directory is only ever replaced whole: the new files are written to
a temporary sibling, validated and loaded from there (which also fills the
cache, :mod:`.cache`), and only then swapped in with two renames.  A failure
at any point leaves the previous directory byte-identical.  The pipelines
re-render the manifest (:mod:`.manifest`) after every change.

Every writer renders a domain's files with :func:`render_domain` (the three files
from the schema and the records, the same docstrings for every writer) and
replaces them with :func:`write_domain` (validated) or :func:`swap_domain` (shown
valid already); :func:`files_digest` is the source hash the ledgers and the
change log key them by.

A change that must carry what follows it (the manifest, the search index of
imported records) runs in :func:`undone_on_failure`: if anything in the block
raises, the domain's files as they were are swapped back in the same way, so
the caller sees the change whole or not at all.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ..dialect import render
from ..dialect.loader import LoadedDomain, load_sources, source_hash
from ..dialect.problems import CodeRejected, Problem
from ..dialect.validate import check_init
from ..errors import StoreError, UacError
from ..fsutil import fsync_dir, make_private_dirs, read_regular, resolve_inside, write_private
from ..names import DOMAIN_NAME
from . import changes
from .cache import cache_path, read_cache, write_cache

if TYPE_CHECKING:
    from ..dialect.spec import SchemaSpec
    from ..dialect.types import TypeSpec
    from ..project import Project

log = logging.getLogger(__name__)

#: the shape of a domain name (match it whole: ``DOMAIN_RE.fullmatch``)
DOMAIN_RE = DOMAIN_NAME.pattern


def check_domain_name(name: str) -> str:
    return DOMAIN_NAME.check(name)


def load_domain_dir(
    directory: Path, *, cache_dir: Path | None = None, label: str | None = None, root: Path | None = None
) -> LoadedDomain:
    """Load ``domains/<name>/`` (using and refreshing the cache if given).

    The files are read only if they are regular files inside the project
    (``root``, by default the directory two levels up): a link out of the
    project is an :class:`~uac.errors.UnsafePath`.
    """
    directory = Path(directory)
    root = Path(root) if root is not None else directory.parent.parent
    name = directory.name
    label = label or f"domains/{name}"
    try:
        schema_bytes = read_regular(root, directory / "schema.py")
        state_bytes = read_regular(root, directory / "state.py")
        init_bytes = read_regular(root, directory / "__init__.py")
    except FileNotFoundError as exc:
        raise CodeRejected([Problem(f"{label}/{Path(exc.filename).name}", 0, "file missing")]) from None
    except OSError as exc:
        raise StoreError(f"cannot read {directory}: {exc}.") from None
    check_init(name, init_bytes, label)
    key = source_hash(schema_bytes, state_bytes)
    if cache_dir is not None:
        cached = read_cache(cache_path(cache_dir, name), key, name)
        if cached is not None:
            return cached
    loaded = load_sources(name, schema_bytes, state_bytes, label=label)
    if cache_dir is not None:
        write_cache(cache_path(cache_dir, name), loaded)
    return loaded


def domain_dirs(domains_root: Path) -> list[Path]:
    """The domain package directories, sorted by name."""
    if not domains_root.is_dir():
        return []
    return sorted(
        p
        for p in domains_root.iterdir()
        if p.is_dir() and (p / "schema.py").exists() and not p.name.startswith((".", "_"))
    )


def cache_dir(project: "Project") -> Path:
    return project.paths.internal / "structure"


def load_domain(project: "Project", name: str, *, cache: bool = True) -> LoadedDomain:
    """One domain, loaded (through the JSON cache unless ``cache=False``)."""
    directory = cache_dir(project) if cache else None
    return load_domain_dir(project.paths.domains / check_domain_name(name), cache_dir=directory, root=project.root)


def domain_names(project: "Project") -> list[str]:
    _recover_if_free(project)
    return [p.name for p in domain_dirs(project.paths.domains)]


def _recover_if_free(project: "Project") -> None:
    """:func:`recover`, by the lock's holder or while no one holds it: a reader (ask, a
    search, doctor) lists the domains without the lock, and must not remove the directory
    of a swap another thread or process has in progress.  Nothing to clear: no lock taken
    (a read writes nothing, not even the lock file)."""
    root = project.paths.domains
    if not root.is_dir() or not (any(root.glob(".new-*")) or any(root.glob(".old-*"))):
        return
    try:
        with project.lock("recover", timeout=0):
            recover(project)
    except (UacError, OSError):
        pass  # a writer is at work (it recovers before its own swap), or the project is read-only


def load_view(project: "Project", *, cache: bool = True) -> dict[str, LoadedDomain]:
    """Every domain, loaded (cache first; ``cache=False``: the cache is neither read nor written)."""
    return {name: load_domain(project, name, cache=cache) for name in domain_names(project)}


def recover(project: "Project", domain: str | None = None) -> None:
    """Finish a swap interrupted between its two renames (restore the old dir).

    ``domain``: only that domain's leftovers (domains written side by side must
    not clear each other's swaps in progress); ``None``: every domain's.
    """
    root = project.paths.domains
    if not root.is_dir():
        return
    # names are slugs without "-", so ".old-<name>-" matches one domain only
    which = "*" if domain is None else f"{domain}-*"
    for old in root.glob(f".old-{which}"):
        name = old.name[len(".old-") :].rsplit("-", 1)[0]
        target = root / name
        if target.exists():
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(old, target)
    for tmp in root.glob(f".new-{which}"):
        shutil.rmtree(tmp, ignore_errors=True)


@dataclass(frozen=True)
class RenderedDomain:
    """A domain's files as uac renders them, with ``state.py``'s parts (the rendered
    records, for :func:`uac.dialect.partial.check_files`)."""

    files: dict[str, str]
    state: render.StateSource

    @property
    def digest(self) -> str:
        return files_digest(self.files)


def render_domain(
    name: str,
    schema: "SchemaSpec",
    entries: list[tuple[str, "TypeSpec", Any]],
    *,
    chunk_cache: render.ChunkCache | None = None,
) -> RenderedDomain:
    """``__init__.py``, ``schema.py`` and ``state.py`` of domain ``name`` from its schema and
    its ``(name, type, value)`` entries (``chunk_cache``: see :func:`uac.dialect.render.state_source`)."""
    state = render.state_source(
        f"State of the {name} domain (generated by uac; do not edit by hand).", schema, entries, chunk_cache=chunk_cache
    )
    files = {
        "__init__.py": render.render_init(
            f"The {name} domain of this user project.", schema, [n for n, _, _ in entries]
        ),
        "schema.py": render.render_schema(schema),
        "state.py": state.text(),
    }
    return RenderedDomain(files, state)


def files_digest(files: dict[str, str]) -> str:
    """The source hash of a domain's files (``schema.py`` and ``state.py``)."""
    return source_hash(files["schema.py"].encode("utf-8"), files["state.py"].encode("utf-8"))


def write_records(
    project: "Project", name: str, schema: "SchemaSpec", entries: list[tuple[str, "TypeSpec", Any]]
) -> LoadedDomain:
    """Render domain ``name`` from its schema and entries and write it (:func:`write_domain`)."""
    return write_domain(project, name, render_domain(name, schema, entries).files)


def write_domain(project: "Project", name: str, files: dict[str, str]) -> LoadedDomain:
    """Validate ``files`` as domain ``name`` and swap them in (caller holds the lock).

    Raises :class:`~uac.dialect.problems.CodeRejected` (or another
    :class:`~uac.errors.UacError`) without touching the current directory.
    """
    loaded = _swap(project, name, files, validate=True)
    assert loaded is not None
    return loaded


def swap_domain(project: "Project", name: str, files: dict[str, str]) -> None:
    """Swap in ``files`` that were already shown to pass the full validator
    (:func:`uac.dialect.partial.check_files`) without loading them again; the load
    cache is left alone (it is keyed by content, so it never serves other files).
    Same atomic swap as :func:`write_domain` (caller holds the lock).  The change log
    takes the records from :func:`uac.view.changes.offer` when the caller offered them
    for these files, else it reads them from the files."""
    _swap(project, name, files, validate=False)


def _swap(project: "Project", name: str, files: dict[str, str], *, validate: bool) -> LoadedDomain | None:
    check_domain_name(name)
    root = project.paths.domains
    make_private_dirs(root)
    resolve_inside(project.root, root)
    recover(project, name)
    before = changes.before_write(project, name) if changes.ENABLED else None
    tmp = Path(tempfile.mkdtemp(prefix=f".new-{name}-", dir=root))
    loaded = None
    try:
        for filename, text in files.items():
            write_private(tmp / filename, text.encode("utf-8"))
        if validate:
            loaded = load_domain_dir(tmp, cache_dir=None, label=f"domains/{name}", root=project.root)
            # fill the cache for the final location (same content hash)
            loaded.name = name
            write_cache(cache_path(cache_dir(project), name), loaded)
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
    # the change log follows the swap (never ahead of it: see uac.view.changes)
    if not changes.ENABLED:
        return loaded
    digest = files_digest(files)
    values = loaded.values if loaded is not None else changes.offered(project, name, digest)
    if values is None:
        values = _values_of(name, files, digest)
    if values is not None:
        changes.after_write(project, name, before, values, digest)
    return loaded


def _values_of(name: str, files: dict[str, str], digest: str) -> dict | None:
    """The values of files already shown to be valid (``None``: they cannot be read)."""
    try:
        return load_sources(name, files["schema.py"], files["state.py"]).values
    except Exception as exc:  # validated before; the log catches up if this ever fails
        log.warning("the change log cannot read the new files of domain %s: %s", name, exc)
        return None


def remove_domain(project: "Project", name: str) -> None:
    """Take domain ``name`` out of the view (caller holds the lock): renamed away first
    (atomic, under the prefix :func:`recover` clears after a crash), then deleted."""
    root = project.paths.domains
    target = root / check_domain_name(name)
    if not target.exists():
        return
    before = changes.before_write(project, name) if changes.ENABLED else None
    gone = Path(tempfile.mkdtemp(prefix=f".new-{name}-", dir=root))
    gone.rmdir()
    os.replace(target, gone)
    fsync_dir(root)
    shutil.rmtree(gone, ignore_errors=True)
    cache_path(cache_dir(project), name).unlink(missing_ok=True)
    if changes.ENABLED:
        changes.after_write(project, name, before, None, None)


def domain_files(project: "Project", name: str) -> dict[str, str] | None:
    """The files of domain ``name`` as they are on disk (``None``: no such domain)."""
    directory = project.paths.domains / check_domain_name(name)
    if not directory.is_dir():
        return None
    files = {}
    for path in sorted(directory.iterdir()):
        if path.is_file() and not path.is_symlink():
            files[path.name] = read_regular(project.root, path).decode("utf-8")
    return files


@contextmanager
def undone_on_failure(project: "Project", name: str) -> Iterator[None]:
    """Undo the block's change of domain ``name`` if the block raises (caller holds the
    lock): the files it had are swapped back in (a domain that was not there is
    removed again), the change log is taken back to where it was (the undone write
    logs nothing), the manifest is rendered again, and the exception goes on.  A
    crash inside the block keeps the change: each swap is atomic, and what follows
    it is derived data that catches up."""
    before = domain_files(project, name)
    logged = changes.mark(project)
    try:
        yield
    except BaseException:
        from .manifest import write_manifest

        if domain_files(project, name) == before:  # it failed before the swap: nothing to undo
            raise
        if before is None:
            remove_domain(project, name)
        else:
            _swap(project, name, before, validate=False)
        changes.rollback(project, logged)  # neither the write nor its undoing is a change
        try:
            write_manifest(project)  # the manifest follows the view back
        except Exception as exc:  # the failure to report is the first one
            log.warning("MANIFEST.md not rendered again after an undone change of domain %s: %s", name, exc)
        raise


def remember_domain(project: "Project", loaded: LoadedDomain) -> None:
    """Fill the load cache with a domain whose files on disk are exactly ``loaded``
    (keyed by their source hash); for files swapped in by :func:`swap_domain`."""
    write_cache(cache_path(cache_dir(project), loaded.name), loaded)


__all__ = [
    "DOMAIN_RE",
    "RenderedDomain",
    "cache_dir",
    "check_domain_name",
    "domain_dirs",
    "domain_files",
    "domain_names",
    "files_digest",
    "load_domain",
    "load_domain_dir",
    "load_view",
    "recover",
    "remember_domain",
    "remove_domain",
    "render_domain",
    "swap_domain",
    "undone_on_failure",
    "write_domain",
    "write_records",
]
