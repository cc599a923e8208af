"""``uac doctor``: report a project's health and, with ``repair``, mend it.

Each check is a function ``(memory, repair) -> CheckResult`` named in
:data:`CHECKS` by import path, so a check's heavy imports load only when
doctor runs.  Repairs rebuild derived data only; the fact log and the archive
are never rewritten by doctor.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ._version import __version__
from .lock import lock_is_held

if TYPE_CHECKING:
    from .memory import UserMemory

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass
class CheckResult:
    name: str
    status: str
    detail: str
    repaired: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


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
        for result in self.checks:
            if result.name == name:
                return result
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "ok": self.ok,
            "format_version": self.format_version,
            "uac_version": self.uac_version,
            "checks": [asdict(c) for c in self.checks],
        }


Check = Callable[["UserMemory", bool], CheckResult]

#: the checks doctor runs, in order, as "module:function"
CHECKS: list[str] = [
    "uac.doctor:check_format",
    "uac.doctor:check_layout",
    "uac.doctor:check_lock",
    "uac.doctor:check_llm",
    "uac.doctor:check_sandbox",
    "uac.facts.health:check_fact_log",
    "uac.index.health:check_indexes",
    "uac.view.health:check_view",
]


def check_format(memory: "UserMemory", repair: bool) -> CheckResult:
    config = memory.project.config
    return CheckResult(
        "format",
        OK,
        f"format v{config.format_version}; migrations applied: {', '.join(config.migrations) or 'none'}",
        data={"format_version": config.format_version, "migrations": list(config.migrations)},
    )


def check_layout(memory: "UserMemory", repair: bool) -> CheckResult:
    problems = memory.project.layout_problems()
    if not problems:
        return CheckResult("layout", OK, "all directories and files present")
    if repair:
        done = memory.project.repair_layout()
        return CheckResult("layout", OK, "layout repaired", repaired="; ".join(done))
    return CheckResult("layout", FAIL, "; ".join(problems) + " (run 'uac doctor --repair')")


def check_lock(memory: "UserMemory", repair: bool) -> CheckResult:
    holder = lock_is_held(memory.project.paths.lock)
    if holder is None:
        return CheckResult("lock", OK, "free")
    return CheckResult("lock", WARN, f"held by {holder}")


def check_llm(memory: "UserMemory", repair: bool) -> CheckResult:
    settings = memory.llm_settings
    status = OK if settings.configured else WARN
    detail = settings.describe()
    if not settings.configured:
        detail += "; set UAC_LLM_PROVIDER/UAC_LLM_MODEL to enable LLM extraction, compile and answers"
    return CheckResult(
        "llm",
        status,
        detail,
        data={"provider": settings.provider, "model": settings.model, "base_url": settings.base_url},
    )


def check_sandbox(memory: "UserMemory", repair: bool) -> CheckResult:
    try:
        import sandbox
    except ImportError as exc:
        return CheckResult("sandbox", FAIL, f"the sandbox package cannot be imported: {exc}")
    level = sandbox.detect_level()
    from sandbox.jail import jail_required

    required = memory.project.config.sandbox.require_jail or jail_required(None)
    data = dict(level.to_dict(), required_jail=required)
    detail = f"level {level.level}: {level.reason}"
    if level.level != "jail":
        if required:
            return CheckResult("sandbox", FAIL, detail + " (the jail is required: install bubblewrap)", data=data)
        return CheckResult("sandbox", WARN, detail + " (install bubblewrap for the OS jail)", data=data)
    return CheckResult("sandbox", OK, detail, data=data)


def _load(path: str) -> Check:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def run_doctor(memory: "UserMemory", *, repair: bool = False) -> DoctorReport:
    results = [_load(path)(memory, repair) for path in CHECKS]
    config = memory.project.config
    return DoctorReport(str(memory.project.root), config.format_version, __version__, results)
