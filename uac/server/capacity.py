"""What a server can hold within its process's open-file limit.

Open files are bounded by the server's settings, not by the number of
projects it has served: a warm project holds no file between requests (its
tables are in memory; an embedded vector store is closed after each use), so
the files in use at once come from the running calls (``threads``), the
writes (each opens its project's vector store), the sandbox workers (pipes)
and the background jobs; everything left over serves client connections.

:func:`check_open_files` runs when a server starts: it raises the soft limit
towards the hard one when the settings need more, and returns a
:class:`FileBudget` that says what the limit holds.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

from .admission import ServerLimits

#: files a server holds whatever it serves (interpreter, embedding model, listening socket, logs)
BASE_FILES = 64
#: files one running library call may hold at once (a search reads corpus, tables, vectors)
FILES_PER_THREAD = 4
#: files one write may hold: its project's embedded vector store (database, journal, segments)
FILES_PER_WRITE = 16
#: pipes to one sandbox worker
FILES_PER_SANDBOX = 4
#: files one background job (a compile) may hold
FILES_PER_JOB = 16
#: connections a server should have room for, when the hard limit allows
CONNECTIONS = 1024
#: fewer free descriptors than this for connections: the server says so at start
MIN_CONNECTIONS = 64


def open_file_limit() -> int:
    """The soft open-file limit of this process (-1: unlimited)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return -1 if soft == resource.RLIM_INFINITY else int(soft)


@dataclass(frozen=True)
class FileBudget:
    """The open-file limit in force and what the server's settings need of it."""

    limit: int
    """The soft limit now in force (-1: unlimited)."""
    raised_from: int | None
    """The soft limit before the server raised it, or None if it was left alone."""
    needed: int
    """Files the settings may hold at once, client connections left out."""
    limits: ServerLimits
    job_workers: int

    @property
    def connections(self) -> int:
        """Client connections the limit leaves room for (-1: unbounded)."""
        return -1 if self.limit < 0 else max(0, self.limit - self.needed)

    @property
    def enough(self) -> bool:
        return self.limit < 0 or self.connections >= MIN_CONNECTIONS

    def describe(self) -> str:
        """One line: the limit and what it holds."""
        limits = self.limits
        limit = "unlimited" if self.limit < 0 else str(self.limit)
        raised = f" (raised from {self.raised_from})" if self.raised_from is not None else ""
        room = "any number of" if self.connections < 0 else f"about {self.connections}"
        return (
            f"open-file limit {limit}{raised}: {limits.warm_projects} warm projects (no open files while idle), "
            f"{limits.threads} threads, {limits.writes} writes, {limits.sandbox_workers} sandbox workers and "
            f"{self.job_workers} jobs need at most {self.needed}, leaving {room} client connections"
        )


def files_needed(limits: ServerLimits, job_workers: int) -> int:
    return (
        BASE_FILES
        + FILES_PER_THREAD * limits.threads
        + FILES_PER_WRITE * limits.writes
        + FILES_PER_SANDBOX * limits.sandbox_workers
        + FILES_PER_JOB * job_workers
    )


def check_open_files(limits: ServerLimits, job_workers: int = 0) -> FileBudget:
    """Raise the soft open-file limit as far as the settings (plus room for connections)
    want and the hard limit allows, and say what it then holds."""
    needed = files_needed(limits, job_workers)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    raised_from = None
    if soft != resource.RLIM_INFINITY:
        want = needed + CONNECTIONS
        target = want if hard == resource.RLIM_INFINITY else min(want, hard)
        if target > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                raised_from = int(soft)
            except (ValueError, OSError):
                pass  # left as it was; the budget below says what that holds
    return FileBudget(open_file_limit(), raised_from, needed, limits, job_workers)
