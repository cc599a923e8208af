"""Background jobs (compile): run in a small thread pool, polled by id.

Every change of a job's status is written to its project, as
``<project>/.uac/jobs/<id>.json`` (atomic replace), so the status survives a
server restart.  A job that was queued or running when its server stopped is
reported as ``failed`` with the code ``job_interrupted`` (the work a job had
finished is on disk; an interrupted compile is safe to start again).  Each
project keeps its newest :data:`KEEP_FINISHED` finished jobs.

A job's id names its project (``<project>.<32 hex digits>``), so ``GET
/v1/jobs/{id}`` checks the caller's token against that one project and reads
one file: it never looks through the other projects.  (Ids of jobs made before
ids named their project are 32 hex digits; they are found under their
project's route.)

Several servers may share one root: each holds a lock on
``<root>/.uac-runners/<runner id>.lock`` while it lives, so a server that
reads a job another server is still running reports it as it is, and only a
job whose server is gone is reported interrupted.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import json
import logging
import os
import re
import threading
import time
import uuid
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from ...errors import UacError
from ...fsutil import atomic_write_text
from ...progress import reporting
from ..errors import envelope, envelope_for
from ..fairqueue import FairQueue

log = logging.getLogger(__name__)

#: finished jobs kept per project (on disk) and in the server's memory
KEEP_FINISHED = 200
#: how often a running job's progress is written to its record on disk (the server's memory has it at once)
PROGRESS_SAVE_SECONDS = 1.0

_UNIQUE = re.compile(r"[0-9a-f]{32}")


def new_job_id(project: str) -> str:
    return f"{project}.{uuid.uuid4().hex}"


def project_of(job_id: str) -> str | None:
    """The project a job id names (None for an id that names none, e.g. an older one)."""
    from ...errors import InvalidName
    from ...workspace import validate_project_name

    project, dot, unique = job_id.rpartition(".")
    if not dot or not _UNIQUE.fullmatch(unique):
        return None
    try:
        return validate_project_name(project)
    except InvalidName:
        return None


def _file_name(project: str, job_id: str) -> str | None:
    """The record's file name in its project, or None for an id that is not one of the project's."""
    if _UNIQUE.fullmatch(job_id) or project_of(job_id) == project:  # (32 hex digits: an older id)
        return f"{job_id}.json"
    return None


_STATES = ("queued", "running", "succeeded", "failed")


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class JobRecord:
    id: str
    project: str
    kind: str
    status: str = "queued"
    created: str = field(default_factory=_now)
    started: str | None = None
    finished: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    #: while running: ``{"done", "total", "unit"}`` from the work's progress steps (:mod:`uac.progress`)
    progress: dict[str, Any] | None = None
    runner: str = ""
    """Which server process ran the job (to tell an interrupted job after a restart)."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["runner"]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "JobRecord":
        if not isinstance(data, dict) or data.get("status") not in _STATES:
            raise ValueError("not a job record")
        known: dict[str, Any] = {name: data.get(name) for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)


class JobStore:
    """Job records in the projects under a server's root: ``<project>/.uac/jobs/<id>.json``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _folder(self, project: str) -> Path:
        return self.root / project / ".uac" / "jobs"

    def save(self, job: JobRecord) -> None:
        folder = self._folder(job.project)
        name = _file_name(job.project, job.id)
        if name is None:
            raise ValueError(f"job id {job.id!r} does not belong to project {job.project!r}")
        atomic_write_text(folder / name, json.dumps(asdict(job), ensure_ascii=False) + "\n")

    def load(self, project: str, job_id: str) -> JobRecord | None:
        """The job ``job_id`` of ``project`` (one file read), or None."""
        name = _file_name(project, job_id)
        if name is None:
            return None
        job = self._read(self._folder(project) / name)
        return job if job is not None and job.id == job_id and job.project == project else None

    @staticmethod
    def _read(path: Path) -> JobRecord | None:
        try:
            return JobRecord.from_json(json.loads(path.read_text("utf-8")))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as exc:
            log.warning("unreadable job record %s: %s", path, exc)
            return None

    def trim(self, project: str, keep: int | None = None) -> None:
        """Delete the oldest finished job records of ``project`` beyond ``keep`` (:data:`KEEP_FINISHED`)."""
        keep = KEEP_FINISHED if keep is None else keep
        records = []
        for path in self._folder(project).glob("*.json"):
            job = self._read(path)
            if job is not None and job.project == project and job.finished is not None:
                records.append((job.finished, path.stat().st_mtime_ns, path))
        records.sort()
        for _, _, path in records[: max(0, len(records) - keep)]:
            path.unlink(missing_ok=True)


RUNNERS_DIR = ".uac-runners"


class _Liveness:
    """The lock file a runner holds while its process lives."""

    def __init__(self, root: Path, runner_id: str) -> None:
        self.folder = Path(root) / RUNNERS_DIR
        self.folder.mkdir(exist_ok=True)
        self.path = self.folder / f"{runner_id}.lock"
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(self._fd, json.dumps({"pid": os.getpid()}).encode())

    def release(self) -> None:
        if self._fd is not None:
            self.path.unlink(missing_ok=True)
            os.close(self._fd)  # closing the descriptor releases the lock
            self._fd = None

    @staticmethod
    def alive(root: Path, runner_id: str) -> bool:
        """Does the runner with this id still hold its lock (in this process or another)?"""
        if not re.fullmatch(r"[0-9a-f]{32}", runner_id or ""):
            return False
        path = Path(root) / RUNNERS_DIR / f"{runner_id}.lock"
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False


def _queue_full(max_queued: int) -> Callable[[str], UacError]:
    def refuse(project: str) -> UacError:
        from ...errors import ProjectLocked

        return ProjectLocked(
            f"project {project!r} is busy: {max_queued} jobs are already queued for it.",
            hint="Wait for them to finish (each job's status says when), then retry.",
            retry_after=5.0,
        )

    return refuse


class JobRunner:
    """Background jobs in ``workers`` threads: one queue per project, projects in turns
    (:class:`~uac.server.fairqueue.FairQueue`), at most ``max_queued`` waiting per project."""

    def __init__(self, workers: int = 2, store: JobStore | None = None, *, max_queued: int = 64) -> None:
        self._queue = FairQueue(workers, max_queued=max_queued, refuse=_queue_full(max_queued))
        self._jobs: OrderedDict[str, JobRecord] = OrderedDict()
        self._guard = threading.Lock()
        self._store = store
        self.runner_id = uuid.uuid4().hex
        self._liveness: _Liveness | None = None
        if store is not None:
            try:
                self._liveness = _Liveness(store.root, self.runner_id)
            except OSError as exc:  # other servers on this root will report its running jobs as interrupted
                log.warning("cannot mark this server's jobs as running in %s: %s", store.root / RUNNERS_DIR, exc)

    def submit(self, project: str, kind: str, work: Callable[[], dict[str, Any]]) -> JobRecord:
        """Queue ``work`` as a job of ``project``; raises ``ProjectLocked`` (with a
        ``Retry-After``) when the project has ``max_queued`` jobs waiting already."""
        if self._queue.queued(project) >= self._queue.max_queued:
            raise self._queue.refusal(project)  # refused before anything is recorded
        job = JobRecord(new_job_id(project), project, kind, runner=self.runner_id)
        self._save(job)  # before it is queued: its "running" is never overwritten by "queued"
        with self._guard:
            self._jobs[job.id] = job
            self._trim()
        try:
            self._queue.put(project, lambda: self._run(job, work))
        except UacError:  # the queue filled up meanwhile
            with self._guard:
                self._jobs.pop(job.id, None)
            self._forget(job)
            raise
        return job

    def _forget(self, job: JobRecord) -> None:
        if self._store is not None:
            name = _file_name(job.project, job.id)
            if name is not None:
                (self._store.root / job.project / ".uac" / "jobs" / name).unlink(missing_ok=True)

    def queued(self, project: str) -> int:
        """Jobs of ``project`` waiting to start."""
        return self._queue.queued(project)

    def get(self, job_id: str, project: str | None = None) -> JobRecord | None:
        """A job by id: from memory, else from its project's records (``project``, or the
        project the id names) -- one file, never a search through the projects."""
        with self._guard:
            job = self._jobs.get(job_id)
        if job is not None:
            return job if project is None or job.project == project else None
        project = project if project is not None else project_of(job_id)
        if self._store is None or project is None:
            return None
        job = self._store.load(project, job_id)
        if (
            job is not None
            and job.finished is None
            and job.runner != self.runner_id
            and not _Liveness.alive(self._store.root, job.runner)
        ):
            job = self._interrupted(job)
        return job

    def _interrupted(self, job: JobRecord) -> JobRecord:
        job.status = "failed"
        job.finished = _now()
        job.error = envelope(
            "job_interrupted",
            f"the server stopped before this {job.kind} job finished.",
            hint="Start it again: what it finished is on disk, and a compile picks up from there.",
        )["error"]
        self._save(job)
        return job

    def shutdown(self) -> None:
        """Start no more jobs and wait for the running ones (queued ones are reported
        interrupted by the next server, as after a crash)."""
        self._queue.stop(wait=True)
        if self._liveness is not None:
            self._liveness.release()

    def _save(self, job: JobRecord) -> None:
        if self._store is None:
            return
        try:
            self._store.save(job)
        except OSError as exc:  # the job goes on; its status stays in memory
            log.warning("cannot record job %s in project %s: %s", job.id, job.project, exc)

    def _run(self, job: JobRecord, work: Callable[[], dict[str, Any]]) -> None:
        job.started = _now()
        job.status = "running"
        self._save(job)
        saved = [0.0]

        def listen(done: int, total: int, unit: str) -> None:
            job.progress = {"done": done, "total": total, "unit": unit}
            now = time.monotonic()
            if now - saved[0] >= PROGRESS_SAVE_SECONDS:  # the status on disk follows, a little behind
                saved[0] = now
                self._save(job)

        try:
            with reporting(listen):
                result = work()
        except UacError as exc:
            job.error = envelope_for(exc, root=self._store.root if self._store else None)["error"]
            job.status = "failed"
        except Exception as exc:  # a bug: keep the server alive, record and log it
            log.exception("job %s (%s of %s) crashed", job.id, job.kind, job.project)
            job.error = envelope(
                "internal_error",
                f"the {job.kind} job failed unexpectedly ({type(exc).__name__}); see the server's log.",
            )["error"]
            job.status = "failed"
        else:
            job.result = result
            job.status = "succeeded"
        job.finished = _now()
        self._save(job)
        if self._store is not None:
            try:
                self._store.trim(job.project)
            except OSError as exc:
                log.warning("cannot trim the job records of project %s: %s", job.project, exc)

    def _trim(self) -> None:
        finished = [j.id for j in self._jobs.values() if j.finished is not None]
        for job_id in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[job_id]
