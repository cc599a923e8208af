"""``doctor`` check of the indexes: do they cover exactly the log and the archive?"""

from __future__ import annotations

from .result import FAIL, OK, CheckResult
from ..context import MemoryContext
from ..errors import StoreError, UnsafePath
from ..facts.log import FactLog
from ..sessions.archive import Archive


def check_indexes(ctx: MemoryContext, repair: bool) -> CheckResult:
    from ..index.maintain import index_problems, rebuild

    project = ctx.project
    try:
        state = FactLog(project.paths.facts).read()
    except (StoreError, UnsafePath) as exc:
        return CheckResult("indexes", FAIL, f"cannot check the indexes: {exc.message}")
    archive = Archive(project.paths.sessions)
    index = ctx.index
    try:
        problems = index_problems(index, state, archive)
    except (StoreError, UnsafePath) as exc:
        problems = [exc.message]
    if not problems:
        facts = len(index.channel("facts").entries) if index.read_manifest() else 0
        chunks = len(index.channel("archive").entries) if index.read_manifest() else 0
        return CheckResult("indexes", OK, f"in step with the log: {facts} facts, {chunks} archive chunks")
    if repair:
        with project.lock("rebuild indexes"):
            facts, chunks = rebuild(index, state, archive)
        return CheckResult(
            "indexes", OK, f"rebuilt from the log and the archive: {facts} facts, {chunks} archive chunks",
            repaired="; ".join(problems),
        )
    return CheckResult(
        "indexes", FAIL, "; ".join(problems[:5]) + " (run 'uac doctor --repair' to rebuild)", data={"problems": problems}
    )
