"""``uac doctor`` check: every generated domain package validates and loads, and where
each fact stands (recorded, considered, pending, not compiled yet; and what the view says of
them: represented by a record, only on the timeline, left out with the reason)."""

from __future__ import annotations

from ..compile.coverage import fact_coverage
from ..compile.follow import current_fact_ids
from ..context import MemoryContext
from ..errors import UacError
from .result import FAIL, OK, WARN, CheckResult


def represented_detail(facts: dict) -> str:
    """``in records: 1 of 4 facts (25%), 0 only on the timeline, 3 left out (travel: 1 of 4 ...)``."""
    from ..compile.coverage import share

    totals = facts["totals"]
    compiled = totals["represented"] + totals["timeline"] + totals["left_out"]
    text = (
        f"in records: {totals['represented']} of {compiled} compiled fact(s) "
        f"({share(totals['represented'], totals['timeline'], totals['left_out']):.0%}), "
        f"{totals['timeline']} only on the timeline, {totals['left_out']} left out"
    )
    parts = []
    for name, d in facts["domains"].items():
        total = d["represented"] + d["timeline"] + d["left_out"]
        if total:
            parts.append(
                f"{name} {d['represented']}/{total} ({share(d['represented'], d['timeline'], d['left_out']):.0%})"
            )
    return text + (f" [{', '.join(parts)}]" if parts else "")


def check_view(ctx: MemoryContext, repair: bool, *, deep: bool = True) -> CheckResult:
    """Validate and load each ``domains/<d>/`` (the cache is refreshed as a side effect)."""
    from ..view.store import domain_names, load_domain

    project = ctx.project
    names = domain_names(project)
    problems: dict[str, str] = {}
    records: dict[str, int] = {}
    view = {}
    for name in names:
        try:
            loaded = load_domain(project, name)
        except UacError as exc:
            problems[name] = exc.message
            continue
        view[name] = loaded
        records[name] = loaded.record_count()
    data: dict = {"domains": names, "records": records, "problems": problems}
    # deep: the folded log; else the log's saved table of validity (the same ids).
    # None: the log cannot be read, which the fact_log check reports
    current = current_fact_ids(ctx, deep=deep)
    if current is not None:
        coverage = fact_coverage(project, current, view)
        data["facts"] = coverage.to_json()
    if problems:
        detail = "; ".join(f"{n}: {m}" for n, m in problems.items())
        return CheckResult(
            "view",
            FAIL,
            f"{len(problems)} domain(s) do not validate: {detail} (recompile with 'uac compile')",
            data=data,
        )
    facts = data.get("facts") or {}
    behind = bool(facts) and (facts["not_compiled"] or any(d["pending"] for d in facts["domains"].values()))
    if not names and not behind:
        return CheckResult("view", OK, "no domains yet", data=data)
    # no domain yet is no excuse: facts ingested and never compiled are a view that lags
    detail = (
        "no domains yet"
        if not names
        else (f"{len(names)} domain(s) validate: " + ", ".join(f"{n} ({records[n]} records)" for n in names))
    )
    if facts:
        counts = {k: sum(d[k] for d in facts["domains"].values()) for k in ("recorded", "considered", "pending")}
        detail += (
            f"; facts: {counts['recorded']} recorded, {counts['considered']} considered, {counts['pending']} pending, "
            f"{facts['not_compiled']} not compiled yet"
        )
        detail += "; " + represented_detail(facts)
        if counts["pending"]:
            return CheckResult("view", WARN, detail + " (run 'uac compile' to retry the pending ones)", data=data)
        if facts["not_compiled"]:
            # ask, repl and run_python answer from the view: say that it lags the log
            return CheckResult(
                "view",
                WARN,
                detail + f" (the view does not include {facts['not_compiled']} fact(s) yet: run 'uac compile')",
                data=data,
            )
    return CheckResult("view", OK, detail, data=data)
