"""``doctor`` check of the fact log: corrupt lines, torn or uncommitted tail.

Fast (the default): the log's head (:mod:`uac.facts.head`), i.e. the committed
prefix checked against the sha256 recorded when it was last folded line by
line, and only the lines after it parsed; a changed byte anywhere makes it
fold the whole log, which names a corrupt line.  Deep: the whole log folded
line by line (every checksum).
"""

from __future__ import annotations

from ..context import MemoryContext
from ..errors import StoreError, UnsafePath
from ..sessions.archive import Archive
from .result import FAIL, OK, WARN, CheckResult


def check_fact_log(ctx: MemoryContext, repair: bool, *, deep: bool = True) -> CheckResult:
    log = ctx.fact_log()
    try:
        if deep:
            state = log.read()
            facts, sessions, lines = len(state.facts), set(state.sessions), state.lines
            current = sum(1 for f in state.facts.values() if f.invalid_at is None)
            dropped = state.dropped
        else:
            head = log.head()
            facts, sessions, lines = len(head.fact_ids), set(head.sessions), head.lines
            current = _current_count(ctx)
            dropped = head.dropped
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
    data: dict = {"facts": facts, "sessions": len(sessions), "lines": lines}
    detail = f"{facts} facts ({current} current) from {len(sessions)} sessions"
    if dropped:
        data["dropped"] = dropped
        return CheckResult(
            "fact_log",
            WARN,
            f"{detail}; ignoring the unfinished end of the log ({dropped}); it is dropped on the next write",
            data=data,
        )
    uncommitted = [sid for sid in Archive(ctx.project.paths.sessions).ids() if sid not in sessions]
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


def _current_count(ctx: MemoryContext) -> int:
    """Facts in force now, from the log's saved table of validity."""
    import numpy as np

    from ..facts.table import OPEN

    return int(np.count_nonzero(np.asarray(ctx.fact_table().end) == OPEN))
