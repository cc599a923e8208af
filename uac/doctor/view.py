"""``uac doctor`` check: every generated domain package validates and loads."""

from __future__ import annotations

from .result import FAIL, OK, CheckResult
from ..context import MemoryContext
from ..errors import UacError


def check_view(ctx: MemoryContext, repair: bool) -> CheckResult:
    """Validate and load each ``domains/<d>/`` (the cache is refreshed as a side effect)."""
    from ..view.store import domain_names, load_domain

    project = ctx.project
    names = domain_names(project)
    problems: dict[str, str] = {}
    records: dict[str, int] = {}
    for name in names:
        try:
            loaded = load_domain(project, name)
        except UacError as exc:
            problems[name] = exc.message
            continue
        records[name] = loaded.record_count()
    data = {"domains": names, "records": records, "problems": problems}
    if problems:
        detail = "; ".join(f"{n}: {m}" for n, m in problems.items())
        return CheckResult("view", FAIL, f"{len(problems)} domain(s) do not validate: {detail} (recompile with 'uac compile')", data=data)
    if not names:
        return CheckResult("view", OK, "no domains yet", data=data)
    return CheckResult("view", OK, f"{len(names)} domain(s) validate: " + ", ".join(f"{n} ({records[n]} records)" for n in names), data=data)
