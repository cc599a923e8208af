"""A file's identity as uac compares it: size, modification time and inode.

Derived data (a corpus table, a folded fact log, the flat vector copy, a BM25
index, the manifest) remembers the :class:`FileStamp` of the file it was read
from, and is reused only while the file still has that stamp.  Two stamps say
something other than "the file as it is":

* :meth:`FileStamp.missing` -- there is no file (``size`` -1);
* :meth:`FileStamp.unreadable` -- no single version of the file could be read:
  a writer kept changing it while it was read (``size`` -2).  What was read is
  used once and never kept under this stamp.

A stamp is a named tuple, so it compares equal to the plain ``(size, mtime_ns,
inode)`` tuples and lists that earlier versions saved on disk, and it is saved
as a list (:meth:`to_json`); :meth:`from_json` reads either form back.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Generic, NamedTuple, TypeVar

T = TypeVar("T")

_MISSING = -1
_UNREADABLE = -2


class FileStamp(NamedTuple):
    size: int
    mtime_ns: int
    inode: int

    @classmethod
    def missing(cls) -> "FileStamp":
        """The stamp of a file that does not exist."""
        return cls(_MISSING, 0, 0)

    @classmethod
    def unreadable(cls) -> "FileStamp":
        """The stamp of a file no single version of which could be read (it kept changing)."""
        return cls(_UNREADABLE, 0, 0)

    @classmethod
    def of_stat(cls, st: os.stat_result) -> "FileStamp":
        return cls(st.st_size, st.st_mtime_ns, st.st_ino)

    @classmethod
    def of(cls, path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> "FileStamp":
        """The stamp of ``path`` now (of a link itself with ``follow_symlinks=False``),
        or :meth:`missing` if there is no file."""
        try:
            st = os.stat(path, follow_symlinks=follow_symlinks)
        except FileNotFoundError:
            return cls.missing()
        return cls.of_stat(st)

    @classmethod
    def from_json(cls, value: Any) -> "FileStamp | None":
        """A stamp saved by :meth:`to_json` (a list of three integers; a tuple is read
        as well), or None if ``value`` is not one."""
        if not isinstance(value, (list, tuple)) or len(value) != 3:
            return None
        try:
            return cls(*(int(part) for part in value))
        except (TypeError, ValueError):
            return None

    @classmethod
    def saved(cls, value: Any) -> "FileStamp":
        """The stamp a saved table records (:meth:`from_json`); ValueError if ``value``
        is not one, so that the table is not trusted."""
        stamp = cls.from_json(value)
        if stamp is None:
            raise ValueError(f"not a file stamp: {value!r}")
        return stamp

    def to_json(self) -> list[int]:
        return [int(self.size), int(self.mtime_ns), int(self.inode)]

    @property
    def exists(self) -> bool:
        """Was there a file (that could be read as one version)?"""
        return self.size >= 0

    @property
    def is_unreadable(self) -> bool:
        return self.size == _UNREADABLE

    def same_times(self, other: "tuple[int, ...]") -> bool:
        """Same size and modification time as ``other``, whatever the inode: the same
        file, or a copy of it that kept its times (cp -a, rsync -a, a restored backup)."""
        return tuple(other)[:2] == (self.size, self.mtime_ns)


class KeptRead(Generic[T]):
    """What ``read`` made of the file at ``path``, kept while the file keeps its stamp:
    a reader that holds one pays a ``stat`` when nothing changed."""

    def __init__(self, path: Path, read: Callable[[Path], T]) -> None:
        self.path = path
        self.read = read
        self._kept: tuple[FileStamp, T] | None = None

    def get(self) -> T:
        stamp = FileStamp.of(self.path)
        if self._kept is not None and self._kept[0] == stamp:
            return self._kept[1]
        value = self.read(self.path)
        self._kept = (stamp, value)
        return value

    def keep(self, value: T) -> None:
        """Keep ``value`` for the file as it is now (just written from ``value``)."""
        self._kept = (FileStamp.of(self.path), value)

    def forget(self) -> None:
        self._kept = None


__all__ = ["FileStamp", "KeptRead"]
