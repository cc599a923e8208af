"""Resource limits of one sandboxed run or REPL session."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Limits:
    """Limits enforced on agent code.

    ``cpu_seconds`` and ``wall_seconds`` apply to each run (each ``Session.run``
    call); the others to the worker process or to the size of what comes back.
    """

    cpu_seconds: float = 10.0
    """CPU time per run (RLIMIT_CPU soft limit, reset before every run)."""
    wall_seconds: float = 15.0
    """Wall-clock time per run; the whole worker process group is killed after it."""
    memory_mb: int = 1024
    """Address space of the worker process (RLIMIT_AS), state included."""
    max_output_chars: int = 100_000
    """Characters of printed output kept; more gives an ``OutputLimit`` error."""
    max_result_chars: int = 1_000_000
    """Size of the JSON text of ``result``; more gives a ``ResultLimit`` error."""
    max_code_chars: int = 100_000
    """Size of submitted code; more is refused before it reaches the worker."""
    max_open_files: int = 64
    """RLIMIT_NOFILE of the worker."""
    session_cpu_seconds: float = 3600.0
    """Hard CPU limit over the whole life of a worker (a warm session)."""
    startup_seconds: float = 30.0
    """Wall-clock time allowed for the worker to start and load the state."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{f.name} must be a positive number, got {value!r}")

    def to_wire(self) -> dict[str, float | int]:
        """The limits as a JSON object (sent to the worker)."""
        return asdict(self)
