"""``uac doctor`` check: the view's change log (``.uac/history/``) reads whole and has
reached the view (a crash between a swap and its append leaves it behind)."""

from __future__ import annotations

from ..context import MemoryContext
from ..errors import UacError
from ..view import changes
from .result import FAIL, OK, WARN, CheckResult


def check_history(ctx: MemoryContext, repair: bool) -> CheckResult:
    from ..dialect.loader import source_hash
    from ..view.store import domain_names, load_domain

    project = ctx.project
    hashes: dict[str, str] = {}
    records: dict[str, dict[str, changes.Rec] | None] = {}
    for name in domain_names(project):
        directory = project.paths.domains / name
        try:
            hashes[name] = source_hash((directory / "schema.py").read_bytes(), (directory / "state.py").read_bytes())
            records[name] = changes.records_of(load_domain(project, name).values) if repair else None
        except (OSError, UacError):
            hashes.pop(name, None)
            records[name] = None  # the view check reports it; its changes stay as they are
    found = changes.check(project, hashes)
    data = {
        "damaged_lines": found.damaged_lines,
        "state_broken": found.state_broken,
        "behind": found.behind,
        "unindexed": found.unindexed,
    }
    problem = []
    if found.damaged_lines:
        problem.append(f"{found.damaged_lines} damaged line(s)")
    if found.state_broken:
        problem.append("state.json unreadable")
    if found.behind:
        problem.append("behind the view for " + ", ".join(found.behind))
    if found.unindexed:
        problem.append("no index of " + ", ".join(found.unindexed) + " (read whole by every query)")
    if not problem:
        state = changes.read_state(project)
        count = sum(int(s.get("count", 0)) for s in state["segments"])
        return CheckResult("history", OK, f"{count} change(s) over {state['next_seq'] - 1} compile(s)", data=data)
    what = "; ".join(problem)
    if repair:
        with project.lock("rebuild change log"):
            logged = changes.rebuild(project, records)
        return CheckResult(
            "history",
            OK,
            "the change log was rebuilt",
            repaired=f"{what}: rebuilt, {logged} change(s) logged from the view",
            data=data,
        )
    status = FAIL if (found.damaged_lines or found.state_broken) else WARN
    return CheckResult(
        "history", status, f"the change log: {what} (run 'uac doctor --repair' to rebuild it)", data=data
    )
