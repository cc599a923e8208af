"""The bounds a server runs with, and the ``uac serve`` flag that sets each.

:class:`ServerLimits` bounds concurrent work (:mod:`uac.server.admission` enforces it),
:class:`SessionLimits` the MCP sessions over HTTP (:mod:`uac.server.mcp_sessions`).  A
field made with :func:`flagged` names its flag and the flag's help: ``uac serve`` builds
its options from these fields, so each default is written once.  The command line reads
this module at start, so it imports nothing but the standard library.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


def flagged(default: Any, flag: str, help: str, *, factory: bool = False) -> Any:
    """A bound that ``uac serve`` sets with ``flag`` (``help`` is the flag's).  With ``factory``,
    ``default`` is called for the value (it depends on the machine) and the flag's default is 0,
    which keeps it."""
    metadata = {"flag": flag, "help": help}
    if factory:
        return field(default_factory=default, metadata=metadata)
    return field(default=default, metadata=metadata)


def _default_sandbox_workers() -> int:
    return 2 * max(1, os.cpu_count() or 1)


def _default_sandbox_workers_per_project() -> int:
    return max(1, (os.cpu_count() or 1) // 2)


@dataclass(frozen=True)
class ServerLimits:
    """How much concurrent work a server admits (see docs/serving.md, "Limits and concurrency")."""

    lock_wait_seconds: float = flagged(
        30.0, "--lock-wait", "Seconds a write waits for its project before 423 project_locked."
    )
    """How long a write waits for its project (another write, or the lock held by another process)."""
    busy_wait_seconds: float = flagged(
        30.0,
        "--busy-wait",
        "Seconds a request waits for a sandbox worker, a model slot, its turn to "
        "search, read or be checked, or room for its body, before 503 server_busy.",
    )
    """How long a request waits for a sandbox worker, a model slot or its turn to search."""
    queued_per_project: int = flagged(
        64,
        "--queue-per-project",
        "Requests of one kind (and compile jobs) that may wait for one project; more are refused at once.",
    )
    """Requests of one kind (writes, searches, sandbox runs, asks) that may wait for one project;
    more are refused at once."""
    sandbox_workers: int = flagged(
        _default_sandbox_workers,
        "--sandbox-workers",
        "Sandbox workers at once, all projects (0: twice the number of CPUs).",
        factory=True,
    )
    """Sandbox workers running at once, over all projects (each may use up to its memory limit)."""
    sandbox_workers_per_project: int = flagged(
        _default_sandbox_workers_per_project,
        "--sandbox-workers-per-project",
        "Sandbox workers at once for one project (0: half the CPUs, at least 1).",
        factory=True,
    )
    """Sandbox workers running at once for one project (half the CPUs: one tenant's code
    cannot take the whole machine)."""
    model_calls: int = flagged(8, "--model-calls", "Model calls (or asks) in flight at once, all projects.")
    """Model calls (or asks) in flight at once, over all projects."""
    model_calls_per_project: int = flagged(
        2, "--model-calls-per-project", "Model calls (or asks) in flight at once for one project."
    )
    """Model calls (or asks) in flight at once for one project."""
    model_wait_seconds: float = 120.0
    """How long a model call inside a background job or a write waits for a model slot."""
    warm_projects: int = flagged(
        128, "--warm-projects", "Projects kept warm at once; the least recently used is closed for a new one."
    )
    """Projects kept warm (opened, their search tables loaded) at once; the least recently
    used one is closed when another is opened.  A project that is not warm costs nothing."""
    idle_seconds: float = flagged(
        600.0, "--idle-seconds", "Close a warm project no request used for this long (0: only for room)."
    )
    """A warm project no request used for this long is closed (0: only when room is needed)."""
    threads: int = flagged(40, "--threads", "Threads running library calls at once, all projects.")
    """Threads that run library calls at once, over all projects (requests beyond wait
    in the event loop, holding no thread)."""
    writes: int = flagged(16, "--writes", "Writes (and health checks, one per project) running at once, all projects.")
    """Writes running at once, over all projects (each opens its project's vector store);
    health checks (doctor) share this bound, one at a time per project."""
    reads_per_project: int = flagged(
        4,
        "--reads-per-project",
        "Plain reads of one project running at once (facts, manifest, domains, job status, the inspector's pages).",
    )
    """Plain reads of one project running at once (facts, manifest, domains, project info,
    job status, the inspector's pages); more wait their turn without a thread."""
    body_buffer_bytes: int = 64 * 1024 * 1024
    """Bytes of request bodies held in memory at once, over all requests (a quarter of it,
    or one largest body, for one project); a body is read only once its request is
    authenticated and its bytes are reserved here."""

    def __post_init__(self) -> None:
        for name in (
            "queued_per_project",
            "sandbox_workers",
            "sandbox_workers_per_project",
            "model_calls",
            "model_calls_per_project",
            "warm_projects",
            "threads",
            "writes",
            "body_buffer_bytes",
            "reads_per_project",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("lock_wait_seconds", "busy_wait_seconds", "model_wait_seconds", "idle_seconds"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must not be negative, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class SessionLimits:
    """How many MCP sessions a server keeps open, and for how long (``uac serve mcp`` flags)."""

    total: int = flagged(
        1000, "--sessions", "With --transport http: open MCP sessions at most, all tokens; beyond, 503 server_busy."
    )
    per_token: int = flagged(
        8, "--sessions-per-token", "Open sessions of one token; one more closes its least recently used."
    )
    per_project: int = flagged(
        32, "--sessions-per-project", "Open sessions of one project's tokens; one more closes its least recently used."
    )
    idle_seconds: float = flagged(600.0, "--session-idle", "Close a session no request used for this many seconds.")
    sweep_seconds: float = 5.0
    """How often idle sessions and sessions of revoked tokens are looked for."""

    def __post_init__(self) -> None:
        for name in ("total", "per_token", "per_project"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("idle_seconds", "sweep_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
