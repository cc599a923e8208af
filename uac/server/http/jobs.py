"""Background jobs (compile): run in a small thread pool, polled by id.

Jobs live in the server's memory: a restart forgets them (the work a finished
job did is on disk; a job that was running is not resumed).
"""

from __future__ import annotations

import datetime as _dt
import logging
import threading
import uuid
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from ...errors import UacError
from ..errors import envelope, envelope_for

log = logging.getLogger(__name__)

#: finished jobs kept for polling
KEEP_FINISHED = 1000


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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "project": self.project,
            "kind": self.kind,
            "status": self.status,
            "created": self.created,
            "started": self.started,
            "finished": self.finished,
            "result": self.result,
            "error": self.error,
        }


class JobRunner:
    def __init__(self, workers: int = 2) -> None:
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="uac-job")
        self._jobs: OrderedDict[str, JobRecord] = OrderedDict()
        self._guard = threading.Lock()

    def submit(self, project: str, kind: str, work: Callable[[], dict[str, Any]]) -> JobRecord:
        job = JobRecord(uuid.uuid4().hex, project, kind)
        with self._guard:
            self._jobs[job.id] = job
            self._trim()
        self._pool.submit(self._run, job, work)
        return job

    def get(self, job_id: str) -> JobRecord | None:
        with self._guard:
            return self._jobs.get(job_id)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _run(self, job: JobRecord, work: Callable[[], dict[str, Any]]) -> None:
        job.started = _now()
        job.status = "running"
        try:
            result = work()
        except UacError as exc:
            job.error = envelope_for(exc)["error"]
            job.status = "failed"
        except Exception as exc:  # a bug: keep the server alive, record and log it
            log.exception("job %s (%s of %s) crashed", job.id, job.kind, job.project)
            job.error = envelope("internal_error", f"the {job.kind} job failed unexpectedly: {exc!r}")["error"]
            job.status = "failed"
        else:
            job.result = result
            job.status = "succeeded"
        job.finished = _now()

    def _trim(self) -> None:
        finished = [j.id for j in self._jobs.values() if j.finished is not None]
        for job_id in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[job_id]
