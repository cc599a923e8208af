"""Checks of the project's setup and of what it runs on: format, layout, lock, model, sandbox."""

from __future__ import annotations

from ..context import MemoryContext
from ..lock import lock_is_held
from .result import FAIL, OK, WARN, CheckResult


def check_format(ctx: MemoryContext, repair: bool) -> CheckResult:
    config = ctx.project.config
    return CheckResult(
        "format",
        OK,
        f"format v{config.format_version}; migrations applied: {', '.join(config.migrations) or 'none'}",
        data={"format_version": config.format_version, "migrations": list(config.migrations)},
    )


def check_layout(ctx: MemoryContext, repair: bool) -> CheckResult:
    problems = ctx.project.layout_problems()
    if not problems:
        return CheckResult("layout", OK, "all directories and files present")
    if repair:
        done = ctx.project.repair_layout()
        return CheckResult("layout", OK, "layout repaired", repaired="; ".join(done))
    return CheckResult("layout", FAIL, "; ".join(problems) + " (run 'uac doctor --repair')")


def check_lock(ctx: MemoryContext, repair: bool) -> CheckResult:
    holder = lock_is_held(ctx.project.paths.lock)
    if holder is None:
        return CheckResult("lock", OK, "free")
    return CheckResult("lock", WARN, f"held by {holder}")


def check_llm(ctx: MemoryContext, repair: bool) -> CheckResult:
    settings = ctx.llm_settings
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


def check_sandbox(ctx: MemoryContext, repair: bool) -> CheckResult:
    try:
        import sandbox
    except ImportError as exc:
        return CheckResult("sandbox", FAIL, f"the sandbox package cannot be imported: {exc}")
    level = sandbox.detect_level()
    from sandbox.jail import jail_required

    required = ctx.project.config.sandbox.require_jail or jail_required(None)
    data = dict(level.to_dict(), required_jail=required)
    who = "root" if level.uid == 0 else ("an unknown uid" if level.uid is None else f"uid {level.uid}")
    detail = f"level {level.level}, the worker runs as {who}: {level.reason}"
    if level.uid == 0:
        return CheckResult("sandbox", WARN, detail + " (a breach could read what root can read)", data=data)
    if level.level != "jail":
        if required:
            return CheckResult("sandbox", FAIL, detail + " (the jail is required: install bubblewrap)", data=data)
        return CheckResult("sandbox", WARN, detail + " (install bubblewrap for the OS jail)", data=data)
    return CheckResult("sandbox", OK, detail, data=data)
