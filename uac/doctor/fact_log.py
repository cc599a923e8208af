"""``doctor`` check of the fact log: corrupt lines, torn or uncommitted tail."""

from __future__ import annotations

from .result import FAIL, OK, WARN, CheckResult
from ..context import MemoryContext
from ..errors import StoreError
from ..facts.log import FactLog


def check_fact_log(ctx: MemoryContext, repair: bool) -> CheckResult:
    log = FactLog(ctx.project.paths.facts)
    try:
        state = log.read()
    except StoreError as exc:
        problems = log.line_problems()
        return CheckResult(
            "fact_log",
            FAIL,
            f"{exc.message} Bad lines: {'; '.join(problems[:10])}. Restore the log from a copy or remove the bad lines.",
            data={"bad_lines": problems},
        )
    data = {"facts": len(state.facts), "sessions": len(state.sessions), "lines": state.lines}
    current = sum(1 for f in state.facts.values() if f.invalid_at is None)
    detail = f"{len(state.facts)} facts ({current} current) from {len(state.sessions)} sessions"
    if state.dropped:
        data["dropped"] = state.dropped
        return CheckResult(
            "fact_log",
            WARN,
            f"{detail}; ignoring the unfinished end of the log ({state.dropped}); it is dropped on the next write",
            data=data,
        )
    return CheckResult("fact_log", OK, detail, data=data)
