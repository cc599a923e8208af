"""``uac doctor`` check: likely duplicates across domains (one real thing, two records)."""

from __future__ import annotations

from ..compile.duplicates import find_duplicates
from ..context import MemoryContext
from ..errors import UacError
from .result import OK, WARN, CheckResult


def check_duplicates(ctx: MemoryContext, repair: bool) -> CheckResult:
    """Records of different domains with the same name, or the same place at overlapping
    times (:mod:`uac.compile.duplicates`); a warning names both ids and the fix."""
    from ..view.store import domain_names, load_domain

    view = {}
    for name in domain_names(ctx.project):
        try:
            view[name] = load_domain(ctx.project, name)
        except UacError:
            continue  # the view check reports it
    found = find_duplicates(view)
    data = {"duplicates": [d.to_json() for d in found]}
    if not found:
        return CheckResult("duplicates", OK, "no likely duplicates across domains", data=data)
    shown = "; ".join(d.fix for d in found[:5])
    more = f" (+{len(found) - 5} more)" if len(found) > 5 else ""
    return CheckResult("duplicates", WARN, f"{len(found)} likely duplicate(s) across domains: {shown}{more}", data=data)
