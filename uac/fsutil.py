"""Small file-system helpers: atomic replacement, durable appends, staying inside the
project, modes private to the owner, the lines of the line-oriented files uac reads, and
the JSON objects of derived files."""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, AnyStr, Callable

# --- private to the owner ------------------------------------------------------------
#
# A user's memory is private to its owner: every directory uac makes in a project
# (or in an export of one) is 0700 whatever the umask, and every file it writes is
# 0600 (a umask can only take bits away from that).

#: the mode of every directory uac makes
PRIVATE_DIR = 0o700
#: the mode of every file uac writes
PRIVATE_FILE = 0o600


def make_private_dirs(path: Path) -> Path:
    """Make directory ``path`` and its missing parents, each 0700 (``mkdir -p`` would
    give the parents the umask's mode); directories already there keep theirs."""
    path = Path(path)
    missing = []
    probe = path
    while not probe.is_dir() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, PRIVATE_DIR)
        except FileExistsError:
            if not directory.is_dir():
                raise
            continue  # made meanwhile by another writer
        os.chmod(directory, PRIVATE_DIR)  # the umask may have taken the owner's bits too
    return path


def open_private(path: Path, flags: int) -> int:
    """``os.open`` of a file that, when created, is private to its owner (0600; the
    umask can only take bits away), refusing a link as the last component."""
    return open_nofollow(path, flags, PRIVATE_FILE)


def write_private(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` in place (created 0600), without following a link."""
    with os.fdopen(open_private(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), "wb") as handle:
        handle.write(data)


def make_private(root: Path) -> int:
    """Make ``root`` and every directory under it 0700 and every regular file 0600
    (links are left alone, never followed); returns how many modes changed."""
    changed = 0
    for dirpath, _dirnames, filenames in os.walk(root):
        for name, mode in [(dirpath, PRIVATE_DIR)] + [(os.path.join(dirpath, f), PRIVATE_FILE) for f in filenames]:
            try:
                st = os.lstat(name)
            except FileNotFoundError:
                continue
            if (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)) and stat.S_IMODE(st.st_mode) != mode:
                os.chmod(name, mode)
                changed += 1
    return changed


def exposed(root: Path, *, deep: bool = True) -> list[str]:
    """Paths under ``root`` (``.`` for itself) that another user may reach: a directory
    or regular file with any permission for its group or for everyone, reached through
    directories that class may enter.  ``deep=False`` looks at ``root`` and what it
    holds directly."""
    root = Path(root)
    found = []
    stack = [(root, 0o077)]  # a path, and the classes that reach it (group 0o070, others 0o007)
    while stack:
        path, reach = stack.pop()
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        if not (is_dir or stat.S_ISREG(st.st_mode)):
            continue
        mode = stat.S_IMODE(st.st_mode)
        if mode & reach:
            found.append(_shown(root, path) if path != root else ".")
        if is_dir and (deep or path == root):
            inner = reach & ((0o070 if mode & 0o010 else 0) | (0o007 if mode & 0o001 else 0))
            try:
                children = os.listdir(path) if inner else []
            except OSError:
                children = []
            stack.extend((path / child, inner) for child in children)
    return sorted(found)


def fsync_dir(path: Path) -> None:
    """Flush a directory entry (after a rename or create) to disk."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so readers see the old or the new file, never half
    (the new file is private to its owner, see :data:`PRIVATE_FILE`)."""
    path = Path(path)
    make_private_dirs(path.parent)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), PRIVATE_FILE)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    """Text version of :func:`atomic_write_bytes` (UTF-8, newlines kept as given)."""
    atomic_write_bytes(path, text.encode("utf-8"))


# --- staying inside the project ------------------------------------------------------
#
# A project is plain files that other people and programs may have touched.  uac
# never follows a symbolic link out of it: paths it reads are resolved and must
# stay under the project's (resolved) root, what it reads must be a regular
# file (not a device, a FIFO or a directory), and files it appends to or
# rewrites in place are opened with O_NOFOLLOW.

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _shown(root: Path, path: Path) -> str:
    """``path`` relative to the project root when it is under it (messages never need more)."""
    try:
        return str(Path(path).relative_to(root))
    except ValueError:
        return Path(path).name


def _unsafe(message: str) -> Exception:
    from .errors import UnsafePath

    return UnsafePath(
        message,
        hint="uac reads and writes only regular files inside the project: replace the link "
        "with the file itself (or remove it); {do:doctor}.",
    )


def resolve_inside(root: Path, path: Path) -> Path:
    """``path`` with every link resolved; refused unless it stays under ``root``."""
    real_root = Path(root).resolve()
    real = Path(path).resolve()
    if real != real_root and real_root not in real.parents:
        raise _unsafe(f"{_shown(Path(root), Path(path))} in the project leads outside it (a symbolic link).")
    return real


def open_regular(root: Path, path: Path) -> int:
    """A read-only descriptor of ``path``: resolved inside ``root``, a regular file.

    Raises ``FileNotFoundError`` when there is no such file, and
    :class:`~uac.errors.UnsafePath` for a link out of the project or anything
    but a regular file (a FIFO is opened non-blocking, so it cannot stall the
    reader).
    """
    real = resolve_inside(root, path)
    fd = os.open(real, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    _regular_or_closed(fd, lambda: f"{_shown(Path(root), Path(path))} in the project is not a regular file.")
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def read_regular(root: Path, path: Path) -> bytes:
    """The bytes of a regular file inside ``root`` (see :func:`open_regular`)."""
    with os.fdopen(open_regular(root, path), "rb") as handle:
        return handle.read()


def is_regular_inside(root: Path, path: Path) -> bool:
    """True if ``path`` resolves inside ``root`` to a regular file (never raises)."""
    try:
        real = Path(path).resolve()
        real_root = Path(root).resolve()
        return (real == real_root or real_root in real.parents) and stat.S_ISREG(os.stat(real).st_mode)
    except (OSError, RuntimeError):
        return False


def open_nofollow(path: Path, flags: int, mode: int = 0o600) -> int:
    """``os.open`` that refuses a symbolic link as the last component (for writing)."""
    try:
        fd = os.open(path, flags | _NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _unsafe(f"{Path(path).name} is a symbolic link; uac does not write through links.") from None
        raise
    _regular_or_closed(fd, lambda: f"{Path(path).name} is not a regular file.")
    return fd


def _regular_or_closed(fd: int, what: Callable[[], str]) -> None:
    """Refuse ``fd`` (closed, :class:`~uac.errors.UnsafePath` saying ``what()``) unless it is a regular file."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _unsafe(what())
    except BaseException:
        os.close(fd)
        raise


# --- lines ----------------------------------------------------------------------------
#
# Every line-oriented file uac writes or accepts (the fact log, the index corpora and
# the records index, the compile history, JSONL chat exports and records files,
# transcripts, scripted-model files) ends its lines with "\n"; a "\r\n" file is read
# too.  Nothing else ends a line: ``str.splitlines()`` and text-mode files also break
# at "\r", "\x0b", "\x0c", "\x1c"-"\x1e", U+0085, U+2028 and U+2029, and JSON written
# with ``ensure_ascii=False`` keeps the last three unescaped inside its strings, so
# a line split there is a record cut in two.  These helpers are the one way uac
# splits such files.


def split_lines(text: AnyStr) -> list[AnyStr]:
    """The lines of ``text`` (``str`` or ``bytes``), cut at "\n" only, without their
    ends; a "\r" before the "\n" is dropped with it.  A final "\n" starts no line."""
    newline, cr = ("\n", "\r") if isinstance(text, str) else (b"\n", b"\r")
    lines = text.split(newline)
    if lines and not lines[-1]:
        lines.pop()
    return [line[:-1] if line.endswith(cr) else line for line in lines]


def split_lines_kept(data: AnyStr) -> list[AnyStr]:
    """The lines of ``data`` cut after each "\n", every one with its end as it was
    (the last may have none): joined again they are ``data``, byte for byte."""
    newline = "\n" if isinstance(data, str) else b"\n"
    pieces = data.split(newline)
    lines = [piece + newline for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def read_utf8(path: Path) -> str:
    """The text of a UTF-8 file exactly as written: no newline is translated (a text-mode
    read turns a lone "\r" into "\n").  Raises ``OSError`` and ``UnicodeDecodeError``."""
    return Path(path).read_bytes().decode("utf-8")


def read_json_object(path: Path) -> dict[str, Any] | None:
    """The JSON object the file at ``path`` holds, or None when the file is missing or
    unreadable, is not JSON or holds something else: how derived files (sidecars,
    ledgers, saved states) are read, where anything wrong means "make it again"."""
    try:
        data = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
