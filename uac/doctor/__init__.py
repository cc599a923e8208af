"""``uac doctor``: report a project's health and, with ``repair``, mend it.

Each check is a function ``(ctx, repair) -> CheckResult`` listed in
:data:`CHECKS`, one module per thing checked (:mod:`.environment`,
:mod:`.fact_log`, :mod:`.indexes`, :mod:`.view`, :mod:`.duplicates`, :mod:`.records`,
:mod:`.privacy`; :mod:`.model` only on request, as it calls the model
endpoint); they import their heavy dependencies inside the function, so
doctor starts light.  Repairs rebuild derived data (and make the project
private again); the fact log and the archive are never rewritten by doctor.

Two depths.  By default the checks of the log, the indexes and the view are
the fast ones, whose cost hardly grows with the memory: the log's committed
prefix against the sha256 recorded when it was last folded line by line, the
indexes' recorded log position, their ids against the log's, every derived
file against the checksum recorded when it was written.  ``deep`` (and
``repair``, which needs the full picture) folds the whole log line by line,
reads every index entry and archived session and compares them with the log
one by one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Protocol

from .._version import __version__
from ..context import MemoryContext
from ..lookup import find_named
from ..progress import step
from .duplicates import check_duplicates
from .endpoint import check_model
from .environment import check_format, check_layout, check_llm, check_lock, check_sandbox
from .fact_log import check_fact_log
from .history import check_history
from .indexes import check_indexes
from .privacy import check_privacy
from .records import check_records_index
from .result import FAIL, OK, WARN, CheckResult
from .view import check_view

__all__ = ["CHECKS", "FAIL", "OK", "WARN", "CheckResult", "DoctorReport", "run_doctor"]


@dataclass
class DoctorReport:
    project: str
    format_version: int
    uac_version: str
    checks: list[CheckResult]

    @property
    def ok(self) -> bool:
        return all(c.status != FAIL for c in self.checks)

    def check(self, name: str) -> CheckResult:
        return find_named(self.checks, name, key=lambda result: result.name)

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "ok": self.ok,
            "format_version": self.format_version,
            "uac_version": self.uac_version,
            "checks": [asdict(c) for c in self.checks],
        }


Check = Callable[[MemoryContext, bool], CheckResult]


class DeepCheck(Protocol):
    """A check whose work depends on the depth."""

    def __call__(self, ctx: MemoryContext, repair: bool, *, deep: bool = ...) -> CheckResult: ...


#: the checks doctor runs, in order
CHECKS: list[Check] = [
    check_format,
    check_layout,
    check_lock,
    check_llm,
    check_sandbox,
    check_fact_log,
    check_indexes,
    check_view,
    check_duplicates,
    check_records_index,
    check_history,
    check_privacy,
]
#: the checks whose work depends on the depth (they take ``deep=``)
DEPTH_AWARE: tuple[DeepCheck, ...] = (check_fact_log, check_indexes, check_view, check_records_index, check_privacy)


def run_doctor(ctx: MemoryContext, *, repair: bool = False, model: bool = False, deep: bool = False) -> DoctorReport:
    """Run :data:`CHECKS`; ``model`` adds :func:`~.model.check_model` (real calls to the endpoint);
    ``deep`` (implied by ``repair``) runs the exhaustive checks (see the module doc)."""
    deep = deep or repair
    results = []
    for number, check in enumerate(CHECKS):
        if repair:
            step(number, len(CHECKS), "checks")
        deep_check = next((c for c in DEPTH_AWARE if c is check), None)
        results.append(deep_check(ctx, repair, deep=deep) if deep_check is not None else check(ctx, repair))
    if repair:
        step(len(CHECKS), len(CHECKS), "checks")
    if model:
        results.insert(CHECKS.index(check_llm) + 1, check_model(ctx, repair))
    config = ctx.project.config
    return DoctorReport(str(ctx.project.root), config.format_version, __version__, results)
