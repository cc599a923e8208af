"""The project lock: one writer at a time, across processes and threads.

A writer takes an exclusive ``flock`` on ``.uac/lock``.  The lock is re-entrant
within one process (a writer may call another writer), and it is released if
the process dies, so a crash never leaves a project locked.  The file records
the holder's pid and purpose for the error message of whoever waits.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .errors import ProjectLocked
from .fsutil import PRIVATE_FILE, make_private_dirs, open_nofollow

_registry_guard = threading.Lock()
_held: dict[str, "_Holder"] = {}


class _Holder:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.count = 0
        self.owner = threading.get_ident()


def _describe_holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text("utf-8") or "{}")
    except (OSError, ValueError):
        return "another process"
    pid = info.get("pid", "?")
    purpose = info.get("purpose") or "a write"
    return f"process {pid} ({purpose})"


@contextmanager
def project_lock(lock_path: Path, *, purpose: str = "", timeout: float = 30.0) -> Iterator[None]:
    """Hold the exclusive project lock for the ``with`` block.

    Waits up to ``timeout`` seconds (``0`` = fail at once) and then raises
    :class:`~uac.errors.ProjectLocked` naming the holder.
    """
    lock_path = Path(lock_path)
    key = str(lock_path.resolve())
    deadline = time.monotonic() + max(timeout, 0.0)
    # Threads of this process: serialise on a per-lock RLock first.
    with _registry_guard:
        holder = _held.get(key)
    if holder is not None and holder.owner == threading.get_ident():
        holder.count += 1
        try:
            yield
        finally:
            holder.count -= 1
        return
    while True:
        with _registry_guard:
            holder = _held.get(key)
            if holder is None:
                make_private_dirs(lock_path.parent)
                fd = open_nofollow(lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                else:
                    holder = _Holder(fd)
                    holder.count = 1
                    _held[key] = holder
                    break
        if time.monotonic() >= deadline:
            raise ProjectLocked(
                f"the project is locked by {_describe_holder(lock_path)}: {lock_path}.",
                hint="Wait for it to finish and retry; a lock is released when its process exits.",
            )
        time.sleep(0.05)
    try:
        os.ftruncate(holder.fd, 0)
        os.pwrite(holder.fd, json.dumps({"pid": os.getpid(), "purpose": purpose}).encode(), 0)
        yield
    finally:
        with _registry_guard:
            holder.count -= 1
            if holder.count == 0:
                _held.pop(key, None)
                try:
                    os.ftruncate(holder.fd, 0)
                finally:
                    fcntl.flock(holder.fd, fcntl.LOCK_UN)
                    os.close(holder.fd)


def lock_is_held(lock_path: Path) -> str | None:
    """Who holds the lock right now (a description), or None if it is free."""
    lock_path = Path(lock_path)
    if not lock_path.exists():
        return None
    key = str(lock_path.resolve())
    with _registry_guard:
        if key in _held:
            return f"this process ({os.getpid()})"
    fd = open_nofollow(lock_path, os.O_RDWR)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return _describe_holder(lock_path)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
