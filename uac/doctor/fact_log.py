"""``doctor`` check of the fact log: corrupt lines, torn or uncommitted tail."""

from __future__ import annotations

from .result import FAIL, OK, WARN, CheckResult
from ..context import MemoryContext
from ..errors import StoreError, UnsafePath
from ..facts.log import FactLog
from ..sessions.archive import Archive


def check_fact_log(ctx: MemoryContext, repair: bool) -> CheckResult:
    log = FactLog(ctx.project.paths.facts)
    try:
        state = log.read()
    except UnsafePath as exc:
        return CheckResult("fact_log", FAIL, f"{exc.message} {exc.hint}")
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
    uncommitted = [sid for sid in Archive(ctx.project.paths.sessions).ids() if sid not in state.sessions]
    if uncommitted:
        data["uncommitted_archive"] = uncommitted
        return CheckResult(
            "fact_log",
            WARN,
            f"{detail}; {len(uncommitted)} archived session(s) have no commit in the log (an ingest was interrupted; "
            f"e.g. {uncommitted[0]}): they are not part of the memory until their file is ingested again",
            data=data,
        )
    return CheckResult("fact_log", OK, detail, data=data)
